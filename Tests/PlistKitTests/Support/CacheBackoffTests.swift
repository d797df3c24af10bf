import Testing
@testable import PlistKit

/// `CacheBackoff` against its contract: every use allowed until 256 misses in a row, then one in 64, until a hit.
@Suite struct CacheBackoffTests {
    @Test func backsOffAfter256MissesAndRecoversOnAHit() {
        var b = CacheBackoff()
        var allowedWhileMissing = 0
        for _ in 0..<256 {
            if b.allows() { allowedWhileMissing += 1 }
            b.miss()
        }
        #expect(allowedWhileMissing == 256)
        let allowed = (0..<640).filter { _ in b.allows() }.count
        #expect(allowed == 10)
        b.hit()
        #expect((0..<100).allSatisfy { _ in b.allows() })
    }
}

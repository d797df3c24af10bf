import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// Hostile files built in the test: each must give a `PlistError` with a byte offset, quickly, without the process
/// growing by more than a bounded amount.
@Suite(.serialized) struct BinaryHostileInputTests {
    typealias F = BinaryFixture

    static func peakRSSBytes() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss * 1024
    }

    /// Reads `bytes`, expecting `kind`; checks the offset, the time and the growth of peak memory.
    func expectRejected(_ name: String, _ bytes: [UInt8], _ kind: PlistError.Kind,
                        options: PlistReadOptions = PlistReadOptions()) {
        let before = Self.peakRSSBytes()
        let clock = ContinuousClock()
        let start = clock.now
        do {
            let v = try PropertyList.read(bytes, options: options).value
            Issue.record("\(name): expected \(kind), read \(v.typeName)")
        } catch let e as PlistError {
            #expect(e.kind == kind, "\(name): \(e)")
            #expect(e.offset != nil, "\(name): no offset in \(e)")
            if let offset = e.offset { #expect(offset >= 0 && offset <= bytes.count, "\(name): \(e)") }
        } catch {
            Issue.record("\(name): \(error)")
        }
        let elapsed = clock.now - start
        #expect(elapsed < .seconds(3), "\(name): took \(elapsed)")
        // Generous: other suites run in the same process; an allocation driven by a claimed length would be
        // gigabytes.
        let grown = Self.peakRSSBytes() - before
        #expect(grown < 64 << 20 + 20 * bytes.count, "\(name): peak memory grew by \(grown) bytes")
    }

    @Test func hugeClaimedLengths() {
        for (name, marker) in [("data", UInt8(0x4F)), ("ascii", 0x5F), ("utf16", 0x6F), ("array", 0xAF), ("dict", 0xDF)] {
            expectRejected("2^62 \(name)", F([[marker, 0x13] + F.bigEndian(1 << 62, 8)]).bytes, .truncated)
            expectRejected("2^64-1 \(name)", F([[marker, 0x13] + F.bigEndian(UInt64.max, 8)]).bytes, .truncated)
            expectRejected("2^31 \(name)", F([[marker, 0x12] + F.bigEndian(1 << 31, 4)]).bytes, .truncated)
        }
    }

    @Test func hugeObjectCounts() {
        var f = F([F.int(1)])
        f.countOverride = 1 << 62
        expectRejected("count 2^62", f.bytes, .truncated)
        f.countOverride = UInt64.max
        f.offsetSize = 8
        expectRejected("count 2^64-1", f.bytes, .truncated)
        f = F([F.int(1)])
        f.tableOffsetOverride = UInt64.max
        expectRejected("table offset 2^64-1", f.bytes, .invalidReference)
    }

    @Test func deepChain() {
        // 100,000 arrays, each holding the next: rejected at depth 513, long before the end.
        let n = 100_000
        var objects = (0..<n).map { F.array([UInt64($0 + 1)], refSize: 4) }
        objects.append(F.int(1))
        let bytes = F(objects, offsetSize: 4, refSize: 4).bytes
        expectRejected("100,000-deep chain", bytes, .depthLimit)
        // With the cap raised above the chain, it is read (the reader's recursion handles it).
        var options = PlistReadOptions()
        options.maxDepth = 2000
        var shorter = (0..<1500).map { F.array([UInt64($0 + 1)], refSize: 2) }
        shorter.append(F.int(1))
        #expect((try? PropertyList.read(F(shorter, offsetSize: 2, refSize: 2).bytes, options: options)) != nil)
    }

    @Test func cycles() {
        expectRejected("self", F([F.array([0])]).bytes, .cycle)
        expectRejected("via dict value", F([F.dict([1], [0]), F.ascii("k")]).bytes, .cycle)
        expectRejected("via dict key", F([F.dict([0], [1]), F.ascii("k")]).bytes, .cycle)
        var objects = (0..<100_000).map { F.array([UInt64($0 + 1)], refSize: 4) }
        objects.append(F.array([50_000], refSize: 4))
        var options = PlistReadOptions()
        options.maxDepth = 200_000
        // Depth is the first defence; with it out of the way the cycle is still found.
        var wide = (0..<400).map { F.array([UInt64($0 + 1)], refSize: 2) }
        wide.append(F.array([10], refSize: 2))
        options.maxDepth = 1000
        expectRejected("400-step cycle", F(wide, offsetSize: 2, refSize: 2).bytes, .cycle, options: options)
        expectRejected("100,000-step cycle (depth first)", F(objects, offsetSize: 4, refSize: 4).bytes, .depthLimit)
    }

    @Test func pointersIntoTheWrongPlaces() {
        var f = F([F.array([1]), F.int(1)])
        f.offsetsOverride = [8, UInt64(f.bytes.count - 5)]
        expectRejected("offset into trailer", f.bytes, .invalidReference)
        f.offsetsOverride = [8, 2]
        expectRejected("offset into header", f.bytes, .invalidReference)
        f.offsetsOverride = [8, UInt64(f.tableOffset)]
        expectRejected("offset into offset table", f.bytes, .invalidReference)
        expectRejected("reference past count", F([F.array([1, 200]), F.int(1)]).bytes, .invalidReference)
    }

    /// Found by the `binary` fuzz target (Corpus/regressions/binary): an 8-byte offset entry above `Int.max` trapped in
    /// the reference-counting pass, which converted it to `Int` before comparing it with the object area.
    @Test func offsetEntryAboveIntMax() {
        for entry: UInt64 in [0xFFFF_FFFF_FFFF_B300, 1 << 63, UInt64.max] {
            var f = F([F.int(1)], offsetSize: 8, refSize: 1)
            f.offsetsOverride = [entry]
            expectRejected("offset entry \(entry)", f.bytes, .invalidReference)
            var g = F([F.array([1]), F.int(1)], offsetSize: 8, refSize: 1)
            g.offsetsOverride = [8, entry]
            expectRejected("member offset entry \(entry)", g.bytes, .invalidReference)
        }
    }

    @Test func overlappingObjects() throws {
        // 100,000 offset entries all pointing at one 10,000-byte string: 1 GB if each were decoded separately. CF
        // reads such a file; the second reading remembers objects by offset, so the aliases share one string.
        let n = 100_000
        let text = String(repeating: "s", count: 10_000)
        var f = F([F.array((1...UInt64(n)).map { $0 }, refSize: 4), F.ascii(text)])
        f.refSize = 4
        f.offsetsOverride = [8] + Array(repeating: UInt64(f.offset(of: 1)), count: n)
        f.countOverride = UInt64(n + 1)
        f.offsetSize = 4
        let value = try PropertyList.read(f.bytes).value
        // Compared by ends and count: comparing 100,000 strings of 10,000 bytes would test the comparison.
        guard case .array(let items) = value else { Issue.record("not an array: \(value.typeName)"); return }
        #expect(items.count == n && items.first == .string(text) && items.last == .string(text))
        // Objects at distinct offsets inside one another: every third byte starts a data object claiming the 255
        // bytes after it, so decoding them all reads 86 times the region. That stays an error.
        let region = Array([[UInt8]](repeating: [0x4F, 0x10, 0xFF], count: 2_000).joined()) + [UInt8](repeating: 0, count: 255)
        let count = 2_000
        var g = F([F.array((1...UInt64(count)).map { $0 }, refSize: 2), region])
        g.refSize = 2
        g.offsetSize = 4
        let start = UInt64(g.offset(of: 1))
        g.offsetsOverride = [8] + (0..<UInt64(count)).map { start + 3 * $0 }
        g.countOverride = UInt64(count + 1)
        expectRejected("overlap", g.bytes, .invalidReference)
    }

    /// The other side of the overlap budget: many object indexes aliasing one short string (which allocates nothing
    /// and costs ≤ 15 bytes of reading per decode) is no attack, and CF reads such a file; it must not be rejected.
    @Test func aliasedShortStringsAreAccepted() throws {
        let n = 50_000
        let text = String(repeating: "s", count: 14)
        let refs = (1...UInt64(n)).flatMap { [$0, $0] }
        var f = F([F.array(refs, refSize: 4), F.ascii(text)])
        f.refSize = 4
        f.offsetSize = 4
        let stringOffset = UInt64(f.offset(of: 1))
        f.offsetsOverride = [8] + Array(repeating: stringOffset, count: n)
        f.countOverride = UInt64(n + 1)
        let value = try PropertyList.read(f.bytes).value
        #expect(value == .array(Array(repeating: .string(text), count: 2 * n)))
    }

    /// Random corruptions of valid files: every outcome is a value or a `PlistError`, never a crash or hang.
    @Test func mutatedFilesNeverCrash() throws {
        var rng = SeededGenerator(seed: 42)
        var config = RandomPlist.Config()
        config.uids = true
        config.float32 = true
        var errors = 0
        for seed in 0..<200 {
            var random = RandomPlist(seed: UInt64(seed), config: config)
            let good = try BinaryWriter.write(random.value(), options: PlistWriteOptions())
            for _ in 0..<20 {
                var bytes = good
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    let i = Int.random(in: 0..<bytes.count, using: &rng)
                    bytes[i] = UInt8.random(in: 0...255, using: &rng)
                }
                if Bool.random(using: &rng) { bytes.removeLast(Int.random(in: 0...min(40, bytes.count), using: &rng)) }
                do {
                    _ = try bytes.withUnsafeBytes { try PropertyList.read($0, as: .binary) }
                } catch let e as PlistError {
                    #expect(e.offset != nil, "\(e)")
                    errors += 1
                }
            }
        }
        #expect(errors > 1000)
    }
}

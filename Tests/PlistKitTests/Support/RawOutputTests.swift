import Testing
@testable import PlistKit
import TestSupport

/// `RawOutput`: growth keeps every byte, `finish` returns exactly what was written, `discard` is safe to repeat.
/// (Leaks are caught by the fuzz harnesses' AddressSanitizer runs, which found one in an earlier version.)
@Suite struct RawOutputTests {
    @Test func growthKeepsEveryByteAndFinishReturnsThem() {
        var out = RawOutput(capacity: 1)
        var expected: [UInt8] = []
        var r = SeededGenerator(seed: 12)
        for _ in 0..<5000 {
            switch Int.random(in: 0...4, using: &r) {
            case 0:
                let b = UInt8.random(in: 0...255, using: &r)
                out.append(b)
                expected.append(b)
            case 1:
                out.append("<key>")
                expected += Array("<key>".utf8)
            case 2:
                let n = Int.random(in: 0...20, using: &r)
                out.appendTabs(n)
                expected += [UInt8](repeating: 9, count: n)
            case 3:
                let chunk = (0..<Int.random(in: 0...300, using: &r)).map { _ in UInt8.random(in: 0...255, using: &r) }
                chunk.withUnsafeBufferPointer { out.append(contentsOf: $0) }
                expected += chunk
            default:
                let v = Int64.random(in: Int64.min...Int64.max, using: &r)
                out.appendDecimal(PlistInteger(v))
                expected += Array(String(v).utf8)
            }
        }
        #expect(out.finish() == expected)
    }

    @Test func discardTwiceThenReuse() {
        var out = RawOutput(capacity: 8)
        out.append("abc")
        out.discard()
        out.discard()
        out.append("xyz")
        #expect(out.finish() == Array("xyz".utf8))
    }
}

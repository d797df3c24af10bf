import Testing
@testable import PlistKit

/// The writers' output buffer: growth, and moving out of lent memory when an upper bound falls short.
@Suite struct OpenStepTextOutputTests {
    @Test func growsFromOwnedMemory() {
        var out = OpenStepTextOutput(capacity: 1)
        for k in 0..<1000 { out.append(UInt8(truncatingIfNeeded: k)) }
        out.append(repeating: 0x20, count: 300)
        out.append("end")
        let bytes = out.finish()
        #expect(bytes.count == 1303)
        #expect(bytes[999] == UInt8(truncatingIfNeeded: 999) && bytes[1000] == 0x20 && bytes.suffix(3) == Array("end".utf8)[...])
    }

    @Test func spillsOutOfLentMemoryWithoutWritingPastIt() {
        let lent = UnsafeMutablePointer<UInt8>.allocate(capacity: 8)
        defer { lent.deallocate() }
        lent.initialize(repeating: 0xEE, count: 8)
        var out = OpenStepTextOutput(external: lent, capacity: 4)
        out.append("abc")
        #expect(!out.ownsMemory)
        out.append("defgh")
        #expect(out.ownsMemory)
        #expect(out.finish() == Array("abcdefgh".utf8))
        #expect(lent[4] == 0xEE && lent[7] == 0xEE)
    }
}

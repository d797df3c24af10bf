import Testing
@testable import PlistKit
import TestSupport

/// The eight-byte skip of the control-character scan (`XMLReaderControlCharacters.mayNeedALook`) against its
/// definition, byte by byte: a control character other than tab and LF, or a byte of 0xEF or above.
@Suite struct XMLReaderControlCharactersTests {
    static func wanted(_ byte: UInt8) -> Bool { (byte < 0x20 && byte != 0x09 && byte != 0x0A) || byte >= 0xEF }

    @Test func everyByteValueInEveryPosition() {
        for filler: UInt8 in [0x20, 0x61, 0x09, 0x0A, 0x80, 0xBF, 0xEE] {
            for position in 0..<8 {
                for value in 0...255 {
                    var bytes = [UInt8](repeating: filler, count: 8)
                    bytes[position] = UInt8(value)
                    let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
                    #expect(XMLReaderControlCharacters.mayNeedALook(word) == bytes.contains(where: Self.wanted),
                            "byte \(value) at \(position) among \(filler)")
                }
            }
        }
    }

    @Test func randomWords() {
        var r = SeededGenerator(seed: 0x20)
        for _ in 0..<200_000 {
            // Bytes drawn mostly near the class edges, where a borrow between bytes would show.
            let edges: [UInt8] = [0x00, 0x08, 0x09, 0x0A, 0x0B, 0x0D, 0x1F, 0x20, 0x7F, 0x80, 0x89, 0x8A, 0x9F, 0xA0, 0xEE, 0xEF, 0xF4, 0xFF]
            let bytes = (0..<8).map { _ in Bool.random(using: &r) ? edges.randomElement(using: &r)! : UInt8.random(in: 0...255, using: &r) }
            let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            #expect(XMLReaderControlCharacters.mayNeedALook(word) == bytes.contains(where: Self.wanted), "\(bytes)")
        }
    }
}

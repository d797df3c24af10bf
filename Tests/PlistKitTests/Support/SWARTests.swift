import Testing
@testable import PlistKit
import TestSupport

/// `SWAR` word tests against byte-by-byte definitions.
@Suite struct SWARTests {
    @Test func wordTestsAgreeWithBytewiseDefinitions() {
        var r = SeededGenerator(seed: 88)
        let interesting: [UInt8] = [0x00, 0x1F, 0x20, 0x21, 0x22, 0x26, 0x2F, 0x3C, 0x3E, 0x5C, 0x7F, 0x80, 0xA2, 0xDC, 0xFF]
        for _ in 0..<200_000 {
            var bytes = [UInt8](repeating: 0, count: 8)
            for k in 0..<8 { bytes[k] = Bool.random(using: &r) ? interesting.randomElement(using: &r)! : UInt8.random(in: 0...255, using: &r) }
            let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            for c: UInt8 in [0x22, 0x26, 0x3C, 0x3E, 0x5C, 0x2F] { #expect(SWAR.hasByte(word, c) == bytes.contains(c)) }
            #expect(SWAR.hasLess(word, 0x20) == bytes.contains { $0 < 0x20 })
            #expect(SWAR.hasJSONSpecial(word, slash: true) == bytes.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x2F })
        }
    }

    /// The exact masks mark exactly the matching bytes (0x80 in that byte, nothing elsewhere).
    @Test func exactMasksMarkExactlyTheMatchingBytes() {
        var r = SeededGenerator(seed: 89)
        let interesting: [UInt8] = [0x00, 0x01, 0x09, 0x0A, 0x0D, 0x1F, 0x20, 0x7F, 0x80, 0x89, 0x8A, 0xF4, 0xFF]
        for _ in 0..<200_000 {
            var bytes = [UInt8](repeating: 0, count: 8)
            for k in 0..<8 { bytes[k] = Bool.random(using: &r) ? interesting.randomElement(using: &r)! : UInt8.random(in: 0...255, using: &r) }
            let word = bytes.withUnsafeBytes { $0.loadUnaligned(as: UInt64.self) }
            func expected(_ match: (UInt8) -> Bool) -> UInt64 {
                var m: UInt64 = 0
                for k in 0..<8 where match(bytes[k]) { m |= 0x80 << (8 * UInt64(k)) }
                return m
            }
            for c: UInt8 in [0x09, 0x0A, 0xF4, 0x00, 0x80] { #expect(SWAR.maskEqual(word, c) == expected { $0 == c }) }
            for c: UInt8 in [0x20, 0x01, 0x80] { #expect(SWAR.maskLess(word, c) == expected { $0 < c }) }
        }
    }
}

import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// `<real>` text is read with a fast path for short decimals (`XMLScalarParsing.simpleDecimal`); glibc's `strtod`,
/// which Core Foundation's reader also uses, is the oracle: every value must have the same bits.
@Suite struct XMLRealParsingTests {
    static func strtodBits(_ s: String) -> UInt64 {
        s.withCString { strtod($0, nil) }.bitPattern
    }

    static func ours(_ s: String) throws -> UInt64 {
        var bytes = Array(s.utf8)
        return try bytes.withUnsafeMutableBytes { try XMLScalarParsing.real(UnsafeRawBufferPointer($0)).bitPattern }
    }

    @Test func randomDecimalsMatchStrtod() throws {
        var rng = SeededGenerator(seed: 0x5EA1)
        func digits(_ n: Int) -> String {
            String((0..<n).map { _ in Character(String(Int.random(in: 0...9, using: &rng))) })
        }
        var mismatches: [String] = []
        for _ in 0..<30_000 {
            var s = ""
            switch Int.random(in: 0...3, using: &rng) {
            case 0: s += "-"
            case 1: s += "+"
            default: break
            }
            s += Int.random(in: 0...4, using: &rng) == 0 ? "000" : ""
            s += digits(Int.random(in: 1...12, using: &rng))
            if Bool.random(using: &rng) { s += "." + digits(Int.random(in: 1...14, using: &rng)) }
            if Int.random(in: 0...2, using: &rng) == 0 {
                s += (Bool.random(using: &rng) ? "e" : "E") + ["", "-", "+"].randomElement(using: &rng)!
                s += String(Int.random(in: 0...40, using: &rng))
            }
            if try Self.ours(s) != Self.strtodBits(s) { mismatches.append(s) }
        }
        #expect(mismatches.isEmpty, "first mismatches: \(mismatches.prefix(5))")
    }

    @Test func edgesOfTheFastPathMatchStrtod() throws {
        let cases = [
            "9007199254740992", "9007199254740993", "9007199254740991.5", "1e22", "1e23", "1e-22", "1e-23",
            "123456789012345678", "1234567890123456789", "12345678901234567890", "0.1", "0.3", "-0", "-0.0", "+0e5",
            "0e-99999", "0.000000000000000000000000001", "4.9e-324", "1.7976931348623157e308", "2.2250738585072014e-308",
            "100000000000000000000000", "3.14159265358979323846", "1.", "5e", "e5", "1e+", "00012.50",
        ]
        for s in cases {
            let expected: UInt64? = s.withCString { p -> UInt64? in
                var end: UnsafeMutablePointer<CChar>? = nil
                let v = strtod(p, &end)
                return end.map { $0 - UnsafeMutablePointer(mutating: p) } == s.utf8.count ? v.bitPattern : nil
            }
            if let expected {
                #expect(try Self.ours(s) == expected, "\(s)")
            } else {
                #expect(throws: PlistError.self, "\(s)") { try Self.ours(s) }
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import PlistKit
import TestSupport

/// `NumberFormatting` against the C library: `%.17g` is defined by `printf`, so glibc's `vsnprintf` is the oracle,
/// and `%llu`/`%lld` for integers.
@Suite struct NumberFormattingTests {
    static func printf(_ format: String, _ args: [CVarArg]) -> String {
        var buf = [CChar](repeating: 0, count: 64)
        _ = withVaList(args) { vsnprintf(&buf, 64, format, $0) }
        return buf.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    static func g17(_ v: Double) -> String {
        var out = [UInt8](repeating: 0, count: NumberFormatting.maxG17Length)
        let n = out.withUnsafeMutableBufferPointer { NumberFormatting.writeG17(v, into: $0.baseAddress!) }
        return String(decoding: out[0..<n], as: UTF8.self)
    }

    static func decimal(_ v: PlistInteger) -> String {
        var out = [UInt8](repeating: 0, count: NumberFormatting.maxDecimalLength)
        let n = out.withUnsafeMutableBufferPointer { NumberFormatting.writeDecimal(v, into: $0.baseAddress!) }
        return String(decoding: out[0..<n], as: UTF8.self)
    }

    @Test func g17MatchesPrintfOnRandomBitPatterns() {
        var r = SeededGenerator(seed: 17)
        var mismatches: [String] = []
        for _ in 0..<100_000 {
            let v = Double(bitPattern: r.next())
            guard v.isFinite, v != 0 else { continue }
            let expected = Self.printf("%.17g", [v])
            let got = Self.g17(v)
            if got != expected && mismatches.count < 10 { mismatches.append("\(v.bitPattern): \(got) vs \(expected)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
    }

    @Test func g17MatchesPrintfWhereTheFastPathWorks() {
        // Magnitudes 1e-7 … 1e39 cover the 128-bit path and both of its edges; short decimals exercise rounding.
        var r = SeededGenerator(seed: 18)
        var mismatches: [String] = []
        var cases: [Double] = [1, 2, 0.1, 0.5, 1e16, 1e17, 9.999999999999999e16, 1e-4, 1e-5, 0.00001, 123.456, 1e22, 1e23]
        for _ in 0..<100_000 {
            let exponent = Double.random(in: -7...39, using: &r)
            cases.append(Double(sign: Bool.random(using: &r) ? .minus : .plus, exponent: 0, significand: 1)
                * Self.pow10(exponent))
            cases.append(Double(Int.random(in: -10_000_000...10_000_000, using: &r)) / 1000)
            cases.append(Double(Int64.random(in: Int64.min...Int64.max, using: &r)))
        }
        for v in cases where v.isFinite && v != 0 {
            let expected = Self.printf("%.17g", [v])
            let got = Self.g17(v)
            if got != expected && mismatches.count < 10 { mismatches.append("\(v): \(got) vs \(expected)") }
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
    }

    static func pow10(_ x: Double) -> Double { Glibc.pow(10, x) }

    @Test func exactTiesRoundToEven() {
        // 2^-25 = 2.98023223876953125e-08 has 18 significant digits: an exact tie at 17.
        for v in [0.5, 1.5, 2.5, 1 + 0x1p-52, 0x1p-25, 3 * 0x1p-25, 12345678901234567e5, 1.25e-3] {
            #expect(Self.g17(v) == Self.printf("%.17g", [v]), "\(v)")
        }
        var r = SeededGenerator(seed: 5)
        var ties = 0
        for _ in 0..<100_000 {
            // Dyadic fractions a / 2^k have short exact expansions, so some end exactly on a 5 at digit 18.
            let v = Double(UInt64.random(in: 1...(1 << 40), using: &r)) / Double(UInt64(1) << UInt64.random(in: 1...45, using: &r))
            let expected = Self.printf("%.17g", [v])
            let mantissa = Self.printf("%.60e", [v]).prefix(while: { $0 != "e" }).filter(\.isNumber)
            if mantissa.reversed().drop(while: { $0 == "0" }).count == 18 { ties += 1 }
            #expect(Self.g17(v) == expected, "\(v)")
        }
        #expect(ties > 100, "the sample should contain exact ties (had \(ties))")
        for _ in 0..<100_000 {
            // Integers of 18+ digits force rounding of an exact (remainder-free) value.
            let v = Double(UInt64.random(in: 100_000_000_000_000_000...UInt64.max, using: &r))
            #expect(Self.g17(v) == Self.printf("%.17g", [v]))
        }
    }

    @Test func decimalIntegersMatchPrintf() {
        var r = SeededGenerator(seed: 19)
        var values: [PlistInteger] = [0, 1, -1, 9, 10, 99, 100, PlistInteger(Int64.min), PlistInteger(Int64.max), PlistInteger(UInt64.max)]
        for _ in 0..<20_000 {
            values.append(PlistInteger(Int64.random(in: Int64.min...Int64.max, using: &r)))
            values.append(PlistInteger(UInt64.random(in: 0...UInt64.max, using: &r)))
            values.append(PlistInteger(Int64.random(in: -1000...1000, using: &r)))
        }
        for v in values {
            let expected = v.int64Value.map { Self.printf("%lld", [$0]) } ?? Self.printf("%llu", [v.bitPattern])
            #expect(Self.decimal(v) == expected)
        }
    }
}

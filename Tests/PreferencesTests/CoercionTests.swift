import Foundation
import PlistKit
import Testing
@testable import Preferences

/// Typed-getter coercions. Oracles: a table of Apple's documented NSString semantics and, for
/// strings, Foundation's own `NSString.boolValue` / `integerValue` / `doubleValue` run in the test.
@Suite struct CoercionTests {
    // (input, boolValue, integerValue, doubleValue), as Apple documents NSString's getters.
    static let table: [(String, Bool, Int, Double)] = [
        ("YES", true, 0, 0), ("yes", true, 0, 0), (" yes", true, 0, 0), ("true", true, 0, 0), ("t", true, 0, 0),
        ("T", true, 0, 0), ("Y", true, 0, 0),
        ("1", true, 1, 1), ("42", true, 42, 42), ("0001", true, 1, 1), ("+5", true, 5, 5), ("-7", true, -7, -7),
        ("\t7", true, 7, 7),
        ("0", false, 0, 0), ("-0", false, 0, -0.0), ("no", false, 0, 0), ("n", false, 0, 0), ("abc", false, 0, 0),
        ("", false, 0, 0), ("   ", false, 0, 0),
        ("0.5", false, 0, 0.5), ("-0.5", false, 0, -0.5), ("3.9", true, 3, 3.9), ("  42abc", true, 42, 42),
        ("1e3", true, 1, 1000), (" 0x10", false, 0, 0), ("99999999999999999999", true, Int.max, 1e20),
        ("٣", false, 0, 0), (" 42", true, 42, 42),
    ]

    @Test(arguments: table.indices)
    func stringScalarsFollowReferenceTable(_ index: Int) {
        let (input, bool, integer, double) = Self.table[index]
        #expect(Coercion.stringBool(input) == bool, "boolValue of \(input.debugDescription)")
        #expect(Coercion.stringInteger(input) == integer, "integerValue of \(input.debugDescription)")
        let d = Coercion.stringDouble(input)
        #expect(d == double && d.sign == double.sign, "doubleValue of \(input.debugDescription): \(d)")
    }

    @Test(arguments: table.indices)
    func stringScalarsAgreeWithFoundationNSString(_ index: Int) {
        let input = Self.table[index].0
        let ns = NSString(string: input)
        #expect(Coercion.stringBool(input) == ns.boolValue, "boolValue of \(input.debugDescription)")
        #expect(Coercion.stringInteger(input) == ns.integerValue, "integerValue of \(input.debugDescription)")
        #expect(Coercion.stringDouble(input) == ns.doubleValue, "doubleValue of \(input.debugDescription)")
    }

    @Test func numbersCoerceAsNSNumber() {
        // NSNumber, as Apple documents it: Booleans give 1/0; numbers non-zero are true; stored 0.5 (a number) is true.
        #expect(Coercion.integer(.bool(true)) == 1)
        #expect(Coercion.double(.bool(true)) == 1.0)
        #expect(Coercion.bool(.real(0.5)) == true)
        #expect(Coercion.bool(.integer(0)) == false)
        #expect(Coercion.integer(.real(3.9)) == 3)
        #expect(Coercion.integer(.real(-3.9)) == -3)
        #expect(Coercion.string(.bool(true)) == "1")
        #expect(Coercion.string(.real(3.5)) == "3.5")
        #expect(Coercion.string(.integer(42)) == "42")
    }

    @Test func extremesSaturateInsteadOfFoundationLinuxZero() {
        // Foundation on Linux returns 0/nil for Int64.max and UInt64.max; we keep the value or saturate.
        let i64max = PlistValue.integer(PlistInteger(Int64.max))
        let u64max = PlistValue.integer(PlistInteger(UInt64.max))
        let i64min = PlistValue.integer(PlistInteger(Int64.min))
        #expect(Coercion.integer(i64max) == Int.max)
        #expect(Coercion.integer(i64min) == Int.min)
        #expect(Coercion.integer(u64max) == Int.max)
        #expect(Coercion.string(u64max) == "18446744073709551615")
        #expect(Coercion.string(i64min) == "-9223372036854775808")
        #expect(Coercion.bool(u64max) == true)
        #expect(Coercion.double(u64max) == 18446744073709551615.0)
        // Out-of-range reals: saturate the right way (Linux Foundation gives Int.min for 1e20).
        #expect(Coercion.integer(.real(1e20)) == Int.max)
        #expect(Coercion.integer(.real(-1e20)) == Int.min)
        #expect(Coercion.integer(.real(PlistReal(Double.nan))) == 0)
        #expect(Coercion.stringInteger("-9223372036854775808") == Int.min)
        #expect(Coercion.stringInteger("-99999999999999999999") == Int.min)
    }

    @Test func nonScalarsGiveZeroValues() {
        let data = PlistValue.data(Data([1, 2]))
        #expect(Coercion.integer(data) == 0)
        #expect(Coercion.bool(data) == false)
        #expect(Coercion.string(data) == nil)
        #expect(Coercion.integer(nil) == 0)
        #expect(Coercion.string(.array(["a"])) == nil)
    }
}

import Testing
@testable import PlistKit

@Suite struct PlistValueTests {
    @Test func integersCoverTheWholeRange() {
        #expect(PlistInteger(UInt64.max).description == "18446744073709551615")
        #expect(PlistInteger(Int64.min).description == "-9223372036854775808")
        #expect(PlistInteger(UInt64(5)) == PlistInteger(Int64(5)))
        #expect(PlistInteger(negative: true, magnitude: 1 << 63)?.int64Value == Int64.min)
        #expect(PlistInteger(negative: true, magnitude: (1 << 63) + 1) == nil)
        #expect(PlistInteger(Int64(-1)) < PlistInteger(UInt64.max))
    }

    @Test func realsKeepTheirBits() {
        #expect(PlistValue.real(PlistReal(-0.0)) != .real(PlistReal(0.0)))
        #expect(PlistValue.real(PlistReal(Double.nan)) == .real(PlistReal(Double.nan)))
        #expect(PlistReal(-0.0).value.sign == .minus)
    }

    @Test func stringsCompareByScalars() {
        #expect(PlistValue.string("\u{E9}") != .string("e\u{301}"))
    }

    @Test func keyPathSyntax() {
        #expect(KeyPath("a.b.0").components == ["a", "b", "0"])
        #expect(KeyPath("a\\.b.c").components == ["a.b", "c"])
        #expect(KeyPath("").components == [])
        #expect(KeyPath(components: ["x.y", "z"]).description == "x\\.y.z")
        let v: PlistValue = ["a": ["b": [10, 20]], "a.b": "dotted"]
        #expect(v[path: "a.b.1"] == 20)
        #expect(v[path: "a\\.b"] == "dotted")
        #expect(v[path: "a.b.2"] == nil)
    }

    @Test func dateCalendarArithmetic() {
        // 2024-02-30T25:61:61Z normalises to 2024-03-02T02:02:01Z (as CF's calendar arithmetic normalises out-of-range fields).
        let d = PlistDateText.date(year: 2024, month: 2, day: 30, hour: 25, minute: 61, second: 61)
        #expect(PlistDateText.xmlString(d) == "2024-03-02T02:02:01Z")
        #expect(PlistDateText.xmlString(PlistDate(secondsSinceReferenceDate: 0)) == "2001-01-01T00:00:00Z")
        #expect(PlistDateText.xmlString(PlistDate(secondsSinceReferenceDate: -0.5)) == "2000-12-31T23:59:59Z")
    }
}

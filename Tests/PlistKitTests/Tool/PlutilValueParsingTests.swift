import Foundation
import Testing
@testable import PlistKit

/// The `-type value` arguments of `plutil -insert`. Oracle: Apple's `plutil` inserting the same argument into an
/// empty dictionary; where it silently stores garbage (`-integer 12abc` → 12, overflow saturating, `-float abc` → 0)
/// PlistKit refuses the argument instead, and those cases check the refusal.
@Suite struct ValueParsingTests {
    /// What Apple's tool stores for `-insert k -<type> text`, or nil when it fails.
    static func apple(_ type: String, _ text: String) throws -> PlistValue? {
        let dir = try ApplePlutil.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try ApplePlutil.writeTemporary(.dictionary(PlistDictionary()), in: dir)
        let r = try ApplePlutil.run(["-insert", "k", "-" + type, text, "-o", "-", file])
        guard r.status == 0 else { return nil }
        return try ApplePlutil.parse(r.out)["k"]
    }


    @Test(.enabled(if: ApplePlutil.path != nil, ApplePlutil.missingReason),
          arguments: ["YES", "yes", "TRUE", "true", "True", "1", "no", "NO", "false", "foo", ""])
    func boolMatchesApple(_ text: String) throws {
        #expect(try .bool(PlutilValueParser.parseBool(text)) == Self.apple("bool", text))
    }

    @Test(.enabled(if: ApplePlutil.path != nil, ApplePlutil.missingReason),
          arguments: ["12", "-12", "+5", " 12", "12 ", "0", "-0", "9223372036854775807", "-9223372036854775808", "007"])
    func wellFormedIntegersMatchApple(_ text: String) throws {
        #expect(try .integer(PlutilValueParser.parseInteger(text)) == Self.apple("integer", text))
    }

    @Test(arguments: ["12abc", "abc", "", "1.5", "1e3", "0x10", "- 1", "--1", "99999999999999999999", "18446744073709551616",
                      "-9223372036854775809"])
    func malformedOrOutOfRangeIntegersAreRefused(_ text: String) {
        #expect(throws: PlistError.self) { try PlutilValueParser.parseInteger(text) }
    }

    @Test func integersUpToTwoToTheSixtyFourMinusOne() throws {
        // Apple's tool saturates at Int64.max; the plist integer range goes to 2^64-1.
        #expect(try PlutilValueParser.parseInteger("18446744073709551615") == PlistInteger(UInt64.max))
    }

    @Test(.enabled(if: ApplePlutil.path != nil, ApplePlutil.missingReason),
          arguments: ["1.5", ".5", "1e5", "100", "0.1", " 2.5", "-3.25", "1e400", "-1e400", "5e-324", "1.7976931348623157e308"])
    func wellFormedFloatsMatchApple(_ text: String) throws {
        #expect(try .real(PlutilValueParser.parseReal(text)) == Self.apple("float", text))
    }

    @Test(arguments: ["abc", "", "2.5x", "1,5", "1e", "--1"])
    func malformedFloatsAreRefused(_ text: String) {
        #expect(throws: PlistError.self) { try PlutilValueParser.parseReal(text) }
    }

    @Test func nonFiniteFloats() throws {
        // Apple's tool stores 0 for these; strtod (its documented model) reads them.
        #expect(try PlutilValueParser.parseReal("inf").value == .infinity)
        #expect(try PlutilValueParser.parseReal("-infinity").value == -.infinity)
        #expect(try PlutilValueParser.parseReal("nan").value.isNaN)
    }

    @Test(.enabled(if: ApplePlutil.path != nil, ApplePlutil.missingReason),
          arguments: ["AQID", "AQ ID", "AQI", "AQI=", "A", "!!!!", "", "AQ==", "AQ=", "A*Q*I*D", "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGw=="])
    func dataMatchesApple(_ text: String) throws {
        let apple = try Self.apple("data", text)
        if let apple {
            #expect(try .data(PlutilValueParser.parseData(text)) == apple)
        } else {
            #expect(throws: PlistError.self) { try PlutilValueParser.parseData(text) }
        }
    }

    @Test(.enabled(if: ApplePlutil.path != nil, ApplePlutil.missingReason),
          arguments: ["2024-01-01T00:00:00Z", "2024-02-30T25:61:61Z", "1999-12-31T23:59:59Z", "0001-01-01T00:00:00Z"])
    func datesMatchApple(_ text: String) throws {
        #expect(try .date(PlutilValueParser.parseDate(text)) == Self.apple("date", text))
    }

    @Test(arguments: ["2024-01-01", "2024-01-01T00:00:00", "yesterday", "", "2024-01-01T00:00:00Z</date><date>"])
    func malformedDatesAreRefusedNotACrash(_ text: String) {
        // Apple's tool crashes (SIGILL) on each of these.
        #expect(throws: PlistError.self) { try PlutilValueParser.parseDate(text) }
    }

    @Test(.enabled(if: ApplePlutil.path != nil, ApplePlutil.missingReason),
          arguments: ["<array><integer>1</integer></array>", "<plist><dict><key>a</key><true/></dict></plist>",
                      "<?xml version=\"1.0\"?><plist version=\"1.0\"><string>x</string></plist>"])
    func xmlFragmentsMatchApple(_ text: String) throws {
        #expect(try PlutilValueParser.parsePropertyList(text) == Self.apple("xml", text))
    }

    @Test(.enabled(if: ApplePlutil.path != nil, ApplePlutil.missingReason),
          arguments: [#"{"a":[1,2.5,true,"s"]}"#, #""str""#, "1", "[]", #"{"n":{"m":[false]}}"#])
    func jsonMatchesApple(_ text: String) throws {
        #expect(try PlutilValueParser.parseJSON(text) == Self.apple("json", text))
    }

    @Test(arguments: ["{bad", "null", "[1,null]"])
    func badJSONIsRefused(_ text: String) {
        #expect(throws: PlistError.self) { try PlutilValueParser.parseJSON(text) }
    }

    @Test func emptyContainersIgnoreTheirText() throws {
        #expect(try PlutilValueParser.parse("ignored", as: .dictionary) == .dictionary(PlistDictionary()))
        #expect(try PlutilValueParser.parse("ignored", as: .array) == .array([]))
        #expect(try PlutilValueParser.parse("-x", as: .string) == "-x")
    }
}

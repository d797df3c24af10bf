import Foundation
import PlistKit
import Testing
@testable import Preferences

/// `defaults write` value flags. Dates are checked against Foundation's ISO8601DateFormatter.
@Suite struct DefaultsValueParserTests {
    @Test(arguments: [
        ("2024-01-02 03:04:05 +0000", "2024-01-02T03:04:05Z"),
        ("2024-01-02T03:04:05Z", "2024-01-02T03:04:05Z"),
        ("2024-01-02 03:04:05 +0130", "2024-01-02T01:34:05Z"),
        ("2024-01-02 03:04:05 -05:00", "2024-01-02T08:04:05Z"),
        ("2024-02-29", "2024-02-29T00:00:00Z"),
        ("1969-07-20 20:17:40 +0000", "1969-07-20T20:17:40Z"),
    ])
    func datesAgreeWithFoundation(_ input: String, _ iso: String) throws {
        let expected = try #require(ISO8601DateFormatter().date(from: iso))
        #expect(DefaultsValueParser.parseDate(input)?.date == expected)
    }

    @Test(arguments: [
        "", "yesterday", "2024-13-01", "2024-01-02 25:00:00", "2024-01-02 03:04:05 junk", "2024-01-02 23:59:60 +0000",
        "2024-01-02 03:04:05 +2400", "2024-01-02 03:04:05 +0060",
    ])
    func badDatesAreRefused(_ input: String) {
        #expect(DefaultsValueParser.parseDate(input) == nil)
    }

    /// A day the month does not have is refused, not rolled into the next month; Foundation's Gregorian calendar
    /// says which days exist (years from 1900, where it is proleptic Gregorian as our dates are).
    @Test func daysOfTheMonthAgreeWithFoundationsCalendar() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        for year in [1900, 2000, 2023, 2024, 2100] {
            for month in 1...12 {
                for day in 28...31 {
                    let text = String(format: "%04d-%02d-%02d", year, month, day)
                    let valid = DateComponents(calendar: calendar, year: year, month: month, day: day).isValidDate
                    #expect((DefaultsValueParser.parseDate(text) != nil) == valid, "\(text)")
                    #expect((DefaultsValueParser.parseDate(text + " 12:00:00 +0000") != nil) == valid, "\(text)")
                }
            }
        }
    }

    @Test func hexData() {
        #expect(DefaultsValueParser.hexData("0a0B ff") == Data([0x0a, 0x0b, 0xff]))
        #expect(DefaultsValueParser.hexData("abc") == Data([0x0a, 0xbc]))
        #expect(DefaultsValueParser.hexData("xyz") == nil)
        #expect(DefaultsValueParser.hexData("") == Data())
    }

    @Test func lenientIntegerAndSinglePrecisionFloat() throws {
        #expect(try DefaultsValueParser.scalar(["-int", "12abc"]).0 == 12)
        #expect(try DefaultsValueParser.scalar(["-integer", "99999999999999999999"]).0 == .integer(PlistInteger(Int64.max)))
        let (f, used) = try DefaultsValueParser.scalar(["-float", "3.14159265358979"])
        #expect(used == 2)
        #expect(f.realValue?.value == Double(Float(3.14159265358979)))
        #expect(f.realValue?.isFloat32 == true)
    }

    @Test func missingOperandIsUsage() {
        #expect(throws: DefaultsValueParser.Failure.usage) { try DefaultsValueParser.scalar(["-string"]) }
        #expect(throws: DefaultsValueParser.Failure.usage) { try DefaultsValueParser.scalar(["-bool", "perhaps"]) }
    }
}

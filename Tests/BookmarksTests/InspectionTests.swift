import Foundation
import Testing
@testable import Bookmarks
import TestSupport

/// `BookmarkInspection`'s date text against Foundation's Gregorian calendar (from 1600, where Foundation's
/// calendar is proleptic Gregorian too).
@Suite struct InspectionTests {
    @Test func datesMatchFoundationsCalendar() {
        var generator = SeededGenerator(seed: 0x1501)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        // 1600-01-01 … 9999-12-31, as seconds since 2001.
        let range = -12_622_780_800.0 ... 252_423_993_599.0
        for _ in 0..<2000 {
            let whole = Double.random(in: range, using: &generator).rounded(.down)
            let micros = Double(Int.random(in: 0..<1_000_000, using: &generator))
            let text = BookmarkInspection.isoDate(whole + micros / 1_000_000)
            let expected = formatter.string(from: Date(timeIntervalSinceReferenceDate: whole))
            #expect(text.hasPrefix(expected + "."), "\(whole): \(text) vs \(expected)")
            #expect(text.hasSuffix("Z") && text.count == expected.count + 8)
        }
        #expect(BookmarkInspection.isoDate(0) == "2001-01-01T00:00:00.000000Z")
        #expect(BookmarkInspection.isoDate(-0.5) == "2000-12-31T23:59:59.500000Z")
        #expect(BookmarkInspection.isoDate(.nan) == "nan")
    }
}

/// Calendar arithmetic for dates in text formats (proleptic Gregorian, UTC), without Foundation's `Calendar`.
public enum PlistDateText {
    /// Seconds between 1970-01-01 and 2001-01-01.
    static let unixToReference: Int64 = 978_307_200

    /// Broken-down UTC time.
    public struct Components: Sendable, Hashable {
        public var year: Int64
        public var month: Int
        public var day: Int
        public var hour: Int
        public var minute: Int
        public var second: Int
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date; month and day may be out of range (they carry over).
    static func daysFromCivil(_ year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        // Normalise the month into 1…12 first so that e.g. month 13 means January of the next year.
        var y = year + (month - 1).floorDiv(12)
        let m = (month - 1).floorMod(12) + 1
        y -= m <= 2 ? 1 : 0
        let era = y.floorDiv(400)
        let yoe = y - era * 400
        let mp = (m + 9) % 12
        let doy = (153 * mp + 2) / 5
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468 + (day - 1)
    }

    /// Proleptic Gregorian leap years (year 0 is a leap year).
    static func isLeap(_ year: Int64) -> Bool {
        year.floorMod(4) == 0 && (year.floorMod(100) != 0 || year.floorMod(400) == 0)
    }

    /// The days in `month` (1…12) of `year`, proleptic Gregorian.
    public static func daysIn(month: Int64, year: Int64) -> Int64 {
        cfDaysBeforeMonth(month + 1, leap: isLeap(year)) - cfDaysBeforeMonth(month, leap: isLeap(year))
    }

    /// CF's days-before-month table: months 2…13 as usual (13 = a whole year), anything else 0.
    static func cfDaysBeforeMonth(_ month: Int64, leap: Bool) -> Int64 {
        let table: [Int64] = [0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365]
        guard month >= 0, month < Int64(table.count) else { return 0 }
        return table[Int(month)] + (month > 2 && leap ? 1 : 0)
    }

    /// The civil date of a day count since 1970-01-01.
    static func civilFromDays(_ z0: Int64) -> (Int64, Int, Int) {
        let z = z0 + 719_468
        let era = z.floorDiv(146_097)
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = Int(doy - (153 * mp + 2) / 5 + 1)
        let m = Int(mp < 10 ? mp + 3 : mp - 9)
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }

    /// The UTC components of `date`, seconds rounded toward negative infinity; `nil` for NaN, ±∞ or dates too far
    /// out to have a year that fits in 64 bits.
    public static func components(_ date: PlistDate) -> Components? {
        let t = date.secondsSinceReferenceDate.rounded(.down)
        guard t.isFinite, abs(t) < 9.0e15 else { return nil }
        let total = Int64(t) + unixToReference
        let days = total.floorDiv(86_400)
        let secs = Int(total.floorMod(86_400))
        let (y, m, d) = civilFromDays(days)
        return Components(year: y, month: m, day: d, hour: secs / 3600, minute: secs / 60 % 60, second: secs % 60)
    }

    /// The date for (possibly out-of-range) fields, normalised the way Core Foundation does
    /// (`2024-02-30T25:61:61Z` is 2024-03-02T02:02:01Z).
    ///
    /// Days, hours, minutes and seconds carry over linearly. Months follow CF's `CFGregorianDateGetAbsoluteTime`,
    /// which looks the month up in a table of days before it: month 13 is January of the next year, while month 0
    /// and months 14 and above count as January of the same year (measured against Foundation on Linux).
    public static func date(year: Int64, month: Int64, day: Int64, hour: Int64, minute: Int64, second: Int64) -> PlistDate {
        let days = daysFromCivil(year, 1, 1) + cfDaysBeforeMonth(month, leap: isLeap(year)) + (day - 1)
        let seconds = Double(days) * 86_400 + Double(hour * 3600 + minute * 60 + second) - Double(unixToReference)
        return PlistDate(secondsSinceReferenceDate: seconds)
    }

    /// `YYYY-MM-DDTHH:MM:SSZ` as Core Foundation's XML writer prints it (years below 1000 zero-padded to 4 digits,
    /// negative years with a leading `-`).
    public static func xmlString(_ date: PlistDate) -> String {
        guard let c = components(date) else { return String(describing: date.secondsSinceReferenceDate) }
        var out = ""
        out.reserveCapacity(20)
        if c.year < 0 {
            out += "-" + pad(Int64(-c.year), 3)
        } else {
            out += pad(c.year, 4)
        }
        out += "-" + pad(Int64(c.month), 2) + "-" + pad(Int64(c.day), 2) + "T" + pad(Int64(c.hour), 2) + ":"
            + pad(Int64(c.minute), 2) + ":" + pad(Int64(c.second), 2) + "Z"
        return out
    }

    private static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}

extension Int64 {
    @inline(__always) func floorDiv(_ d: Int64) -> Int64 {
        let q = self / d
        return (self % d != 0 && (self < 0) != (d < 0)) ? q - 1 : q
    }
    @inline(__always) func floorMod(_ d: Int64) -> Int64 {
        let r = self % d
        return (r != 0 && (r < 0) != (d < 0)) ? r + d : r
    }
}

/// Parsing and printing of the scalar payloads of GNUstep's typed forms (`<*I…>`, `<*R…>`, `<*D…>`).
enum GNUstepScalars {
    // MARK: Reading

    /// Decimal integer with an optional sign, in −2^63 … 2^64−1.
    static func integer(_ t: UnsafeBufferPointer<UInt8>, _ format: PlistFormat, at offset: Int) throws -> PlistInteger {
        var j = 0
        var negative = false
        if t[0] == 0x2D || t[0] == 0x2B {
            negative = t[0] == 0x2D
            j = 1
        }
        guard j < t.count else { throw PlistError(.invalidValue, "<*I…> needs digits", format: format, offset: offset) }
        var magnitude: UInt64 = 0
        var overflow = false
        while j < t.count {
            let d = t[j] &- 0x30
            guard d < 10 else { throw PlistError(.invalidValue, "<*I…> holds a non-digit", format: format, offset: offset + j) }
            let (m1, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (m2, o2) = m1.addingReportingOverflow(UInt64(d))
            overflow = overflow || o1 || o2
            magnitude = m2
            j += 1
        }
        guard !overflow, let v = PlistInteger(negative: negative, magnitude: magnitude) else {
            throw PlistError(.integerOutOfRange, "<*I…> is outside −2^63 … 2^64−1", format: format, offset: offset)
        }
        return v
    }

    /// A decimal real, or nan / inf / infinity with an optional sign (case-insensitive).
    static func real(_ t: UnsafeBufferPointer<UInt8>, _ format: PlistFormat, at offset: Int) throws -> PlistReal {
        var lower = ""
        lower.reserveCapacity(t.count)
        for c in t {
            // Only the characters of a decimal number or the special words; this keeps out hex floats.
            switch c {
            case 0x30...0x39, 0x2B, 0x2D, 0x2E: lower.unicodeScalars.append(Unicode.Scalar(c))
            case 0x41...0x5A, 0x61...0x7A: lower.unicodeScalars.append(Unicode.Scalar(c | 0x20))
            default: throw PlistError(.invalidValue, "<*R…> is not a number", format: format, offset: offset)
            }
        }
        switch lower {
        case "nan", "+nan", "-nan": return PlistReal(Double.nan)
        case "inf", "+inf", "infinity", "+infinity": return PlistReal(Double.infinity)
        case "-inf", "-infinity": return PlistReal(-Double.infinity)
        default: break
        }
        guard lower.utf8.allSatisfy({ $0 < 0x61 || $0 == 0x65 }), let v = Double(lower) else {
            throw PlistError(.invalidValue, "<*R…> is not a number", format: format, offset: offset)
        }
        return PlistReal(v)
    }

    /// `yyyy-MM-dd HH:mm:ss ±zzzz` (seconds may carry a fraction, which PlistKit writes for exactness).
    static func date(_ t: UnsafeBufferPointer<UInt8>, _ format: PlistFormat, at offset: Int) throws -> PlistDate {
        var j = 0
        func bad() -> PlistError {
            PlistError(.invalidValue, "<*D…> must look like 2024-01-31 23:59:59 +0000", format: format, offset: offset)
        }
        func number(_ width: Int) throws -> Int64 {
            guard j + width <= t.count else { throw bad() }
            var v: Int64 = 0
            for k in j..<(j + width) {
                let d = t[k] &- 0x30
                guard d < 10 else { throw bad() }
                v = v * 10 + Int64(d)
            }
            j += width
            return v
        }
        func expect(_ c: UInt8) throws {
            guard j < t.count, t[j] == c else { throw bad() }
            j += 1
        }
        var yearSign: Int64 = 1
        if j < t.count, t[j] == 0x2D { yearSign = -1; j += 1 }
        var yearDigits = 0
        while j + yearDigits < t.count, t[j + yearDigits] &- 0x30 < 10 { yearDigits += 1 }
        guard yearDigits >= 4, yearDigits <= 12 else { throw bad() }
        let year = yearSign * (try number(yearDigits))
        try expect(0x2D)
        let month = try number(2)
        try expect(0x2D)
        let day = try number(2)
        try expect(0x20)
        let hour = try number(2)
        try expect(0x3A)
        let minute = try number(2)
        try expect(0x3A)
        let second = try number(2)
        var fraction = 0.0
        if j < t.count, t[j] == 0x2E {
            let s = j
            j += 1
            while j < t.count, t[j] &- 0x30 < 10 { j += 1 }
            guard j > s + 1, let f = Double(String(decoding: UnsafeBufferPointer(rebasing: t[s..<j]), as: UTF8.self))
            else { throw bad() }
            fraction = f
        }
        try expect(0x20)
        guard j < t.count, t[j] == 0x2B || t[j] == 0x2D else { throw bad() }
        let zoneSign: Int64 = t[j] == 0x2D ? -1 : 1
        j += 1
        let zh = try number(2)
        let zm = try number(2)
        guard j == t.count, (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61,
            zh < 24, zm < 60
        else { throw bad() }
        let base = PlistDateText.date(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        let zone = Double(zoneSign * (zh * 3600 + zm * 60))
        return PlistDate(secondsSinceReferenceDate: base.secondsSinceReferenceDate - zone + fraction)
    }
}

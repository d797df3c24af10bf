#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FoundationEssentials

/// Core Foundation's rules for the text of XML scalar elements (`<integer>`, `<real>`, `<date>`, `<data>`),
/// applied to the element's decoded UTF-8 text. Failures throw a `PlistError` without a position; the reader adds it.
enum XMLScalarParsing {
    // MARK: Whitespace

    /// CF's `isWhitespace` for `<integer>`: judged one byte at a time, any byte below 0x21 or in 0x7F…0xA0, and the
    /// lead byte of U+2000…U+200B, U+202F, U+205F, U+3000 (whose continuation bytes then fall in 0x80…0xA0 too).
    @inline(__always)
    static func isCFIntegerSpace(_ b: UnsafeRawBufferPointer, _ i: Int) -> Bool {
        let c = b[i]
        if c < 0x21 || (c > 0x7E && c < 0xA1) { return true }
        if (c == 0xE2 || c == 0xE3), b.count - i >= 3 {
            let c2 = b[i + 1], c3 = b[i + 2]
            // CF's table says `byte3 >= 80` (decimal), so E2 80 50…8B qualifies; kept for compatibility.
            if c == 0xE2 && c2 == 0x80 { return (c3 >= 80 && c3 <= 0x8B) || c3 == 0xAF }
            if c == 0xE2 && c2 == 0x81 { return c3 == 0x9F }
            return c == 0xE3 && c2 == 0x80 && c3 == 0x80
        }
        return false
    }

    // MARK: Integer

    /// `S*(-|+)?S*[0-9]+` or `S*(-|+)?S*0[xX][0-9a-fA-F]+` (S = CF whitespace); leading zeros are decimal; nothing may
    /// follow the digits. The range is −2^63 … 2^64−1.
    static func integer(_ b: UnsafeRawBufferPointer) throws -> PlistInteger {
        let n = b.count
        var i = 0
        while i < n, isCFIntegerSpace(b, i) { i += 1 }
        guard i < n else { throw invalid("empty <integer>") }
        var negative = false
        if b[i] == 0x2D || b[i] == 0x2B {
            negative = b[i] == 0x2D
            i += 1
            while i < n, isCFIntegerSpace(b, i) { i += 1 }
        }
        var hex = false
        var hadZero = false
        if i < n, b[i] == 0x30 {
            if i + 1 < n, b[i + 1] | 0x20 == 0x78 {
                hex = true
                i += 2
            } else {
                hadZero = true
                i += 1
            }
        }
        while i < n, b[i] == 0x30 { hadZero = true; i += 1 }
        if i == n {
            if hadZero { return PlistInteger(Int64(0)) }
            throw invalid("incomplete <integer>")
        }
        let base: UInt64 = hex ? 16 : 10
        var value: UInt64 = 0
        while i < n {
            let c = b[i]
            let digit: UInt64
            switch c {
            case 0x30...0x39: digit = UInt64(c - 0x30)
            case 0x61...0x66 where hex: digit = UInt64(c - 0x61 + 10)
            case 0x41...0x46 where hex: digit = UInt64(c - 0x41 + 10)
            default:
                throw invalid("unexpected character \(describe(b, i)) in <integer>")
            }
            let (m, o1) = value.multipliedReportingOverflow(by: base)
            let (s, o2) = m.addingReportingOverflow(digit)
            if o1 || o2 || (negative && s > UInt64(Int64.max) + 1) {
                throw PlistError(.integerOutOfRange, "<integer> is outside −2^63 … 2^64−1", format: .xml)
            }
            value = s
            i += 1
        }
        // The range check above guarantees this succeeds.
        return PlistInteger(negative: negative, magnitude: value) ?? PlistInteger(Int64(0))
    }

    // MARK: Real

    /// CF's `<real>`: the words nan, inf, +inf, -inf, infinity, +infinity, -infinity (any case, nothing around them),
    /// else optional leading whitespace and a decimal number that must use up the whole text (`strtod` over the
    /// characters `+-.0-9Ee`, so hex, trailing spaces and other text are rejected).
    static func real(_ b: UnsafeRawBufferPointer) throws -> Double {
        if let special = specialReal(b) { return special }
        var i = 0
        while i < b.count, let w = unicodeSpaceLength(b, i) { i += w }
        let start = i
        while i < b.count {
            switch b[i] {
            case 0x2B, 0x2D, 0x2E, 0x30...0x39, 0x45, 0x65: i += 1
            default: throw invalid("misformatted <real>")
            }
        }
        let length = i - start
        guard length > 0, length < 4096 else { throw invalid("misformatted <real>") }
        if let exact = simpleDecimal(UnsafeRawBufferPointer(rebasing: b[start..<i])) { return exact }
        return try withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { buf in
            for k in 0..<length { buf[k] = CChar(bitPattern: b[start + k]) }
            buf[length] = 0
            guard let base = buf.baseAddress else { throw invalid("misformatted <real>") }
            var end: UnsafeMutablePointer<CChar>? = nil
            let value = strtod(base, &end)
            guard let end, end - base == length else { throw invalid("misformatted <real>") }
            return value
        }
    }

    /// `[-+]digits[.digits][(e|E)[-+]digits]` with at most 19 significant digits whose value is an integer
    /// ≤ 2^53 times a power of ten within 10^±22: both are exact doubles, so one multiplication or division rounds
    /// correctly (Clinger's fast path) and gives strtod's result. Anything else returns nil (strtod decides).
    @inline(__always)
    private static func simpleDecimal(_ b: UnsafeRawBufferPointer) -> Double? {
        let n = b.count
        var i = 0
        var negative = false
        if b[0] == 0x2D || b[0] == 0x2B { negative = b[0] == 0x2D; i = 1 }
        var mantissa: UInt64 = 0
        var digits = 0  // significant: leading zeros do not count
        /// Accumulates a run of digits into `mantissa`; returns how many there were.
        func digitRun() -> Int {
            let start = i
            while i < n, b[i] &- 0x30 < 10 {
                if mantissa != 0 || b[i] != 0x30 { digits += 1 }
                mantissa = mantissa &* 10 &+ UInt64(b[i] &- 0x30)
                i += 1
            }
            return i - start
        }
        guard digitRun() > 0 else { return nil }
        var exponent = 0
        if i < n, b[i] == 0x2E {
            i += 1
            let fractionDigits = digitRun()
            guard fractionDigits > 0 else { return nil }
            exponent = -fractionDigits
        }
        guard digits <= 19 else { return nil }
        if i < n, b[i] | 0x20 == 0x65 {
            i += 1
            var expNegative = false
            if i < n, b[i] == 0x2D || b[i] == 0x2B { expNegative = b[i] == 0x2D; i += 1 }
            let expStart = i
            var e = 0
            while i < n, b[i] &- 0x30 < 10, i - expStart < 5 {
                e = e * 10 + Int(b[i] &- 0x30)
                i += 1
            }
            guard i > expStart else { return nil }
            exponent += expNegative ? -e : e
        }
        guard i == n, mantissa <= 1 << 53 else { return nil }
        var value = Double(mantissa)
        if mantissa != 0 {
            guard exponent >= -22, exponent <= 22 else { return nil }
            value = exponent < 0 ? value / powersOfTen[-exponent] : value * powersOfTen[exponent]
        }
        return negative ? -value : value
    }

    /// 10^0 … 10^22, every one exactly representable as a Double.
    private static let powersOfTen: [Double] = (0...22).map { k in (0..<k).reduce(1.0) { acc, _ in acc * 10 } }

    private static func specialReal(_ b: UnsafeRawBufferPointer) -> Double? {
        guard (3...9).contains(b.count) else { return nil }
        for (word, value) in specialWords where word.count == b.count {
            var match = true
            for (k, c) in word.enumerated() {
                let x = b[k]
                if (x >= 0x41 && x <= 0x5A ? x | 0x20 : x) != c { match = false; break }
            }
            if match { return value }
        }
        return nil
    }

    private static let specialWords: [([UInt8], Double)] = [
        (Array("nan".utf8), .nan), (Array("inf".utf8), .infinity), (Array("+inf".utf8), .infinity),
        (Array("-inf".utf8), -.infinity), (Array("infinity".utf8), .infinity), (Array("+infinity".utf8), .infinity),
        (Array("-infinity".utf8), -.infinity),
    ]

    /// The length of a whitespace character at `i` (ASCII white space or a Unicode space separator), else nil.
    private static func unicodeSpaceLength(_ b: UnsafeRawBufferPointer, _ i: Int) -> Int? {
        let c = b[i]
        if c == 0x20 || (c >= 0x09 && c <= 0x0D) { return 1 }
        if c == 0xC2, i + 1 < b.count, b[i + 1] == 0x85 || b[i + 1] == 0xA0 { return 2 }
        if c == 0xE1, i + 2 < b.count, b[i + 1] == 0x9A, b[i + 2] == 0x80 { return 3 }
        if c == 0xE2, i + 2 < b.count {
            let c2 = b[i + 1], c3 = b[i + 2]
            if c2 == 0x80, (0x80...0x8A).contains(c3) || c3 == 0xA8 || c3 == 0xA9 || c3 == 0xAF { return 3 }
            if c2 == 0x81, c3 == 0x9F { return 3 }
        }
        if c == 0xE3, i + 2 < b.count, b[i + 1] == 0x80, b[i + 2] == 0x80 { return 3 }
        return nil
    }

    // MARK: Date

    /// `-?[0-9]*-MM-DDTHH:MM:SSZ` exactly (two digits per field, no fraction, no zone but `Z`, nothing after);
    /// out-of-range fields carry over the way Core Foundation's Gregorian arithmetic does.
    static func date(_ b: UnsafeRawBufferPointer) throws -> PlistDate {
        let n = b.count
        var i = 0
        var negative = false
        if i < n, b[i] == 0x2D { negative = true; i += 1 }
        var year: Int64 = 0
        var yearDigits = 0
        while i < n, b[i] >= 0x30, b[i] <= 0x39 {
            yearDigits += 1
            // CF keeps the year in 32 bits; more digits than that cannot be a meaningful date.
            guard yearDigits <= 9 else { throw invalid("year out of range in <date>") }
            year = year * 10 + Int64(b[i] - 0x30)
            i += 1
        }
        func field(_ separator: UInt8) throws -> Int64 {
            guard i + 2 < n || (i + 2 == n && separator == 0),
                  b[i] >= 0x30, b[i] <= 0x39, b[i + 1] >= 0x30, b[i + 1] <= 0x39 else {
                throw invalid("could not interpret <date> (expected YYYY-MM-DDTHH:MM:SSZ)")
            }
            let v = Int64(b[i] - 0x30) * 10 + Int64(b[i + 1] - 0x30)
            i += 2
            if separator != 0 {
                guard b[i] == separator else {
                    throw invalid("could not interpret <date> (expected YYYY-MM-DDTHH:MM:SSZ)")
                }
                i += 1
            }
            return v
        }
        guard i < n, b[i] == 0x2D else { throw invalid("could not interpret <date> (expected YYYY-MM-DDTHH:MM:SSZ)") }
        i += 1
        let month = try field(0x2D)
        let day = try field(0x54)
        let hour = try field(0x3A)
        let minute = try field(0x3A)
        let second = try field(0x5A)
        guard i == n else { throw invalid("could not interpret <date> (unexpected text after Z)") }
        return PlistDateText.date(
            year: negative ? -year : year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    // MARK: Data

    /// CF's base64 reading: characters outside the alphabet are skipped, non-ASCII bytes are an error, `=` decides
    /// how many bytes the final quantum gives, and an incomplete final quantum is dropped.
    static func data(_ b: UnsafeRawBufferPointer) throws -> Data {
        var out = Data(count: b.count / 4 * 3 + 3)
        var failure: Int? = nil
        let written = base64Table.withUnsafeBufferPointer { table in
            out.withUnsafeMutableBytes { (dst: UnsafeMutableRawBufferPointer) -> Int in
                var n = 0
                var equals = 0
                var acc: UInt32 = 0
                var count = 0
                var i = 0
                let end = b.count
                while i < end {
                    // Fast path: a whole quantum of four alphabet characters (no '=', space or other byte); the
                    // general path below gives the same result one byte at a time.
                    if count & 3 == 0, i + 4 <= end {
                        let c0 = b[i], c1 = b[i + 1], c2 = b[i + 2], c3 = b[i + 3]
                        if (c0 | c1 | c2 | c3) < 0x80, c0 != 0x3D, c1 != 0x3D, c2 != 0x3D, c3 != 0x3D {
                            let v0 = table[Int(c0)], v1 = table[Int(c1)], v2 = table[Int(c2)], v3 = table[Int(c3)]
                            if (v0 | v1 | v2 | v3) >= 0 {
                                let q = UInt32(v0) << 18 | UInt32(v1) << 12 | UInt32(v2) << 6 | UInt32(v3)
                                dst[n] = UInt8(truncatingIfNeeded: q >> 16)
                                dst[n + 1] = UInt8(truncatingIfNeeded: q >> 8)
                                dst[n + 2] = UInt8(truncatingIfNeeded: q)
                                n += 3
                                acc = q
                                count += 4
                                equals = 0
                                i += 4
                                continue
                            }
                        }
                    }
                    let c = b[i]
                    i += 1
                    if c >= 0x80 { failure = i - 1; return n }
                    if c == 0x3D {
                        equals += 1
                    } else if !(c == 0x20 || (c >= 0x09 && c <= 0x0D)) {
                        equals = 0
                    }
                    let v = table[Int(c)]
                    if v < 0 { continue }
                    count += 1
                    acc = acc &<< 6 | UInt32(v)
                    if count & 3 == 0 {
                        dst[n] = UInt8(truncatingIfNeeded: acc >> 16)
                        n += 1
                        if equals < 2 { dst[n] = UInt8(truncatingIfNeeded: acc >> 8); n += 1 }
                        if equals < 1 { dst[n] = UInt8(truncatingIfNeeded: acc); n += 1 }
                    }
                }
                return n
            }
        }
        if let i = failure { throw invalid("non-ASCII character \(describe(b, i)) in <data>") }
        out.count = written
        return out
    }

    /// Sextet values; `=` counts as 0 (as in CF), everything else outside the alphabet is −1.
    private static let base64Table: [Int8] = {
        var t = [Int8](repeating: -1, count: 128)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        for (v, c) in alphabet.enumerated() { t[Int(c)] = Int8(v) }
        t[0x3D] = 0
        return t
    }()

    // MARK: Helpers

    private static func invalid(_ message: String) -> PlistError {
        PlistError(.invalidValue, message, format: .xml)
    }

    /// `'c' (0xNN)` for an ASCII byte, the hex byte otherwise.
    private static func describe(_ b: UnsafeRawBufferPointer, _ i: Int) -> String {
        let c = b[i]
        let hex = String(c, radix: 16, uppercase: true)
        let code = "0x" + (hex.count < 2 ? "0" + hex : hex)
        if c >= 0x20 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))' (\(code))" }
        return code
    }
}

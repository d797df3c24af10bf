import PlistKit

/// The typed-getter conversions of `NSUserDefaults`, which are really `NSNumber`'s and `NSString`'s
/// `boolValue` / `integerValue` / `doubleValue` as Apple's Foundation documentation describes them. Numbers outside
/// a type's range saturate.
enum Coercion {
    // MARK: bool

    static func bool(_ value: PlistValue?) -> Bool {
        switch value {
        case .bool(let b)?: return b
        case .integer(let i)?: return i != PlistInteger(Int64(0))
        case .real(let r)?: return r.value != 0 // NaN is non-zero: true, as NSNumber
        case .string(let s)?: return stringBool(s)
        default: return false
        }
    }

    /// `-[NSString boolValue]`: skip whitespace, `+`, `-` and `0`; true at the first of `1-9 y Y t T`, else false.
    static func stringBool(_ s: String) -> Bool {
        for c in s.unicodeScalars {
            if isSpace(c) || c == "+" || c == "-" || c == "0" { continue }
            switch c {
            case "1"..."9", "y", "Y", "t", "T": return true
            default: return false
            }
        }
        return false
    }

    // MARK: integer

    static func integer(_ value: PlistValue?) -> Int {
        switch value {
        case .bool(let b)?: return b ? 1 : 0
        case .integer(let i)?:
            if let v = i.int64Value { return Int(v) }
            return Int.max
        case .real(let r)?: return saturatingInt(r.value)
        case .string(let s)?: return stringInteger(s)
        default: return 0
        }
    }

    static func saturatingInt(_ d: Double) -> Int {
        if d.isNaN { return 0 }
        if d >= 9.223372036854775807e18 { return Int.max }
        if d <= -9.223372036854775808e18 { return Int.min }
        return Int(d) // truncates toward zero, as a C cast
    }

    /// `-[NSString integerValue]`: optional leading whitespace, optional sign, decimal digits; stops at the first
    /// other character; saturates at `Int.min`/`Int.max`; no digits → 0.
    static func stringInteger(_ s: String) -> Int {
        var negative = false
        var magnitude: UInt64 = 0
        var overflow = false
        var state = 0 // 0 = leading space, 1 = after sign, 2 = digits
        for c in s.utf8 {
            if state == 0 {
                if c == 0x20 || (c >= 0x09 && c <= 0x0D) { continue }
                if c == UInt8(ascii: "+") || c == UInt8(ascii: "-") {
                    negative = c == UInt8(ascii: "-")
                    state = 1
                    continue
                }
            }
            guard c >= 0x30, c <= 0x39 else { break }
            state = 2
            let (m, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(UInt64(c - 0x30))
            if o1 || o2 { overflow = true; break }
            magnitude = a
        }
        if negative {
            if overflow || magnitude > UInt64(Int64.max) + 1 { return Int.min }
            return magnitude == UInt64(Int64.max) + 1 ? Int.min : -Int(magnitude)
        }
        if overflow || magnitude > UInt64(Int.max) { return Int.max }
        return Int(magnitude)
    }

    // MARK: double

    static func double(_ value: PlistValue?) -> Double {
        switch value {
        case .bool(let b)?: return b ? 1 : 0
        case .integer(let i)?: return i.doubleValue
        case .real(let r)?: return r.value
        case .string(let s)?: return stringDouble(s)
        default: return 0
        }
    }

    /// `-[NSString doubleValue]`: leading whitespace, sign, digits, optional fraction and exponent; no hex, no
    /// `inf`/`nan`; stops at the first other character; nothing numeric → 0.
    static func stringDouble(_ s: String) -> Double {
        let bytes = Array(s.utf8)
        var i = 0
        while i < bytes.count, bytes[i] == 0x20 || (bytes[i] >= 0x09 && bytes[i] <= 0x0D) { i += 1 }
        let start = i
        if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
        var digits = 0
        while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1; digits += 1 }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { i += 1; digits += 1 }
        }
        guard digits > 0 else { return 0 }
        var end = i
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            var j = i + 1
            if j < bytes.count, bytes[j] == UInt8(ascii: "+") || bytes[j] == UInt8(ascii: "-") { j += 1 }
            let expStart = j
            while j < bytes.count, bytes[j] >= 0x30, bytes[j] <= 0x39 { j += 1 }
            if j > expStart { end = j }
        }
        var text = String(decoding: bytes[start..<end], as: UTF8.self)
        if text.hasPrefix("+") { text.removeFirst() }
        if text.hasSuffix(".") { text.removeLast() }
        if text.hasPrefix(".") { text = "0" + text }
        if text.hasPrefix("-.") { text = "-0" + text.dropFirst() }
        return Double(text) ?? 0
    }

    // MARK: string

    /// A string, or a number's decimal text (Booleans as `1`/`0`, as Foundation).
    static func string(_ value: PlistValue?) -> String? {
        switch value {
        case .string(let s)?: return s
        case .integer(let i)?: return i.description
        case .bool(let b)?: return b ? "1" : "0"
        case .real(let r)?: return realText(r)
        default: return nil
        }
    }

    /// `NSNumber.stringValue` of a real: a 32-bit one (`set(Float(1.1))`) as its own shortest text (`1.1`), a double
    /// through `numberText`.
    static func realText(_ r: PlistReal) -> String {
        guard r.isFloat32, r.value.isFinite else { return numberText(r.value) }
        var text = Float(r.value).description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    /// `NSNumber.stringValue` of a double: integral values without `.0`.
    static func numberText(_ d: Double) -> String {
        if d.isNaN { return "nan" }
        if d.isInfinite { return d < 0 ? "-inf" : "inf" }
        var text = d.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    static func isSpace(_ c: Unicode.Scalar) -> Bool {
        c == " " || c == "\t" || c == "\n" || c == "\r" || c == "\u{0B}" || c == "\u{0C}"
    }
}

import FoundationEssentials

/// The value types of `plutil -insert`/`-replace` (`-bool`, `-integer`, …).
public enum PlutilValueType: String, Sendable, CaseIterable {
    case bool, integer, float, date, string, data, xml, json, dictionary, array

    /// Whether the type takes a value argument (`-dictionary` and `-array` do not).
    public var takesValue: Bool { self != .dictionary && self != .array }
}

/// The types `plutil -extract … -expect` and `-type … -expect` accept; the names are `PlistValue.typeName`s.
public enum PlutilExpectType: String, Sendable, CaseIterable {
    case bool, integer, float, string, date, data, dictionary, array

    /// Whether `value` is of this type.
    public func matches(_ value: PlistValue) -> Bool { value.typeName == rawValue }
}

/// Parsing of the value arguments of `plutil -insert`/`-replace`.
///
/// Stricter than Apple's Linux tool, which silently stores `12` for `-integer 12abc`, saturates out-of-range
/// integers, stores `0` for an unparsable real and crashes on a malformed date: here each of those is an
/// `.invalidValue` error naming the argument.
public enum PlutilValueParser {
    /// Parses `text` as a value of `type`. `text` is ignored for `.dictionary` and `.array` (empty containers).
    public static func parse(_ text: String, as type: PlutilValueType) throws -> PlistValue {
        switch type {
        case .bool: return .bool(parseBool(text))
        case .integer: return .integer(try parseInteger(text))
        case .float: return .real(try parseReal(text))
        case .date: return .date(try parseDate(text))
        case .string: return .string(text)
        case .data: return .data(try parseData(text))
        case .xml: return try parsePropertyList(text)
        case .json: return try parseJSON(text)
        case .dictionary: return .dictionary(PlistDictionary())
        case .array: return .array([])
        }
    }

    /// `-bool`: true for `YES` or `true` in any case, false for anything else (Apple's documented rule).
    public static func parseBool(_ text: String) -> Bool {
        let lower = text.lowercased()
        return lower == "yes" || lower == "true"
    }

    /// `-integer`: optional sign and decimal digits, surrounding spaces allowed, anywhere in −2^63 … 2^64−1.
    public static func parseInteger(_ text: String) throws -> PlistInteger {
        var bytes = Array(trimmed(text).utf8)[...]
        var negative = false
        if let sign = bytes.first, sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
            negative = sign == UInt8(ascii: "-")
            bytes = bytes.dropFirst()
        }
        guard !bytes.isEmpty, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            throw PlistError(.invalidValue, "Invalid integer value '\(text)'")
        }
        var magnitude: UInt64 = 0
        for digit in bytes {
            let (m1, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (m2, o2) = m1.addingReportingOverflow(UInt64(digit - 0x30))
            guard !o1, !o2 else {
                throw PlistError(.integerOutOfRange, "Integer value '\(text)' is outside -2^63 … 2^64-1")
            }
            magnitude = m2
        }
        guard let value = PlistInteger(negative: negative, magnitude: magnitude) else {
            throw PlistError(.integerOutOfRange, "Integer value '\(text)' is outside -2^63 … 2^64-1")
        }
        return value
    }

    /// `-float`: a decimal or hexadecimal floating-point number, `inf`/`infinity` or `nan` (any case, optional sign),
    /// surrounding spaces allowed. Magnitudes beyond `Double` become ±infinity, as `strtod` gives.
    public static func parseReal(_ text: String) throws -> PlistReal {
        guard let value = Double(trimmed(text)) else {
            throw PlistError(.invalidValue, "Invalid float value '\(text)'")
        }
        return PlistReal(value)
    }

    /// `-date`: a date as the XML format spells it (`2024-02-01T20:43:14Z`), read by the XML reader so exactly the
    /// same forms and normalisations apply.
    public static func parseDate(_ text: String) throws -> PlistDate {
        let document = "<plist version=\"1.0\"><date>" + xmlEscaped(text) + "</date></plist>"
        let value: PlistValue
        do {
            value = try PropertyList.read(Array(document.utf8), as: .xml)
        } catch let error as PlistError where error.kind == .unsupportedFormat {
            throw error
        } catch {
            throw PlistError(.invalidValue, "Invalid date value '\(text)' (expected e.g. 2024-02-01T20:43:14Z)")
        }
        guard case .date(let date) = value else {
            throw PlistError(.invalidValue, "Invalid date value '\(text)' (expected e.g. 2024-02-01T20:43:14Z)")
        }
        return date
    }

    /// `-data`: base64, ignoring characters outside the base64 alphabet (as Apple's tool does).
    public static func parseData(_ text: String) throws -> Data {
        guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
            throw PlistError(.invalidValue, "Invalid base64 data in argument")
        }
        return data
    }

    /// `-xml`: a complete property list in any format PlistKit reads (XML, also a bare fragment such as
    /// `<array>…</array>` without the `<plist>` wrapper; binary; OpenStep; JSON).
    public static func parsePropertyList(_ text: String) throws -> PlistValue {
        let bytes = Array(text.utf8)
        do {
            return try PropertyList.read(bytes).value
        } catch let first as PlistError {
            // A bare XML element: wrap it, as Core Foundation's reader accepts a root without <plist>.
            guard PlistFormat.detect(bytes: bytes) == .xml, !text.contains("<plist") else { throw first }
            do {
                return try PropertyList.read(Array(("<plist>" + text + "</plist>").utf8)).value
            } catch {
                throw first
            }
        }
    }

    /// `-json`: a JSON text; any value may be the root (a "fragment").
    public static func parseJSON(_ text: String) throws -> PlistValue {
        try PropertyList.read(Array(text.utf8), as: .json)
    }

    private static func trimmed(_ text: String) -> Substring {
        var s = Substring(text)
        while let c = s.first, c == " " || c == "\t" || c == "\n" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" || c == "\n" { s = s.dropLast() }
        return s
    }

    private static func xmlEscaped(_ text: String) -> String {
        var out = ""
        for c in text.unicodeScalars {
            switch c {
            case "<": out += "&lt;"
            case "&": out += "&amp;"
            case ">": out += "&gt;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}

extension PlistFormat {
    /// Detects the format of a byte array (see `detect(_:)`).
    static func detect(bytes: [UInt8]) -> PlistFormat {
        bytes.withUnsafeBytes { detect($0) }
    }
}

extension PropertyList {
    /// Reads a byte array that must be in `format`.
    static func read(_ bytes: [UInt8], as format: PlistFormat) throws -> PlistValue {
        try bytes.withUnsafeBytes { try read($0, as: format) }
    }
}

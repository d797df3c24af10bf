import FoundationEssentials

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Text renderings of values as `plutil` prints them: `-p` (human-readable) and `-extract … raw`.
public enum PlistDescription {
    /// `plutil -p`: the value as Apple's tool prints it, ending in a newline.
    ///
    /// Dictionaries print as `{`, one `"key" => value` line per entry (keys in `PlutilKeyOrder`), `}`; arrays as `[`,
    /// `index => value` lines, `]`; nested levels indent by two spaces. Strings are quoted without escaping, reals use
    /// the shortest round-trip spelling (`3.25`, `1e+100`, `100.0`), dates print as `2024-02-01 20:43:14 +0000`, data
    /// as `{length = 6, bytes = 0x010203040506}` (past 24 bytes: the first 16 and last 8, in groups of four), UIDs as
    /// `<CFKeyedArchiverUID>{value = 5}`.
    public static func humanReadable(_ value: PlistValue) -> String {
        var out = ""
        appendHumanReadable(value, indent: 2, to: &out)
        return out
    }

    private static func appendHumanReadable(_ value: PlistValue, indent: Int, to out: inout String) {
        switch value {
        case .dictionary(let d):
            out += "{\n"
            for key in PlutilKeyOrder.sorted(d.keys) {
                out += String(repeating: " ", count: indent)
                out += "\"" + key + "\" => "
                appendHumanReadable(d[key] ?? .bool(false), indent: indent + 2, to: &out)
            }
            out += String(repeating: " ", count: indent - 2) + "}\n"
        case .array(let a):
            out += "[\n"
            for (i, element) in a.enumerated() {
                out += String(repeating: " ", count: indent) + String(i) + " => "
                appendHumanReadable(element, indent: indent + 2, to: &out)
            }
            out += String(repeating: " ", count: indent - 2) + "]\n"
        default: out += scalarLine(value)
        }
    }

    /// A scalar's line in `humanReadable` (a container gives an empty string).
    static func scalarLine(_ value: PlistValue) -> String {
        switch value {
        case .string(let s): return "\"" + s + "\"\n"
        case .integer(let i): return i.description + "\n"
        case .real(let r): return realDescription(r) + "\n"
        case .bool(let b): return (b ? "true" : "false") + "\n"
        case .date(let d): return dateDescription(d) + "\n"
        case .data(let d): return dataDescription(d) + "\n"
        case .uid(let u): return "<CFKeyedArchiverUID>{value = \(u.value)}\n"
        case .array, .dictionary: return ""
        }
    }

    /// A real as `NSNumber.description` prints it: the shortest spelling that reads back to the same value
    /// (`Float` precision for 32-bit reals).
    public static func realDescription(_ real: PlistReal) -> String {
        if real.isFloat32 { return Float(real.value).description }
        return real.value.description
    }

    /// A date as `Date.description` prints it: `2024-02-01 20:43:14 +0000` (UTC, seconds rounded down; years outside
    /// 0…9999 keep all their digits and a leading `-` when negative).
    public static func dateDescription(_ date: PlistDate) -> String {
        guard let c = PlistDateText.components(date) else { return String(date.secondsSinceReferenceDate) }
        let year = c.year < 0 ? "-" + pad(-c.year, 4) : pad(c.year, 4)
        return year + "-" + pad(Int64(c.month), 2) + "-" + pad(Int64(c.day), 2) + " " + pad(Int64(c.hour), 2) + ":"
            + pad(Int64(c.minute), 2) + ":" + pad(Int64(c.second), 2) + " +0000"
    }

    /// Data as `NSData.description` prints it on Darwin: `{length = 3, bytes = 0x010203}`; past 24 bytes only the
    /// first 16 and the last 8 bytes, in groups of four: `{length = 28, bytes = 0x00010203 … 0c0d0e0f ... 14151617
    /// 18191a1b }`.
    public static func dataDescription(_ data: Data) -> String {
        let bytes = [UInt8](data)
        var out = "{length = \(bytes.count), bytes = 0x"
        if bytes.count <= 24 {
            for b in bytes { appendHex(b, to: &out) }
            out += "}"
        } else {
            for group in stride(from: 0, to: 16, by: 4) {
                for b in bytes[group..<group + 4] { appendHex(b, to: &out) }
                out += " "
            }
            out += "... "
            for group in stride(from: bytes.count - 8, to: bytes.count, by: 4) {
                for b in bytes[group..<group + 4] { appendHex(b, to: &out) }
                out += " "
            }
            out += "}"
        }
        return out
    }

    /// `plutil -extract keypath raw`: the value as plain text, without a trailing newline.
    ///
    /// Booleans `true`/`false`; integers in decimal; reals with `%f` (six decimals, as Apple's tool); strings as they
    /// are; dates as RFC 3339 in UTC (`2024-02-01T20:43:14Z`); data as base64; a dictionary as its keys one per line
    /// (in `PlutilKeyOrder`); an array as its element count; a UID as its integer value.
    public static func raw(_ value: PlistValue) -> String {
        switch value {
        case .bool(let b): return b ? "true" : "false"
        case .integer(let i): return i.description
        case .real(let r): return percentF(r.value)
        case .string(let s): return s
        case .date(let d): return PlistDateText.xmlString(d)
        case .data(let d): return d.base64EncodedString()
        case .dictionary(let d): return PlutilKeyOrder.sorted(d.keys).joined(separator: "\n")
        case .array(let a): return String(a.count)
        case .uid(let u): return String(u.value)
        }
    }

    /// `printf("%f", value)`: fixed notation with six decimals (`nan`, `inf`, `-inf` for non-finite values).
    public static func percentF(_ value: Double) -> String {
        // Foundation's `%f` prints every NaN as `nan`; glibc prints one with its sign bit set (x86's 0/0) as `-nan`.
        if value.isNaN { return "nan" }
        // The longest %f output of a Double is 309 integer digits, a sign, a point and six decimals.
        var buffer = [CChar](repeating: 0, count: 400)
        let written = buffer.withUnsafeMutableBufferPointer { buf in
            withVaList([value]) { vsnprintf(buf.baseAddress, buf.count, "%f", $0) }
        }
        guard written > 0 else { return value.description }
        return String(decoding: buffer.prefix(Int(written)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func appendHex(_ b: UInt8, to out: inout String) {
        let digits: [Character] = ["0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "a", "b", "c", "d", "e", "f"]
        out.append(digits[Int(b >> 4)])
        out.append(digits[Int(b & 0xF)])
    }

    private static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}

import FoundationEssentials
import PlistKit

/// The old-style text Apple's `defaults read` prints (Foundation's `description` of property-list objects):
/// 4-space indentation, `key = value;`, `( a, b )`, strings quoted unless they are ASCII letters and digits,
/// Booleans as `1`/`0`, dates as `2024-01-01 00:00:00 +0000` (quoted inside a container), data as
/// `{length = 3, bytes = 0x010203}` or, past 24 bytes, `{length = 63, bytes = 0x7b226970 … 7373227d }`.
///
/// A private formatter: PlistKit's OpenStep writer produces parseable OpenStep, which differs from `description` in
/// these details (dates, data, Booleans, the nested-container indentation quirk).
public enum DescriptionFormatter {
    /// The description of a top-level value. A top-level string is printed raw (as `defaults read domain key` does).
    public static func describeTopLevel(_ value: PlistValue) -> String {
        if case .string(let s) = value { return s }
        var out = ""
        append(value, level: 0, nested: false, to: &out)
        return out
    }

    /// The description of a value, strings quoted when needed.
    public static func describe(_ value: PlistValue) -> String {
        var out = ""
        append(value, level: 0, nested: false, to: &out)
        return out
    }

    static func indent(_ level: Int) -> String { String(repeating: "    ", count: level) }

    static func append(_ value: PlistValue, level: Int, nested: Bool, to out: inout String) {
        switch value {
        case .string(let s): out += quoted(s)
        case .integer(let i): out += i.description
        // A 32-bit real prints at float precision (`-float 0.1` reads back as 0.1, as on macOS).
        case .real(let r): out += Coercion.realText(r)
        case .bool(let b): out += b ? "1" : "0"
        // In a container Foundation quotes a date's text (it has spaces); `defaults read d k` prints it bare.
        case .date(let d):
            let text = PlistDescription.dateDescription(d)
            out += nested ? "\"" + text + "\"" : text
        case .data(let d): out += PlistDescription.dataDescription(d)
        case .uid(let u): out += "<CFKeyedArchiverUID>{value = \(u)}"
        case .array(let a):
            // Foundation prefixes a nested container with its own indentation (`key =     (`).
            if nested { out += indent(level) }
            if a.isEmpty { out += "(\n" + indent(level) + ")"; return }
            out += "(\n"
            for (i, element) in a.enumerated() {
                out += indent(level + 1)
                append(element, level: level + 1, nested: true, to: &out)
                out += i == a.count - 1 ? "\n" : ",\n"
            }
            out += indent(level) + ")"
        case .dictionary(let d):
            if nested { out += indent(level) }
            out += "{\n"
            for (k, v) in d.sortedByUTF16Keys() {
                out += indent(level + 1) + quoted(k) + " = "
                append(v, level: level + 1, nested: true, to: &out)
                out += ";\n"
            }
            out += indent(level) + "}"
        }
    }

    /// Quotes unless the string is non-empty ASCII letters and digits: macOS prints `"zh-Hans"`, `"app_to_run"`,
    /// `"/bin/sh"`, `"4.1.6"` quoted and `en`, `free` bare. (corelibs Foundation also leaves `_ $ . / : -` bare.)
    static func quoted(_ s: String) -> String {
        var plain = !s.isEmpty
        for b in s.utf8 {
            let ok = (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
            if !ok { plain = false; break }
        }
        if plain { return s }
        var out = "\""
        for unit in s.utf16 {
            switch unit {
            case 0x22: out += "\\\""
            case 0x5C: out += "\\\\"
            case 0x0A: out += "\\n"
            case 0x09: out += "\\t"
            case 0x0D: out += "\\r"
            case 0x20..<0x7F: out += String(UnicodeScalar(UInt8(unit)))
            default:
                let hex = String(unit, radix: 16)
                out += "\\U" + String(repeating: "0", count: 4 - hex.count) + hex
            }
        }
        return out + "\""
    }
}

import FoundationEssentials
import PlistKit

/// Turns `defaults write` value arguments (the forms of Apple's `defaults(1)`) into property-list values.
enum DefaultsValueParser {
    enum Failure: Error, Equatable {
        /// Print usage (bad flag or missing operand).
        case usage
        /// A message for stderr.
        case message(String)
    }

    static let compositeFlags: Set<String> = ["-array", "-array-add", "-dict", "-dict-add"]

    /// A `<value_rep>`: a string unless it contains one of `"()][{}><`, else a parsed property list.
    static func valueRep(_ text: String) throws(Failure) -> PlistValue {
        guard text.utf8.contains(where: { "\"()[]{}<>".utf8.contains($0) }) else { return .string(text) }
        guard let value = try? PropertyList.read(Array(text.utf8)).value else {
            throw .message("Could not parse: \(text).  Try single-quoting it.")
        }
        return value
    }

    /// A typed scalar `-flag value` (or a raw rep when `flag` is not a type flag). Returns the value and how many
    /// arguments it used.
    static func scalar(_ args: ArraySlice<String>) throws(Failure) -> (PlistValue, Int) {
        guard let first = args.first else { throw .usage }
        let operand = args.dropFirst().first
        func need() throws(Failure) -> String {
            guard let operand else { throw .usage }
            return operand
        }
        switch first.lowercased() {
        case "-string": return (.string(try need()), 2)
        case "-int", "-integer":
            let text = try need()
            return (.integer(PlistInteger(Int64(Coercion.stringInteger(text)))), 2)
        case "-float":
            let text = try need()
            return (.real(PlistReal(Float(Coercion.stringDouble(text)))), 2)
        case "-bool", "-boolean":
            switch try need().lowercased() {
            case "yes", "true": return (.bool(true), 2)
            case "no", "false": return (.bool(false), 2)
            default: throw .usage
            }
        case "-data":
            let text = try need()
            guard let data = hexData(text) else { throw .message("Could not parse: \(text) as hex data.") }
            return (.data(data), 2)
        case "-date":
            let text = try need()
            guard let date = parseDate(text) else { throw .message("Could not parse: \(text) as a date.") }
            return (.date(date), 2)
        default:
            if compositeFlags.contains(first.lowercased()) { throw .message("Cannot nest composite types") }
            return (try valueRep(first), 1)
        }
    }

    /// Hex digits (whitespace ignored, odd length allowed: a leading 0 is implied, as Apple's tool).
    static func hexData(_ text: String) -> Data? {
        var nibbles: [UInt8] = []
        for b in text.utf8 {
            switch b {
            case 0x30...0x39: nibbles.append(b - 0x30)
            case 0x41...0x46: nibbles.append(b - 0x41 + 10)
            case 0x61...0x66: nibbles.append(b - 0x61 + 10)
            case 0x20, 0x09, 0x0A: continue
            default: return nil
            }
        }
        if nibbles.count % 2 == 1 { nibbles.insert(0, at: 0) }
        var out = Data(capacity: nibbles.count / 2)
        var i = 0
        while i < nibbles.count {
            out.append(nibbles[i] << 4 | nibbles[i + 1])
            i += 2
        }
        return out
    }

    /// `YYYY-MM-DD[ T]HH:MM:SS[ ][Z|±HHMM|±HH:MM]` or `YYYY-MM-DD` (UTC midnight). Fields out of range
    /// (`2024-02-30`, `23:59:60`, an offset of `+2460`) are refused rather than rolled over into another date.
    static func parseDate(_ text: String) -> PlistDate? {
        let b = Array(text.utf8)
        var i = 0
        func number(_ count: Int) -> Int64? {
            guard i + count <= b.count else { return nil }
            var v: Int64 = 0
            for j in i..<(i + count) {
                guard b[j] >= 0x30, b[j] <= 0x39 else { return nil }
                v = v * 10 + Int64(b[j] - 0x30)
            }
            i += count
            return v
        }
        func expect(_ c: Character) -> Bool {
            guard i < b.count, b[i] == c.asciiValue else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
            (1...12).contains(month), (1...PlistDateText.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        if i == b.count { return PlistDateText.date(year: year, month: month, day: day, hour: 0, minute: 0, second: 0) }
        guard expect(" ") || expect("T"), let hour = number(2), expect(":"), let minute = number(2), expect(":"),
            let second = number(2), hour < 24, minute < 60, second < 60
        else { return nil }
        _ = expect(" ")
        var offset: Int64 = 0
        if i < b.count {
            if expect("Z") {
            } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
                let negative = b[i] == UInt8(ascii: "-")
                i += 1
                guard let hh = number(2) else { return nil }
                _ = expect(":")
                guard let mm = number(2), hh < 24, mm < 60 else { return nil }
                offset = (hh * 3600 + mm * 60) * (negative ? -1 : 1)
            } else {
                return nil
            }
        }
        guard i == b.count else { return nil }
        let utc = PlistDateText.date(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        return PlistDate(secondsSinceReferenceDate: utc.secondsSinceReferenceDate - Double(offset))
    }
}

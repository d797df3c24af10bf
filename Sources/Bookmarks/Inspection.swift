import PlistKit

/// Human and JSON renderings of bookmark data and resolutions, for the `bookmark` tool and forensics.
public enum BookmarkInspection {
    /// Every TOC and item, Apple and Linux keys, one line per key.
    public static func text(_ data: [UInt8], limits: BookLimits = BookLimits()) throws(BookmarkError) -> String {
        let c = try BookContainer.read(data, limits: limits)
        var budget = Expansion(limits)
        var out = "book: \(data.count) bytes, version 0x\(String(c.version, radix: 16)), header \(c.headerSize)"
        if c.reserved.contains(where: { $0 != 0 }) { out += ", reserved \(hex(c.reserved))" }
        out += "\n"
        for toc in c.tocs {
            out += "TOC \(toc.id): \(toc.entries.count) entries\n"
            for e in toc.entries {
                out += "  \(keyLabel(e.key)) = \(try render(e.value, &budget))\n"
            }
        }
        if let record = try? BookmarkRecord(container: c) {
            out += "path: \(record.path)\n"
            out += "format: " + (record.formatVersion.map { "linux v\($0)" } ?? "foreign (not written by this library)") + "\n"
        }
        return out
    }

    /// The same as JSON: `{"size":…, "version":…, "tocs":[{"id":…, "entries":[{"key":…, "name":…, "value":…}]}], "path":…}`.
    public static func json(_ data: [UInt8], limits: BookLimits = BookLimits()) throws(BookmarkError) -> String {
        let c = try BookContainer.read(data, limits: limits)
        var budget = Expansion(limits)
        var tocs: [String] = []
        for toc in c.tocs {
            var entries: [String] = []
            for e in toc.entries {
                let key: String
                switch e.key {
                case .numeric(let k): key = quote("0x" + String(k, radix: 16))
                case .string(let s): key = quote(s)
                }
                var fields = ["\"key\":\(key)", "\"offset\":\(e.offset)", "\"value\":\(try jsonValue(e.value, &budget))"]
                if case .numeric(let k) = e.key, let name = BookmarkKey.name(of: k) { fields.insert("\"name\":\(quote(name))", at: 1) }
                entries.append("{" + fields.joined(separator: ",") + "}")
            }
            tocs.append("{\"id\":\(toc.id),\"entries\":[\(entries.joined(separator: ","))]}")
        }
        var fields = ["\"size\":\(data.count)", "\"version\":\(c.version)", "\"headerSize\":\(c.headerSize)",
                      "\"reserved\":\(quote(hex(c.reserved)))", "\"tocs\":[\(tocs.joined(separator: ","))]"]
        if let record = try? BookmarkRecord(container: c) {
            fields.append("\"path\":\(quote(record.path))")
            fields.append("\"linuxFormat\":" + (record.formatVersion.map(String.init) ?? "null"))
        }
        return "{" + fields.joined(separator: ",") + "}"
    }

    /// A resolution as text (`path`, `stale: reason`, `confidence`) or JSON.
    public static func describe(_ r: BookmarkResolution, json: Bool) -> String {
        if json {
            return "{\"path\":\(quote(r.path)),\"stale\":\(r.isStale),\"reason\":\(r.reason.map { quote($0.rawValue) } ?? "null"),"
                + "\"confidence\":\(r.confidence.map { quote($0.rawValue) } ?? "null"),\"inTrash\":\(r.isInTrash),\"entriesSearched\":\(r.entriesSearched)}"
        }
        return r.path + "\n" + status(r)
    }

    /// The lines after the path in the text form of `describe`: `stale: …`, `confidence: …`, `in trash: yes`.
    public static func status(_ r: BookmarkResolution) -> String {
        var out = "stale: " + (r.reason?.rawValue ?? "no") + "\n"
        if let c = r.confidence { out += "confidence: \(c.rawValue)\n" }
        if r.isInTrash { out += "in trash: yes\n" }
        return out
    }

    static func keyLabel(_ key: BookKey) -> String {
        switch key {
        case .numeric(let k): return "0x" + String(k, radix: 16) + (BookmarkKey.name(of: k).map { " (\($0))" } ?? "")
        case .string(let s): return "\"\(s)\""
        }
    }

    /// Caps the items written out. The reader decodes an item shared by many references once, but writing the tree
    /// out repeats it at every reference: four arrays of 100 references each would print 10^8 items from 1.7 KB.
    struct Expansion {
        var remaining: Int
        let limit: Int
        init(_ limits: BookLimits) {
            limit = limits.maxItemVisits
            remaining = limit
        }
        mutating func visit() throws(BookmarkError) {
            remaining -= 1
            if remaining < 0 { throw .corruptData(.tooManyItems(limit: limit), offset: 0) }
        }
    }

    static func render(_ v: BookValue, _ budget: inout Expansion) throws(BookmarkError) -> String {
        try budget.visit()
        switch v {
        case .string(let s): return quote(s)
        case .data(let d): return "<\(hex(d))>"
        case .integer(let n, _): return String(n)
        case .real(let d, _): return String(d)
        case .date(let d): return isoDate(d)
        case .bool(let b): return b ? "true" : "false"
        case .array(let a):
            var parts: [String] = []
            for x in a { parts.append(try render(x, &budget)) }
            return "[" + parts.joined(separator: ", ") + "]"
        case .dictionary(let p):
            var parts: [String] = []
            for pair in p { parts.append(try render(pair.key, &budget) + ": " + render(pair.value, &budget)) }
            return "{" + parts.joined(separator: ", ") + "}"
        case .uuid(let u): return "uuid " + hex(u)
        case .url(let s): return "url " + s
        case .relativeURL(let b, let r): return try "url " + render(r, &budget) + " relative to " + render(b, &budget)
        case .null: return "null"
        case .unknown(let t, let b): return "type 0x\(String(t, radix: 16)) <\(hex(b))>"
        }
    }

    static func jsonValue(_ v: BookValue, _ budget: inout Expansion) throws(BookmarkError) -> String {
        try budget.visit()
        switch v {
        case .string(let s): return quote(s)
        case .data(let d): return "{\"data\":\(quote(hex(d)))}"
        case .integer(let n, _): return String(n)
        case .real(let d, _): return d.isFinite ? String(d) : quote(String(d))
        case .date(let d): return "{\"date\":\(quote(isoDate(d)))}"
        case .bool(let b): return b ? "true" : "false"
        case .array(let a):
            var parts: [String] = []
            for x in a { parts.append(try jsonValue(x, &budget)) }
            return "[" + parts.joined(separator: ",") + "]"
        case .dictionary(let p):
            var parts: [String] = []
            for pair in p { parts.append("[\(try jsonValue(pair.key, &budget)),\(try jsonValue(pair.value, &budget))]") }
            return "{\"dictionary\":[" + parts.joined(separator: ",") + "]}"
        case .uuid(let u): return "{\"uuid\":\(quote(hex(u)))}"
        case .url(let s): return "{\"url\":\(quote(s))}"
        case .relativeURL(let b, let r): return "{\"url\":\(try jsonValue(r, &budget)),\"base\":\(try jsonValue(b, &budget))}"
        case .null: return "null"
        case .unknown(let t, let b): return "{\"type\":\(t),\"data\":\(quote(hex(b)))}"
        }
    }

    static func hex(_ b: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(b.count * 2)
        for x in b { out.append(digits[Int(x >> 4)]); out.append(digits[Int(x & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }

    static func quote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 { out += "\\u00" + (u.value < 16 ? "0" : "") + String(u.value, radix: 16) } else { out.unicodeScalars.append(u) }
            }
        }
        return out + "\""
    }

    /// CFAbsoluteTime → ISO 8601 UTC with microseconds.
    static func isoDate(_ seconds: Double) -> String {
        guard seconds.isFinite, abs(seconds) < 1e13 else { return String(seconds) }
        let unix = seconds + 978_307_200
        let whole = unix.rounded(.down)
        let micros = Int(((unix - whole) * 1_000_000).rounded())
        // The calendar is PlistKit's (whole seconds, so its rounding down changes nothing).
        guard let c = PlistDateText.components(PlistDate(secondsSinceReferenceDate: whole - 978_307_200)) else {
            return String(seconds)
        }
        func p(_ v: Int, _ w: Int) -> String { let s = String(v); return String(repeating: "0", count: max(0, w - s.count)) + s }
        return "\(p(Int(c.year), 4))-\(p(c.month, 2))-\(p(c.day, 2))T\(p(c.hour, 2)):\(p(c.minute, 2)):\(p(c.second, 2))"
            + ".\(p(min(micros, 999_999), 6))Z"
    }
}

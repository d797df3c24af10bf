import FoundationEssentials
import PlistKit

/// Bookmark data found inside a property list or keyed archive: a shared file list's items, a preference's archived
/// URL, Finder's recent folders, login items' alias records.
public struct EmbeddedBookmark: Sendable, Equatable {
    /// What the data value is.
    public enum Kind: Sendable, Equatable {
        /// A `book` blob that the strict reader accepts.
        case bookmark
        /// A blob that starts like a bookmark (`book`) but breaks its layout: reported, not dropped.
        case invalidBookmark(BookmarkError)
        /// A legacy Alias Manager record (versions 2 and 3) whose fixed part and tags read cleanly.
        case aliasRecord
        /// Data whose size and version fields match an alias record but whose body does not read as one.
        case possibleAliasRecord
    }

    /// Where the data is: keys and indices from the document's root (in a keyed archive, through the plain decoding:
    /// `root.items.3.Bookmark`; a component after a data value continues inside the property list that data holds).
    public var keyPath: KeyPath
    public var kind: Kind
    /// The bytes as stored.
    public var bytes: [UInt8]
    /// What could be read: the bookmark's path and format, or the alias record's names and paths.
    public var fields: [(name: String, value: String)]

    public static func == (a: EmbeddedBookmark, b: EmbeddedBookmark) -> Bool {
        a.keyPath == b.keyPath && a.kind == b.kind && a.bytes == b.bytes
            && a.fields.map(\.name) == b.fields.map(\.name) && a.fields.map(\.value) == b.fields.map(\.value)
    }
}

/// Finds bookmark data anywhere in a property list or keyed archive, and picks one out by key path.
///
/// Every data value is classified (in a keyed archive also `NSMutableData` contents, since the walk goes through the
/// plain decoding): `book` blobs and alias files go to the strict `book` reader, alias records are recognised by their
/// size and version fields; data that is itself a property list or keyed archive is opened and searched in turn, to
/// `maxNesting` levels. Nothing is resolved here.
public enum EmbeddedBookmarks {
    /// Caps for one search.
    public struct Limits: Sendable, Equatable {
        /// How deep property lists inside data values are opened. Default 4.
        public var maxNesting = 4
        /// Most values visited over the whole search. Default 4 Mi.
        public var maxVisits = 4 << 20
        /// Limits for each bookmark read.
        public var book = BookLimits()
        public init() {}
    }

    /// Every bookmark, invalid bookmark and alias record in `value` (a property list, or an archive's property list).
    public static func find(in value: PlistValue, limits: Limits = Limits()) -> [EmbeddedBookmark] {
        var search = Search(limits: limits)
        search.visitDocument(value, path: [], nesting: 0)
        return search.found
    }

    /// Reads property-list bytes (any format, a keyed archive too) and finds the bookmarks in them.
    public static func find(inPropertyList bytes: [UInt8], limits: Limits = Limits()) throws -> [EmbeddedBookmark] {
        find(in: try PropertyList.read(bytes).value, limits: limits)
    }

    /// The bookmarks in a file that is a property list (a keyed archive among them), or nil when the file is for the
    /// bookmark reader instead: how `bookmark inspect` tells an `.sfl2` or a preferences file from bookmark data.
    ///
    /// Nil when the bytes start with `book` (bookmark data, an alias file, or a damaged one of either), and when they
    /// are old-style text (no binary, XML or JSON signature) that does not read as a property list or whose root is a
    /// string, number, Boolean or date (so a stray text file still gets the bookmark reader's verdict).
    /// - Throws: `PlistError` when the bytes have a binary, XML or JSON signature but do not read: a damaged
    ///   property list, which the bookmark reader's "bad magic" would misdescribe.
    public static func find(inFile bytes: [UInt8], limits: Limits = Limits()) throws -> [EmbeddedBookmark]? {
        if startsWith(bytes, "book") { return nil }
        let signed = bytes.withUnsafeBytes { PlistFormat.detection(of: $0).format != nil }
        let value: PlistValue
        do {
            value = try PropertyList.read(bytes).value
        } catch {
            if signed { throw error }
            return nil
        }
        switch value {
        case .dictionary, .array, .data: return find(in: value, limits: limits)
        default: return signed ? find(in: value, limits: limits) : nil
        }
    }

    /// The bytes of the data value at `keyPath` (as `find` reports it), for `bookmark resolve --key-path`.
    /// - Throws: `PlistError` of kind `.keyPath` when nothing is there or it is not data.
    public static func data(atKeyPath keyPath: KeyPath, inPropertyList bytes: [UInt8]) throws -> [UInt8] {
        var current = try PropertyList.read(bytes).value
        var remaining = keyPath.components[...]
        while true {
            current = try document(current)
            var consumed = 0
            var at = current
            for c in remaining {
                if case .data = at { break }
                guard let next = at[path: KeyPath(components: [c])] else {
                    throw PlistError(.keyPath, "nothing at \(keyPath) (no \(c))", keyPath: keyPath)
                }
                at = next
                consumed += 1
            }
            remaining = remaining.dropFirst(consumed)
            guard case .data(let d) = at else {
                throw PlistError(.keyPath, "the value at \(keyPath) is \(at.typeNameWithArticle), not data", keyPath: keyPath)
            }
            if remaining.isEmpty { return Array(d) }
            current = try PropertyList.read(d).value
        }
    }

    /// A text listing: one block per find, the key path, the kind and the fields (for `bookmark inspect`).
    public static func listing(_ found: [EmbeddedBookmark]) -> String {
        var out = ""
        for f in found {
            let kind: String
            switch f.kind {
            case .bookmark: kind = "bookmark"
            case .invalidBookmark(let e): kind = "invalid bookmark (\(e))"
            case .aliasRecord: kind = "alias record"
            case .possibleAliasRecord: kind = "possible alias record (not decoded)"
            }
            out += "\(f.keyPath): \(kind), \(f.bytes.count) bytes\n"
            for (name, value) in f.fields { out += "  \(name): \(value)\n" }
        }
        return out
    }

    /// The same as JSON (for `bookmark inspect --json`): an array of
    /// `{"keyPath":…, "kind":"bookmark"|"invalidBookmark"|"aliasRecord"|"possibleAliasRecord", "size":…,
    /// "error":… (invalid bookmarks only), "fields":{name: value, …}}`; a field name given twice keeps its first value.
    public static func json(_ found: [EmbeddedBookmark]) -> String {
        let quote = BookmarkInspection.quote
        let items = found.map { f -> String in
            let kind: String
            var error: BookmarkError?
            switch f.kind {
            case .bookmark: kind = "bookmark"
            case .invalidBookmark(let e): kind = "invalidBookmark"; error = e
            case .aliasRecord: kind = "aliasRecord"
            case .possibleAliasRecord: kind = "possibleAliasRecord"
            }
            var members = ["\"keyPath\":\(quote(f.keyPath.description))", "\"kind\":\"\(kind)\"", "\"size\":\(f.bytes.count)"]
            if let error { members.append("\"error\":\(quote("\(error)"))") }
            var seen = Set<String>()
            var fields: [String] = []
            for (name, value) in f.fields where seen.insert(name).inserted { fields.append("\(quote(name)):\(quote(value))") }
            members.append("\"fields\":{" + fields.joined(separator: ",") + "}")
            return "{" + members.joined(separator: ",") + "}"
        }
        return "[" + items.joined(separator: ",") + "]"
    }

    /// A keyed archive as its plain decoding (so paths read as the app's data), else the value itself. An archive
    /// that cannot be decoded plainly (a cycle through its containers) is searched as the raw table.
    static func document(_ value: PlistValue) throws -> PlistValue {
        guard KeyedArchive.looksLikeArchive(value), let archive = try? KeyedArchive(propertyList: value),
              let plain = try? archive.plainValue() else { return value }
        return plain
    }

    struct Search {
        let limits: Limits
        var found: [EmbeddedBookmark] = []
        var visits = 0

        init(limits: Limits) { self.limits = limits }

        mutating func visitDocument(_ value: PlistValue, path: [String], nesting: Int) {
            let doc = (try? EmbeddedBookmarks.document(value)) ?? value
            visit(doc, path: path, nesting: nesting)
        }

        mutating func visit(_ value: PlistValue, path: [String], nesting: Int) {
            // An explicit stack: documents nest as deep as their reader allows.
            var stack: [(PlistValue, [String])] = [(value, path)]
            while let (v, p) = stack.popLast() {
                visits += 1
                if visits > limits.maxVisits { return }
                switch v {
                case .array(let a):
                    for (i, e) in a.enumerated().reversed() { stack.append((e, p + [String(i)])) }
                case .dictionary(let d):
                    for (k, e) in d.reversed() { stack.append((e, p + [k])) }
                case .data(let d):
                    classify(Array(d), path: p, nesting: nesting)
                default:
                    continue
                }
            }
        }

        mutating func classify(_ bytes: [UInt8], path: [String], nesting: Int) {
            let keyPath = KeyPath(components: path)
            if EmbeddedBookmarks.startsWith(bytes, "book") || EmbeddedBookmarks.hasBookHeader(bytes) {
                var blob = bytes
                if bytes.count >= 16, EmbeddedBookmarks.startsWith(Array(bytes[8...]), "mark"),
                   let unwrapped = try? AliasFile.unwrap(bytes, limits: limits.book) {
                    blob = unwrapped
                }
                do {
                    _ = try BookContainer.read(blob, limits: limits.book)
                    var fields: [(String, String)] = []
                    if let record = try? BookmarkRecord(container: BookContainer.read(blob, limits: limits.book)) {
                        fields.append(("path", record.path))
                        fields.append(("format", record.formatVersion.map { "linux v\($0)" } ?? "foreign"))
                    }
                    if blob.count != bytes.count { fields.append(("container", "alias file")) }
                    found.append(EmbeddedBookmark(keyPath: keyPath, kind: .bookmark, bytes: bytes, fields: fields))
                } catch {
                    found.append(EmbeddedBookmark(keyPath: keyPath, kind: .invalidBookmark(error), bytes: bytes, fields: []))
                }
                return
            }
            if let alias = AliasRecord(bytes) {
                found.append(EmbeddedBookmark(keyPath: keyPath, kind: alias.fields.isEmpty ? .possibleAliasRecord : .aliasRecord,
                                              bytes: bytes, fields: alias.fields))
                return
            }
            // A property list (an archive among them) inside the data: searched in turn, to maxNesting levels.
            guard nesting < limits.maxNesting,
                  EmbeddedBookmarks.startsWith(bytes, "bplist") || EmbeddedBookmarks.startsWith(bytes, "<?xml"),
                  let inner = try? PropertyList.read(bytes).value else { return }
            visitDocument(inner, path: path, nesting: nesting + 1)
        }
    }

    /// A `book` header with a damaged magic: the little-endian size at 4 is the length and the header size at 12 is a
    /// multiple of 4 that fits (the test the format reference gives for recognising bookmark data).
    static func hasBookHeader(_ b: [UInt8]) -> Bool {
        guard b.count >= 48 else { return false }
        func le32(_ i: Int) -> Int { Int(b[i]) | Int(b[i + 1]) << 8 | Int(b[i + 2]) << 16 | Int(b[i + 3]) << 24 }
        let header = le32(12)
        return le32(4) == b.count && header >= 16 && header % 4 == 0 && header + 4 <= b.count
    }

    static func startsWith(_ bytes: [UInt8], _ prefix: String) -> Bool {
        bytes.count >= prefix.utf8.count && zip(bytes, prefix.utf8).allSatisfy { $0 == $1 }
    }
}

/// A legacy Alias Manager record (the `alis` resource): u32 application info, u16 big-endian record size (the data's
/// length), u16 version 2 or 3, a fixed part (142 bytes in version 2, 46 in version 3), then tagged items (u16 tag,
/// u16 length, the bytes, padded to even) up to tag 0xFFFF — the layout Python's `mac_alias` reads and writes.
struct AliasRecord {
    /// Empty when the size and version fields match but the rest does not read as an alias record.
    var fields: [(String, String)] = []

    /// Nil unless the size field equals the length and the version is 2 or 3.
    init?(_ b: [UInt8]) {
        guard b.count >= 8 else { return nil }
        let size = Int(b[4]) << 8 | Int(b[5])
        let version = Int(b[6]) << 8 | Int(b[7])
        guard size == b.count, version == 2 || version == 3 else { return nil }
        func u16(_ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }
        func pascal(_ at: Int, _ room: Int) -> String? {
            let n = Int(b[at])
            guard n < room else { return nil }
            return String(decoding: b[(at + 1)..<(at + 1 + n)], as: UTF8.self)
        }
        var out: [(String, String)] = [("version", String(version))]
        let tagsStart: Int
        if version == 2 {
            guard b.count >= 150, let volume = pascal(10, 28), let file = pascal(50, 64) else { return }
            out.append(("kind", u16(8) == 1 ? "folder" : "file"))
            out.append(("volume", volume))
            out.append(("name", file))
            tagsStart = 150
        } else {
            guard b.count >= 54 else { return }
            out.append(("kind", u16(8) == 1 ? "folder" : "file"))
            tagsStart = 54
        }
        var at = tagsStart
        var ended = false
        while at + 2 <= b.count {
            let tag = u16(at)
            if tag == 0xFFFF { ended = true; break }
            guard at + 4 <= b.count else { return }
            let length = u16(at + 2)
            let start = at + 4
            guard start + length <= b.count else { return }
            let value = Array(b[start..<(start + length)])
            switch tag {
            case 0x0E, 0x0F:
                // u16 character count, then UTF-16BE.
                if value.count >= 2 {
                    let units = stride(from: 2, to: value.count - 1, by: 2).map { UInt16(value[$0]) << 8 | UInt16(value[$0 + 1]) }
                    out.append((tag == 0x0E ? "unicode name" : "unicode volume", String(decoding: units, as: UTF16.self)))
                }
            case 0x12: out.append(("path", String(decoding: value, as: UTF8.self)))
            case 0x13: out.append(("mount point", String(decoding: value, as: UTF8.self)))
            default: break
            }
            at = start + length + (length & 1)
        }
        guard ended else { return }
        fields = out
    }
}

import FoundationEssentials

/// An `NSKeyedArchiver` archive, validated: the `$objects` table with every object's class and fields, the `$top`
/// references into it, and nothing that points outside it.
///
/// An archive is an ordinary property list with four keys (`$archiver`, `$version`, `$top`, `$objects`); objects refer
/// to each other only through UIDs, which are indices into `$objects`, and UID 0 (the string `"$null"`) is nil.
/// Validation is one pass over the flat table, so it takes bounded time whatever the graph looks like; shared objects
/// exist once and cycles are simply UIDs that lead back, so the graph itself never recurses. Reading it as plain values
/// is `plainValue(options:)`; writing it back (graph-equal) is `propertyList` / `write(format:)`.
///
/// ```swift
/// let archive = try KeyedArchive(bytes)
/// let root = try archive.plainValue()                 // Foundation's classes as ordinary values
/// archive.className(of: archive.rootUID!)             // "NSDictionary"
/// ```
public struct KeyedArchive: Sendable, Hashable {
    /// The `$archiver` value Foundation writes and requires (`NSStringFromClass(NSKeyedArchiver.self)`).
    public static let archiverName = "NSKeyedArchiver"
    /// The `$version` value Foundation writes and requires.
    public static let formatVersion: Int64 = 100_000

    /// What one `$objects` entry is.
    public enum Entry: Sendable, Hashable {
        /// The string `"$null"`: nil (Foundation decodes it as nil wherever it is).
        case null
        /// A plain value stored as itself: a string, number, Boolean, data or date (Foundation writes strings,
        /// numbers and data this way).
        case value(PlistValue)
        /// An object: a dictionary whose `$class` is a UID of a class description.
        case object(ArchivedObject)
        /// A class description (`$classname`, `$classes`, `$classhints`).
        case classDescription(ArchivedClass)
        /// Anything else (an array, or a dictionary without `$class`), which Foundation never writes and returns as is.
        case raw(PlistValue)
    }

    /// The `$top` entries: each top-level key and the UID it refers to, in the archive's order (`root` for
    /// `archivedData(withRootObject:)`).
    public let top: [(key: String, uid: UID)]
    /// The `$objects` table exactly as stored.
    public let entries: [PlistValue]
    /// Per entry: -1 null, -2 plain value, -3 class description, -4 raw, else the UID of the object's class.
    let kinds: [Int]
    /// Extra top-level keys beside the four, kept for a faithful write-back.
    let extraKeys: PlistDictionary

    /// How many entries `$objects` has.
    public var count: Int { entries.count }
    /// The UID under `$top.root`, if there is one.
    public var rootUID: UID? { topUID(forKey: "root") }

    /// The UID stored under a `$top` key.
    public func topUID(forKey key: String) -> UID? {
        top.first { exactKeyBytesEqual($0.key, key) }?.uid
    }

    /// Equal archives have equal objects and the same `$top` entries, in any order: `$top` is a dictionary, and a
    /// writer may order its keys (the binary writer sorts them) — found by the keyed-archive fuzz harness, whose
    /// write-back of a `$top` with keys out of order read as "another graph".
    public static func == (a: KeyedArchive, b: KeyedArchive) -> Bool {
        a.entries == b.entries && a.extraKeys == b.extraKeys && a.top.count == b.top.count
            && a.top.allSatisfy { t in b.top.contains { exactKeyBytesEqual($0.key, t.key) && $0.uid == t.uid } }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(entries)
        // In key order, so that equal archives hash alike whatever order their `$top` was written in.
        for t in top.sorted(by: { PlistKeyOrder.scalarLess($0.key, $1.key) }) { hasher.combine(ExactKey(t.key)); hasher.combine(t.uid) }
    }

    // MARK: Reading

    /// Reads and validates an archive from property-list bytes in any format.
    /// - Throws: `PlistError`, naming the UID and key path of the first problem.
    public init(_ bytes: UnsafeRawBufferPointer, options: KeyedArchiveOptions = KeyedArchiveOptions()) throws {
        let (value, format) = try PropertyList.read(bytes, options: options.plist)
        do {
            try self.init(propertyList: value, options: options)
        } catch var e as PlistError {
            if e.format == nil { e.format = format }
            throw e
        }
    }

    /// Reads and validates an archive from `Data`.
    public init(_ data: Data, options: KeyedArchiveOptions = KeyedArchiveOptions()) throws {
        self = try data.withUnsafeBytes { try KeyedArchive($0, options: options) }
    }

    /// Reads and validates an archive from a byte array.
    public init(_ bytes: [UInt8], options: KeyedArchiveOptions = KeyedArchiveOptions()) throws {
        self = try bytes.withUnsafeBytes { try KeyedArchive($0, options: options) }
    }

    /// Whether `value` has the shape of an archive (a dictionary whose `$archiver` is a string and which has
    /// `$objects`), without validating it: how tools decide to treat a property list as an archive.
    public static func looksLikeArchive(_ value: PlistValue) -> Bool {
        guard case .dictionary(let d) = value, case .string? = d["$archiver"], d["$objects"] != nil else { return false }
        return true
    }

    /// Validates an archive already read as a property list.
    /// - Throws: `PlistError`: `.unsupportedFormat` for something that is no archive or another archiver's,
    ///   `.unsupportedVersion`, `.invalidReference` for a UID past the table or a `$class` that is not a class,
    ///   `.invalidValue` for a malformed entry, `.countLimit` past `maxObjectCount` or `maxFieldCount`.
    public init(propertyList: PlistValue, options: KeyedArchiveOptions = KeyedArchiveOptions()) throws {
        guard case .dictionary(let root) = propertyList else {
            throw PlistError(.unsupportedFormat, "not a keyed archive: the root is \(propertyList.typeNameWithArticle), not a dictionary")
        }
        guard let archiver = root["$archiver"] else {
            throw PlistError(.unsupportedFormat, "not a keyed archive: there is no $archiver key")
        }
        guard case .string(let name) = archiver, exactKeyBytesEqual(name, Self.archiverName) else {
            let shown: String
            if case .string(let s) = archiver { shown = "\"\(s)\"" } else { shown = archiver.typeNameWithArticle }
            throw PlistError(.unsupportedFormat, "$archiver is \(shown), not \"\(Self.archiverName)\"", keyPath: .at("$archiver"))
        }
        switch root["$version"] {
        case .integer(let v)? where v == PlistInteger(Self.formatVersion): break
        // Foundation reads the version through NSNumber.int32Value, so 100000.0 passes there, and in both Python readers.
        case .real(let r)? where r.value == Double(Self.formatVersion): break
        case nil:
            throw PlistError(.unsupportedVersion, "the archive has no $version", keyPath: .at("$version"))
        case let other?:
            throw PlistError(.unsupportedVersion, "$version is \(Self.describe(other)), not \(Self.formatVersion)", keyPath: .at("$version"))
        }
        guard let objectsValue = root["$objects"] else {
            throw PlistError(.invalidValue, "the archive has no $objects", keyPath: .at("$objects"))
        }
        guard case .array(let objects) = objectsValue else {
            throw PlistError(.invalidValue, "$objects is \(objectsValue.typeNameWithArticle), not an array", keyPath: .at("$objects"))
        }
        guard !objects.isEmpty else {
            throw PlistError(.invalidValue, "$objects is empty: UID 0 must be \"$null\"", keyPath: .at("$objects"))
        }
        guard objects.count <= options.maxObjectCount else {
            throw PlistError(.countLimit, "$objects has \(objects.count) entries, more than the limit of \(options.maxObjectCount)",
                             keyPath: .at("$objects"))
        }
        guard case .string(let first) = objects[0], exactKeyBytesEqual(first, "$null") else {
            throw PlistError(.invalidValue, "UID 0 is \(Self.describe(objects[0])), not \"$null\"", keyPath: .at("$objects", "0"))
        }
        guard let topValue = root["$top"] else {
            throw PlistError(.invalidValue, "the archive has no $top", keyPath: .at("$top"))
        }
        guard case .dictionary(let topDict) = topValue else {
            throw PlistError(.invalidValue, "$top is \(topValue.typeNameWithArticle), not a dictionary", keyPath: .at("$top"))
        }
        let n = objects.count
        var top: [(key: String, uid: UID)] = []
        top.reserveCapacity(topDict.count)
        for (key, v) in topDict {
            guard case .uid(let u) = v else {
                throw PlistError(.invalidValue, "$top.\(key) is \(v.typeNameWithArticle), not a UID reference", keyPath: .at("$top", key))
            }
            guard u.value < UInt64(n) else {
                throw PlistError(.invalidReference, "$top.\(key) is UID \(u.value), past the end of $objects (\(n) entries)",
                                 keyPath: .at("$top", key))
            }
            top.append((key, u))
        }

        var kinds = [Int](repeating: -2, count: n)
        var fieldCount = 0
        for i in 0..<n {
            switch objects[i] {
            case .string(let s) where exactKeyBytesEqual(s, "$null"):
                kinds[i] = -1
            case .dictionary(let d):
                fieldCount += d.count
                if fieldCount > options.maxFieldCount {
                    throw PlistError(.countLimit, "the objects have more than \(options.maxFieldCount) fields in all",
                                     keyPath: .at("$objects", String(i)))
                }
                if let c = d["$class"] {
                    guard case .uid(let u) = c else {
                        throw PlistError(.invalidValue, "UID \(i): $class is \(c.typeNameWithArticle), not a UID reference",
                                         keyPath: .at("$objects", String(i), "$class"))
                    }
                    guard u.value < UInt64(n) else {
                        throw PlistError(.invalidReference,
                                         "UID \(i): $class is UID \(u.value), past the end of $objects (\(n) entries)",
                                         keyPath: .at("$objects", String(i), "$class"))
                    }
                    kinds[i] = Int(u.value)
                    try Self.checkReferences(in: objects[i], count: n, uid: i)
                } else if d["$classname"] != nil {
                    try Self.checkClassDescription(d, uid: i)
                    kinds[i] = -3
                    // Its other fields can hold UIDs too, and a class description referred to as a value is decoded.
                    try Self.checkReferences(in: objects[i], count: n, uid: i)
                } else {
                    kinds[i] = -4
                    try Self.checkReferences(in: objects[i], count: n, uid: i)
                }
            case .array:
                kinds[i] = -4
                try Self.checkReferences(in: objects[i], count: n, uid: i)
            case .uid:
                kinds[i] = -4
                try Self.checkReferences(in: objects[i], count: n, uid: i)
            default:
                kinds[i] = -2
            }
        }
        // Every $class must name a class description. One that names an object is either a class chain (which
        // Foundation never writes) or a loop of them: both are reported, the loop as such.
        for i in 0..<n where kinds[i] >= 0 {
            let c = kinds[i]
            guard kinds[c] != -3 else { continue }
            var message = "UID \(i): $class is UID \(c), which is \(Self.describeKind(kinds[c], objects[c])), not a class description"
            if kinds[c] >= 0 {
                var seen: Set<Int> = [i]
                var chain = [i]
                var at = c
                while kinds[at] >= 0, seen.insert(at).inserted, chain.count < 64 {
                    chain.append(at)
                    at = kinds[at]
                }
                if seen.contains(at) && kinds[at] >= 0 {
                    message = "UID \(i): the class chain loops (" + (chain + [at]).map { "UID \($0)" }.joined(separator: " → ")
                        + ") and never reaches a class description"
                }
            }
            throw PlistError(.invalidReference, message, keyPath: .at("$objects", String(i), "$class"))
        }
        var extra = PlistDictionary()
        for (k, v) in root where !["$archiver", "$version", "$top", "$objects"].contains(where: { exactKeyBytesEqual($0, k) }) {
            extra[k] = v
        }
        self.top = top
        self.entries = objects
        self.kinds = kinds
        self.extraKeys = extra
    }

    /// Checks that every UID inside `value` (an entry's fields, or a raw entry, at any inline depth) is in the table.
    private static func checkReferences(in value: PlistValue, count n: Int, uid: Int) throws {
        // An explicit stack: the inline nesting is bounded by the property-list reader, but not by this function.
        var stack: [(PlistValue, [String])] = [(value, ["$objects", String(uid)])]
        while let (v, path) = stack.popLast() {
            switch v {
            case .uid(let u):
                guard u.value < UInt64(n) else {
                    let field = path.count > 2 ? " " + KeyPath(components: Array(path.dropFirst(2))).description : ""
                    throw PlistError(.invalidReference,
                                     "UID \(uid)\(field) refers to UID \(u.value), past the end of $objects (\(n) entries)",
                                     keyPath: KeyPath(components: path))
                }
            case .array(let a):
                for (j, e) in a.enumerated() {
                    switch e {
                    case .uid(let u) where u.value < UInt64(n): continue
                    case .string, .integer, .real, .bool, .date, .data: continue
                    default: stack.append((e, path + [String(j)]))
                    }
                }
            case .dictionary(let d):
                for (k, e) in d {
                    switch e {
                    case .uid(let u) where u.value < UInt64(n): continue
                    case .string, .integer, .real, .bool, .date, .data: continue
                    default: stack.append((e, path + [k]))
                    }
                }
            default:
                continue
            }
        }
    }

    private static func checkClassDescription(_ d: PlistDictionary, uid: Int) throws {
        guard case .string = d["$classname"] else {
            throw PlistError(.invalidValue, "UID \(uid): $classname is \(Self.describe(d["$classname"] ?? .bool(false))), not a string",
                             keyPath: .at("$objects", String(uid), "$classname"))
        }
        for key in ["$classes", "$classhints"] {
            guard let v = d[key] else { continue }
            guard case .array(let names) = v, names.allSatisfy({ $0.stringValue != nil }) else {
                throw PlistError(.invalidValue, "UID \(uid): \(key) is not an array of class names",
                                 keyPath: .at("$objects", String(uid), key))
            }
        }
    }

    static func describe(_ v: PlistValue) -> String {
        switch v {
        case .string(let s): return "the string \"\(s.count > 40 ? String(s.prefix(40)) + "…" : s)\""
        case .integer(let i): return "the integer \(i)"
        case .real(let r): return "the real \(r.value)"
        case .bool(let b): return "the Boolean \(b)"
        case .uid(let u): return "UID \(u.value)"
        default: return v.typeNameWithArticle
        }
    }

    private static func describeKind(_ kind: Int, _ v: PlistValue) -> String {
        switch kind {
        case -1: return "\"$null\""
        case -2: return describe(v)
        case -4: return "a raw " + v.typeName
        default: return "an object"
        }
    }

    // MARK: The graph

    /// What the entry at `uid` is (`.null` for a UID past the table, which a validated archive never holds).
    public func entry(_ uid: UID) -> Entry {
        guard let i = index(uid) else { return .null }
        switch kinds[i] {
        case -1: return .null
        case -2: return .value(entries[i])
        case -3:
            guard case .dictionary(let d) = entries[i] else { return .raw(entries[i]) }
            return .classDescription(ArchivedClass(d))
        case -4: return .raw(entries[i])
        default: return object(uid).map(Entry.object) ?? .raw(entries[i])
        }
    }

    /// The object at `uid`, if that entry is one: its class and fields.
    public func object(_ uid: UID) -> ArchivedObject? {
        guard let i = index(uid), kinds[i] >= 0, case .dictionary(let d) = entries[i],
              case .dictionary(let c) = entries[kinds[i]] else { return nil }
        var fields = d
        fields["$class"] = nil
        return ArchivedObject(uid: uid, classUID: UID(UInt64(kinds[i])), classDescription: ArchivedClass(c), fields: fields)
    }

    /// The class name of the object at `uid` (`$classname` of its class description).
    public func className(of uid: UID) -> String? {
        guard let i = index(uid), kinds[i] >= 0, case .dictionary(let c) = entries[kinds[i]] else { return nil }
        return c["$classname"]?.stringValue
    }

    /// The class chain of the object at `uid`, most derived first: `$classes` when present, else just `$classname`
    /// (an archiver with a class-name mapping writes no `$classes`); then `$classhints`.
    public func classChain(of uid: UID) -> [String] {
        guard let o = object(uid) else { return [] }
        return o.classDescription.chain
    }

    @inline(__always) func index(_ uid: UID) -> Int? {
        uid.value < UInt64(entries.count) ? Int(uid.value) : nil
    }

    /// The kind code of entry `i` (see `kinds`).
    @inline(__always) func kind(_ i: Int) -> Int { kinds[i] }
}

/// One archived object: its UID, its class, and its fields (every key but `$class`, as stored).
public struct ArchivedObject: Sendable, Hashable {
    /// Where the object is in `$objects`.
    public var uid: UID
    /// The UID of its class description.
    public var classUID: UID
    /// Its class description.
    public var classDescription: ArchivedClass
    /// The fields as stored: inline values, UIDs, and inline arrays of UIDs. Keys are stored escaped, as Foundation
    /// writes them (a coder key that starts with `$` gets one more `$`; unkeyed values are `$0`, `$1`, …).
    public var fields: PlistDictionary

    /// The class name.
    public var className: String { classDescription.name }

    /// The field a coder stored under `key` (escaped as Foundation's `NSKeyedArchiver` escapes it).
    public func field(_ key: String) -> PlistValue? { fields[ArchivedObject.escape(key)] }

    /// `NSKeyedArchiver`'s key escaping: a key that starts with `$` is stored with one more `$` in front
    /// (swift-corelibs-foundation `NSKeyedArchiver.swift`, `escapeArchiverKey`).
    public static func escape(_ key: String) -> String { key.utf8.first == UInt8(ascii: "$") ? "$" + key : key }

    /// The coder key a stored field name stands for (`$$ivar` → `$ivar`); `nil` for the archiver's own keys (`$class`,
    /// and the unkeyed `$0`, `$1`, …, which have no coder key).
    public static func unescape(_ stored: String) -> String? {
        let u = stored.utf8
        guard u.first == UInt8(ascii: "$") else { return stored }
        guard u.dropFirst().first == UInt8(ascii: "$") else { return nil }
        return String(stored.dropFirst())
    }
}

/// A class description in `$objects`.
public struct ArchivedClass: Sendable, Hashable {
    /// `$classname`.
    public var name: String
    /// `$classes`, most derived first (usually ending in `NSObject`); nil when absent.
    public var classes: [String]?
    /// `$classhints`: fallback class names an unarchiver may use; nil when absent.
    public var hints: [String]?

    public init(name: String, classes: [String]?, hints: [String]? = nil) {
        self.name = name
        self.classes = classes
        self.hints = hints
    }

    init(_ d: PlistDictionary) {
        name = d["$classname"]?.stringValue ?? ""
        classes = d["$classes"]?.arrayValue?.compactMap(\.stringValue)
        hints = d["$classhints"]?.arrayValue?.compactMap(\.stringValue)
    }

    /// The names to try, in order: `$classname`, then `$classes` past it, then `$classhints`.
    public var chain: [String] {
        var out = [name]
        for c in classes ?? [] where !out.contains(c) { out.append(c) }
        for c in hints ?? [] where !out.contains(c) { out.append(c) }
        return out
    }
}

extension KeyedArchive {
    /// The archive as a property list again: the four keys (and any others it had) with the table as read, so
    /// reading it back gives an equal archive.
    public var propertyList: PlistValue {
        var d = PlistDictionary(minimumCapacity: 4 + extraKeys.count)
        d["$archiver"] = .string(Self.archiverName)
        d["$objects"] = .array(entries)
        var t = PlistDictionary(minimumCapacity: top.count)
        for (k, u) in top { t[k] = .uid(u) }
        d["$top"] = .dictionary(t)
        d["$version"] = .integer(PlistInteger(Self.formatVersion))
        for (k, v) in extraKeys { d[k] = v }
        return .dictionary(d)
    }

    /// The archive written in `format` (`.xml` or `.binary`: the other formats have no UID).
    public func write(format: PlistFormat) throws -> [UInt8] {
        try KeyedArchiver.serialize(propertyList, format: format)
    }
}

extension KeyPath {
    /// A path from components, for messages built in place.
    static func at(_ components: String...) -> KeyPath { KeyPath(components: components) }
}

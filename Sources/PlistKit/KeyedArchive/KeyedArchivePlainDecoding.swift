import FoundationEssentials

extension KeyedArchive {
    /// The archive as ordinary property-list values: the root object when `$top` holds only `root`, else a dictionary
    /// of every `$top` key. The rules (README, "Keyed archives"):
    ///
    /// - plain entries are themselves; nil (UID 0) and `"$null"` entries are the string `"$null"`, and so is `NSNull`;
    /// - `NSString`/`NSData`/`NSDate` objects (`NS.string`, `NS.data`, `NS.time`) are strings, data and dates;
    /// - `NSArray`, `NSSet`, `NSOrderedSet` are arrays in stored order; `NSCountedSet` an array holding each object
    ///   as many times as its count; `NSDictionary` a dictionary (the last of duplicate keys wins);
    /// - `NSURL` is its absolute string, `NSUUID` its uppercase `8-4-4-4-12` text;
    /// - `NSAttributedString` is `{string, runs: [{location, length, attributes}]}` (UTF-16 positions);
    /// - `NSValue` ranges, points, sizes, rects and edge insets are dictionaries of their named numbers; other
    ///   `NSValue`s `{type, value}`; `NSIndexSet` an array of `{location, length}`; `NSIndexPath` an array of integers;
    /// - any other class is a dictionary of its fields (keys as stored) plus `"$class"`: its class name; a subclass of a
    ///   class above (found through `$classes`, then `$classhints`) decodes as that class;
    /// - a shared object appears wherever it is referenced; a cycle back to an object of another class is
    ///   `{"$ref": UID}`, and a cycle through the standard containers above is a `.cycle` error.
    ///
    /// - Throws: `PlistError` naming the UID and key path: `.invalidValue` for fields a class cannot have, `.cycle`,
    ///   `.nonStringKey`, `.depthLimit` past `maxDepth`, `.countLimit` past `maxPlainNodes`.
    public func plainValue(options: KeyedArchiveOptions = KeyedArchiveOptions()) throws -> PlistValue {
        var decoder = PlainArchiveDecoder(self, options: options)
        if top.count == 1, let root = rootUID {
            return try decoder.topValue(root, key: "root")
        }
        var out = PlistDictionary(minimumCapacity: top.count)
        var total = 1
        for (key, uid) in top {
            let v = try decoder.topValue(uid, key: key)
            total += decoder.lastCount
            if total > options.maxPlainNodes { throw decoder.tooLarge(uid.value) }
            out[key] = v
        }
        return .dictionary(out)
    }

    /// The plain value of the object at `uid` (the rules of `plainValue(options:)`).
    public func plainValue(of uid: UID, options: KeyedArchiveOptions = KeyedArchiveOptions()) throws -> PlistValue {
        var decoder = PlainArchiveDecoder(self, options: options)
        return try decoder.topValue(uid, key: "$objects.\(uid.value)")
    }
}

/// The classes plain decoding knows, found by walking a class description's chain.
enum PlainClass: UInt8 {
    case string, data, date, array, orderedSet, countedSet, dictionary, url, uuid, null, attributedString, value
    case indexSet, indexPath, generic

    static func of(_ name: String) -> PlainClass? {
        switch name {
        case "NSString", "NSMutableString": return .string
        case "NSData", "NSMutableData": return .data
        case "NSDate": return .date
        case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet": return .array
        case "NSOrderedSet", "NSMutableOrderedSet": return .orderedSet
        case "NSCountedSet": return .countedSet
        case "NSDictionary", "NSMutableDictionary": return .dictionary
        case "NSURL": return .url
        case "NSUUID": return .uuid
        case "NSNull": return .null
        case "NSAttributedString", "NSMutableAttributedString": return .attributedString
        case "NSValue": return .value
        case "NSIndexSet", "NSMutableIndexSet": return .indexSet
        case "NSIndexPath": return .indexPath
        default: return nil
        }
    }
}

/// One plain decoding: each object is decoded once and its value reused wherever it is referenced (values share
/// storage), with its node count remembered for the `maxPlainNodes` budget.
struct PlainArchiveDecoder {
    let archive: KeyedArchive
    let options: KeyedArchiveOptions
    /// Whether generic objects carry `"$class"` and keep escaped keys (plain decoding), or not (the Codable bridge,
    /// which wants the coder's keys).
    var codableFields = false
    private var cache: [PlistValue?]
    private var counts: [Int]
    /// 0 not seen, 1 being decoded (on the current path), 2 done.
    private var state: [UInt8]
    /// Per class-description UID: the resolved `PlainClass` raw value + 1, 0 when not yet resolved.
    private var classKinds: [UInt8]
    private var depth = 0
    /// The node count of the last value `topValue` returned.
    private(set) var lastCount = 0

    init(_ archive: KeyedArchive, options: KeyedArchiveOptions) {
        self.archive = archive
        self.options = options
        let n = archive.count
        cache = Array(repeating: nil, count: n)
        counts = Array(repeating: 0, count: n)
        state = Array(repeating: 0, count: n)
        classKinds = Array(repeating: 0, count: n)
    }

    mutating func topValue(_ uid: UID, key: String) throws -> PlistValue {
        do {
            let (v, c) = try value(Int(uid.value))
            lastCount = c
            return v
        } catch let e as PlistError {
            throw e.inside(key)
        }
    }

    func tooLarge(_ uid: UInt64) -> PlistError {
        PlistError(.countLimit, "UID \(uid): the plain value would hold more than \(options.maxPlainNodes) values "
                   + "(a shared object counts once per place it appears; maxPlainNodes)")
    }

    @inline(__always) private func checked(_ count: Int, _ uid: Int) throws -> Int {
        if count > options.maxPlainNodes { throw tooLarge(UInt64(uid)) }
        return count
    }

    static let nullMarker = PlistValue.string("$null")

    /// The plain value of entry `i` and how many values it holds.
    mutating func value(_ i: Int) throws -> (PlistValue, Int) {
        if i == 0 { return (Self.nullMarker, 1) }
        switch state[i] {
        case 2: return (cache[i].unsafelyUnwrapped, counts[i])
        case 1: return try backEdge(i)
        default: break
        }
        let kind = archive.kind(i)
        switch kind {
        case -1: return (Self.nullMarker, 1)
        case -2: return (archive.entries[i], 1)
        default: break
        }
        depth += 1
        defer { depth -= 1 }
        if depth > options.maxDepth {
            throw PlistError(.depthLimit, "UID \(i): objects nested deeper than \(options.maxDepth) (maxDepth)")
        }
        state[i] = 1
        let result: (PlistValue, Int)
        if kind >= 0 {
            result = try object(i, classUID: kind)
        } else {
            // A class description or a raw array/dictionary, referenced as a value: its contents, UIDs resolved
            // (this level is counted above).
            let entry = archive.entries[i]
            if case .uid = entry { result = try resolve(entry, uid: i) } else { result = try resolveContainer(entry, uid: i) }
        }
        state[i] = 2
        cache[i] = result.0
        counts[i] = result.1
        return result
    }

    /// A UID that leads back to an object still being decoded.
    private mutating func backEdge(_ i: Int) throws -> (PlistValue, Int) {
        let kind = archive.kind(i)
        if kind >= 0, plainClass(kind) == .generic {
            if depth >= options.maxDepth {
                throw PlistError(.depthLimit, "UID \(i): values nested deeper than \(options.maxDepth) (maxDepth)")
            }
            return (.dictionary(["$ref": .integer(PlistInteger(Int64(i)))]), 2)
        }
        let what = kind >= 0 ? (archive.className(of: UID(UInt64(i))) ?? "?") : "raw " + archive.entries[i].typeName
        throw PlistError(.cycle, "cycle: UID \(i) (\(what)) contains itself")
    }

    private mutating func plainClass(_ classUID: Int) -> PlainClass {
        let cached = classKinds[classUID]
        if cached != 0 { return PlainClass(rawValue: cached - 1) ?? .generic }
        var found = PlainClass.generic
        if case .dictionary(let d) = archive.entries[classUID] {
            for name in ArchivedClass(d).chain {
                if let k = PlainClass.of(name) { found = k; break }
            }
        }
        classKinds[classUID] = found.rawValue + 1
        return found
    }

    /// Resolves UIDs inside an inline field value (or a raw entry).
    mutating func resolve(_ v: PlistValue, uid: Int) throws -> (PlistValue, Int) {
        switch v {
        case .uid(let u): return try value(Int(u.value))
        case .array, .dictionary:
            // Inline containers nest the plain value too: it must stay within maxDepth to be written again.
            depth += 1
            defer { depth -= 1 }
            if depth > options.maxDepth {
                throw PlistError(.depthLimit, "UID \(uid): values nested deeper than \(options.maxDepth) (maxDepth)")
            }
            return try resolveContainer(v, uid: uid)
        default:
            return (v, 1)
        }
    }

    private mutating func resolveContainer(_ v: PlistValue, uid: Int) throws -> (PlistValue, Int) {
        switch v {
        case .array(let a):
            var out: [PlistValue] = []
            out.reserveCapacity(a.count)
            var total = 1
            for (j, e) in a.enumerated() {
                do {
                    let (x, c) = try resolve(e, uid: uid)
                    total = try checked(total + c, uid)
                    out.append(x)
                } catch let err as PlistError { throw err.inside(String(j)) }
            }
            return (.array(out), total)
        case .dictionary(let d):
            var out = PlistDictionary(minimumCapacity: d.count)
            var total = 1
            for (k, e) in d {
                do {
                    let (x, c) = try resolve(e, uid: uid)
                    total = try checked(total + c, uid)
                    out[k] = x
                } catch let err as PlistError { throw err.inside(k) }
            }
            return (.dictionary(out), total)
        default:
            return (v, 1)
        }
    }

    // MARK: Objects

    private func fail(_ uid: Int, _ className: String, _ message: String, field: String? = nil) -> PlistError {
        PlistError(.invalidValue, "UID \(uid) (\(className)): \(message)", keyPath: field.map { KeyPath(components: [$0]) })
    }

    private mutating func object(_ i: Int, classUID: Int) throws -> (PlistValue, Int) {
        guard case .dictionary(let fields) = archive.entries[i] else { return (archive.entries[i], 1) }
        let kind = plainClass(classUID)
        let name: String = {
            if case .dictionary(let c) = archive.entries[classUID], case .string(let s)? = c["$classname"] { return s }
            return "?"
        }()
        switch kind {
        case .string:
            if let s = fields["NS.string"] {
                let (v, _) = try field(s, i, "NS.string")
                guard case .string = v else { throw fail(i, name, "NS.string is \(v.typeNameWithArticle), not a string", field: "NS.string") }
                return (v, 1)
            }
            if let b = fields["NS.bytes"] {
                let (v, _) = try field(b, i, "NS.bytes")
                guard case .data(let d) = v, let s = String(validating: d, as: UTF8.self) else {
                    throw fail(i, name, "NS.bytes is not UTF-8 data", field: "NS.bytes")
                }
                return (.string(s), 1)
            }
            throw fail(i, name, "the string object has no NS.string")
        case .data:
            for key in ["NS.data", "NS.bytes"] {
                guard let d = fields[key] else { continue }
                let (v, _) = try field(d, i, key)
                guard case .data = v else { throw fail(i, name, "\(key) is \(v.typeNameWithArticle), not data", field: key) }
                return (v, 1)
            }
            throw fail(i, name, "the data object has no NS.data")
        case .date:
            let (v, _) = try field(fields["NS.time"] ?? .bool(false), i, "NS.time")
            switch v {
            case .real(let r): return (.date(PlistDate(secondsSinceReferenceDate: r.value)), 1)
            case .integer(let n): return (.date(PlistDate(secondsSinceReferenceDate: n.doubleValue)), 1)
            default: throw fail(i, name, "NS.time is missing or not a number", field: "NS.time")
            }
        case .array, .orderedSet:
            return try elements(fields, i, name)
        case .countedSet:
            return try countedSet(fields, i, name)
        case .dictionary:
            return try dictionary(fields, i, name)
        case .url:
            return try url(fields, i, name)
        case .uuid:
            guard case .data(let b)? = fields["NS.uuidbytes"], b.count == 16 else {
                throw fail(i, name, "NS.uuidbytes is not 16 bytes of data", field: "NS.uuidbytes")
            }
            return (.string(Self.uuidText(b)), 1)
        case .null:
            return (Self.nullMarker, 1)
        case .attributedString:
            return try attributedString(fields, i, name)
        case .value:
            return try nsValue(fields, i, name)
        case .indexSet:
            return try indexSet(fields, i, name)
        case .indexPath:
            return try indexPath(fields, i, name)
        case .generic:
            return try generic(fields, i, name)
        }
    }

    /// A field's plain value: an inline scalar as is, UIDs resolved.
    private mutating func field(_ v: PlistValue, _ uid: Int, _ key: String) throws -> (PlistValue, Int) {
        do { return try resolve(v, uid: uid) } catch let e as PlistError { throw e.inside(key) }
    }

    private mutating func generic(_ fields: PlistDictionary, _ i: Int, _ name: String) throws -> (PlistValue, Int) {
        var out = PlistDictionary(minimumCapacity: fields.count)
        var total = 1
        if !codableFields { out["$class"] = .string(name); total += 1 }
        for (k, v) in fields where !exactKeyBytesEqual(k, "$class") {
            let key: String
            if codableFields {
                guard let u = ArchivedObject.unescape(k) else { continue }
                key = u
            } else {
                key = k
            }
            let (x, c) = try field(v, i, k)
            total = try checked(total + c, i)
            out[key] = x
        }
        return (.dictionary(out), total)
    }

    /// `NS.objects` (arrays, sets, ordered sets), else `NS.object.0`, `NS.object.1`, … while present (ordered sets).
    private mutating func elements(_ fields: PlistDictionary, _ i: Int, _ name: String) throws -> (PlistValue, Int) {
        if let objects = fields["NS.objects"] {
            guard case .array = objects else {
                throw fail(i, name, "NS.objects is \(objects.typeNameWithArticle), not an array", field: "NS.objects")
            }
            // Errors inside name the element's index, the path in the plain value; the array is this object's
            // own level (counted in `value`).
            return try resolveContainer(objects, uid: i)
        }
        var out: [PlistValue] = []
        var total = 1
        var j = 0
        while let e = fields["NS.object.\(j)"] {
            let (x, c): (PlistValue, Int)
            do { (x, c) = try resolve(e, uid: i) } catch let err as PlistError { throw err.inside(String(j)) }
            total = try checked(total + c, i)
            out.append(x)
            j += 1
        }
        return (.array(out), total)
    }

    private mutating func countedSet(_ fields: PlistDictionary, _ i: Int, _ name: String) throws -> (PlistValue, Int) {
        guard case .integer(let n)? = fields["NS.count"], let distinct = n.int64Value, distinct >= 0,
              distinct <= Int64(fields.count) else {
            throw fail(i, name, "NS.count is missing, negative or larger than the object's fields", field: "NS.count")
        }
        var out: [PlistValue] = []
        var total = 1
        for j in 0..<Int(distinct) {
            guard let ref = fields["NS.object\(j)"] else { throw fail(i, name, "NS.object\(j) is missing") }
            guard case .integer(let times)? = fields["NS.count\(j)"], let t = times.int64Value, t > 0 else {
                throw fail(i, name, "NS.count\(j) is missing or not a positive integer", field: "NS.count\(j)")
            }
            let (x, c) = try field(ref, i, "NS.object\(j)")
            guard t <= Int64(options.maxPlainNodes) else { throw tooLarge(UInt64(i)) }
            total = try checked(total + c * Int(t), i)
            for _ in 0..<t { out.append(x) }
        }
        return (.array(out), total)
    }

    private mutating func dictionary(_ fields: PlistDictionary, _ i: Int, _ name: String) throws -> (PlistValue, Int) {
        let keysValue = fields["NS.keys"] ?? .array([])
        let objectsValue = fields["NS.objects"] ?? .array([])
        guard case .array(let keys) = keysValue else {
            throw fail(i, name, "NS.keys is \(keysValue.typeNameWithArticle), not an array", field: "NS.keys")
        }
        guard case .array(let objects) = objectsValue else {
            throw fail(i, name, "NS.objects is \(objectsValue.typeNameWithArticle), not an array", field: "NS.objects")
        }
        guard keys.count == objects.count else {
            throw fail(i, name, "NS.keys has \(keys.count) entries but NS.objects has \(objects.count)", field: "NS.keys")
        }
        var out = PlistDictionary(minimumCapacity: keys.count)
        var total = 1
        for j in 0..<keys.count {
            let (k, _) = try field(keys[j], i, "NS.keys.\(j)")
            let key: String
            switch (k, options.nonStringKeys) {
            case (.string(let s), _): key = s
            case (_, .describe): key = Self.text(of: k)
            default:
                throw PlistError(.nonStringKey, "UID \(i) (\(name)): key \(j) is \(KeyedArchive.describe(k)), not a string",
                                 keyPath: .at("NS.keys", String(j)))
            }
            do {
                let (v, c) = try resolve(objects[j], uid: i)
                total = try checked(total + c, i)
                out[key] = v
            } catch let e as PlistError { throw e.inside(key) }
        }
        return (.dictionary(out), total)
    }

    private mutating func url(_ fields: PlistDictionary, _ i: Int, _ name: String) throws -> (PlistValue, Int) {
        let (relative, _) = try field(fields["NS.relative"] ?? .uid(UID(0)), i, "NS.relative")
        guard case .string(let rel) = relative else {
            throw fail(i, name, "NS.relative is \(relative.typeNameWithArticle), not a string", field: "NS.relative")
        }
        let (base, _) = try field(fields["NS.base"] ?? .uid(UID(0)), i, "NS.base")
        switch base {
        case .string(let b) where exactKeyBytesEqual(b, "$null"):
            return (.string(rel), 1)
        case .string(let b):
            // Resolved as Foundation's URL(string:relativeTo:) does (RFC 3986); text that is no URL stays as stored.
            if let baseURL = URL(string: b), let u = URL(string: rel, relativeTo: baseURL) {
                return (.string(u.absoluteString), 1)
            }
            return (.dictionary(["$class": .string(name), "NS.base": base, "NS.relative": relative]), 4)
        default:
            throw fail(i, name, "NS.base is \(base.typeNameWithArticle), not a URL", field: "NS.base")
        }
    }

    private mutating func attributedString(_ fields: PlistDictionary, _ i: Int, _ name: String) throws -> (PlistValue, Int) {
        let (textValue, _) = try field(fields["NS.string"] ?? fields["NSString"] ?? .uid(UID(0)), i, "NSString")
        guard case .string(let text) = textValue else {
            throw fail(i, name, "NSString is \(textValue.typeNameWithArticle), not a string", field: "NSString")
        }
        let length = text.utf16.count
        var runs: [PlistValue] = []
        var total = 3
        if let attributesRef = fields["NSAttributes"] {
            let (attributes, c) = try field(attributesRef, i, "NSAttributes")
            total = try checked(total + c, i)
            switch attributes {
            case .dictionary:
                runs.append(["location": 0, "length": .integer(PlistInteger(length)), "attributes": attributes])
            case .array(let slots):
                guard let infoRef = fields["NSAttributeInfo"] else { throw fail(i, name, "NSAttributes is an array but NSAttributeInfo is missing") }
                let (info, _) = try field(infoRef, i, "NSAttributeInfo")
                guard case .data(let bytes) = info else { throw fail(i, name, "NSAttributeInfo is not data", field: "NSAttributeInfo") }
                let numbers = try Self.leb128(bytes, uid: i, name: name, field: "NSAttributeInfo")
                guard numbers.count % 2 == 0 else { throw fail(i, name, "NSAttributeInfo holds an odd count of numbers", field: "NSAttributeInfo") }
                var location: UInt64 = 0
                for r in stride(from: 0, to: numbers.count, by: 2) {
                    let (runLength, slot) = (numbers[r], numbers[r + 1])
                    guard slot < UInt64(slots.count) else {
                        throw fail(i, name, "run \(r / 2) uses attribute slot \(slot), past the \(slots.count) in NSAttributes", field: "NSAttributeInfo")
                    }
                    let (sum, overflow) = location.addingReportingOverflow(runLength)
                    guard !overflow, sum <= UInt64(length) else {
                        throw fail(i, name, "the runs cover more than the string's \(length) UTF-16 units", field: "NSAttributeInfo")
                    }
                    runs.append(["location": .integer(PlistInteger(location)), "length": .integer(PlistInteger(runLength)),
                                 "attributes": slots[Int(slot)]])
                    total = try checked(total + 3, i)
                    location = sum
                }
            default:
                throw fail(i, name, "NSAttributes is \(attributes.typeNameWithArticle), not a dictionary or array", field: "NSAttributes")
            }
        }
        return (.dictionary(["string": .string(text), "runs": .array(runs)]), total)
    }

    private mutating func nsValue(_ fields: PlistDictionary, _ i: Int, _ name: String) throws -> (PlistValue, Int) {
        if case .integer(let special)? = fields["NS.special"] {
            func geometry(_ key: String, _ names: [String]) throws -> (PlistValue, Int) {
                let (v, _) = try field(fields[key] ?? .uid(UID(0)), i, key)
                guard case .string(let s) = v, let numbers = Self.geometryNumbers(s), numbers.count == names.count else {
                    throw fail(i, name, "\(key) is not a geometry string like {1, 2} or {{1, 2}, {3, 4}}", field: key)
                }
                var d = PlistDictionary(minimumCapacity: names.count)
                for (n, x) in zip(names, numbers) { d[n] = .real(PlistReal(x)) }
                return (.dictionary(d), 1 + names.count)
            }
            func number(_ key: String) throws -> PlistValue {
                let (v, _) = try field(fields[key] ?? .uid(UID(0)), i, key)
                switch v {
                case .integer, .real: return v
                default: throw fail(i, name, "\(key) is missing or not a number", field: key)
                }
            }
            switch special.int64Value {
            case 1: return try geometry("NS.pointval", ["x", "y"])
            case 2: return try geometry("NS.sizeval", ["width", "height"])
            case 3: return try geometry("NS.rectval", ["x", "y", "width", "height"])
            case 4:
                return (.dictionary(["location": try number("NS.rangeval.location"), "length": try number("NS.rangeval.length")]), 3)
            case 12:
                var d = PlistDictionary()
                for side in ["top", "left", "bottom", "right"] { d[side] = try number("NS.edgeval." + side) }
                return (.dictionary(d), 5)
            default:
                return try generic(fields, i, name)
            }
        }
        // Any other NSValue: `$0` the Objective-C type encoding, `$1` the value (a number, or an old-style array object).
        guard let typeRef = fields["$0"], let valueRef = fields["$1"] else { return try generic(fields, i, name) }
        let (type, _) = try field(typeRef, i, "$0")
        guard case .string = type else { throw fail(i, name, "$0 (the type encoding) is not a string", field: "$0") }
        var (v, c) = try field(valueRef, i, "$1")
        if case .dictionary(let old) = v, case .string("_NSKeyedCoderOldStyleArray")? = old["$class"] {
            var elements: [PlistValue] = []
            var j = 0
            while let e = old["$\(j)"] { elements.append(e); j += 1 }
            v = .array(elements)
            c = 1 + elements.count
        }
        return (.dictionary(["type": type, "value": v]), 2 + c)
    }

    private mutating func indexSet(_ fields: PlistDictionary, _ i: Int, _ name: String) throws -> (PlistValue, Int) {
        guard case .integer(let n)? = fields["NSRangeCount"], let count = n.int64Value, count >= 0 else {
            throw fail(i, name, "NSRangeCount is missing or negative", field: "NSRangeCount")
        }
        func range(_ location: UInt64, _ length: UInt64) -> PlistValue {
            ["location": .integer(PlistInteger(location)), "length": .integer(PlistInteger(length))]
        }
        switch count {
        case 0: return (.array([]), 1)
        case 1:
            guard case .integer(let loc)? = fields["NSLocation"], case .integer(let len)? = fields["NSLength"],
                  let l = loc.uint64Value, let n = len.uint64Value else {
                throw fail(i, name, "NSLocation or NSLength is missing or negative")
            }
            return (.array([range(l, n)]), 4)
        default:
            let (data, _) = try field(fields["NSRangeData"] ?? .uid(UID(0)), i, "NSRangeData")
            guard case .data(let bytes) = data else { throw fail(i, name, "NSRangeData is not data", field: "NSRangeData") }
            let numbers = try Self.leb128(bytes, uid: i, name: name, field: "NSRangeData")
            guard numbers.count == 2 * Int(count) else {
                throw fail(i, name, "NSRangeData holds \(numbers.count) numbers for NSRangeCount \(count)", field: "NSRangeData")
            }
            var out: [PlistValue] = []
            for r in stride(from: 0, to: numbers.count, by: 2) { out.append(range(numbers[r], numbers[r + 1])) }
            return (.array(out), try checked(1 + 3 * out.count, i))
        }
    }

    private mutating func indexPath(_ fields: PlistDictionary, _ i: Int, _ name: String) throws -> (PlistValue, Int) {
        guard case .integer(let n)? = fields["NSIndexPathLength"], let count = n.int64Value, count >= 0 else {
            throw fail(i, name, "NSIndexPathLength is missing or negative", field: "NSIndexPathLength")
        }
        switch count {
        case 0: return (.array([]), 1)
        case 1:
            guard case .integer(let v)? = fields["NSIndexPathValue"] else { throw fail(i, name, "NSIndexPathValue is missing") }
            return (.array([.integer(v)]), 2)
        default:
            let (data, _) = try field(fields["NSIndexPathData"] ?? .uid(UID(0)), i, "NSIndexPathData")
            guard case .data(let bytes) = data else { throw fail(i, name, "NSIndexPathData is not data", field: "NSIndexPathData") }
            let numbers = try Self.leb128(bytes, uid: i, name: name, field: "NSIndexPathData")
            guard numbers.count == Int(count) else {
                throw fail(i, name, "NSIndexPathData holds \(numbers.count) indices for NSIndexPathLength \(count)", field: "NSIndexPathData")
            }
            return (.array(numbers.map { .integer(PlistInteger($0)) }), try checked(1 + numbers.count, i))
        }
    }

    // MARK: Helpers

    /// Unsigned LEB128 numbers (7 bits per byte, least significant first), as `NSAttributedString`, `NSIndexSet` and
    /// `NSIndexPath` store them (swift-corelibs-foundation `NSAttributedString.swift`, `NSIndexSet.swift`).
    static func leb128(_ data: Data, uid: Int, name: String, field: String) throws -> [UInt64] {
        try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws -> [UInt64] in
            var out: [UInt64] = []
            var value: UInt64 = 0
            var shift: UInt64 = 0
            for b in raw {
                guard shift < 64, shift < 63 || b & 0x7E == 0 else {
                    throw PlistError(.invalidValue, "UID \(uid) (\(name)): a number in \(field) does not fit 64 bits", keyPath: .at(field))
                }
                value |= UInt64(b & 0x7F) << shift
                if b & 0x80 == 0 {
                    out.append(value)
                    value = 0
                    shift = 0
                } else {
                    shift += 7
                }
            }
            guard shift == 0 else {
                throw PlistError(.invalidValue, "UID \(uid) (\(name)): \(field) ends inside a number", keyPath: .at(field))
            }
            return out
        }
    }

    /// The numbers in `{1, 2}` or `{{1, 2}, {3, 4}}` (macOS writes `{{400, 300}, {200, 300}}`, swift-corelibs-foundation
    /// `{{400.0, 300.0}, …}`, `NSGeometry.swift`); nil when anything else is in the text.
    static func geometryNumbers(_ s: String) -> [Double]? {
        var out: [Double] = []
        var token: [UInt8] = []
        func flush() -> Bool {
            guard !token.isEmpty else { return true }
            guard let d = Double(String(decoding: token, as: UTF8.self)) else { return false }
            out.append(d)
            token.removeAll(keepingCapacity: true)
            return true
        }
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "+"),
                 UInt8(ascii: "e"), UInt8(ascii: "E"):
                token.append(b)
            case UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: ","), UInt8(ascii: " "):
                guard flush() else { return nil }
            default:
                return nil
            }
            if out.count > 4 { return nil }
        }
        return flush() ? out : nil
    }

    static func uuidText(_ b: Data) -> String {
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(36)
        for (j, byte) in b.enumerated() {
            if j == 4 || j == 6 || j == 8 || j == 10 { out.append(UInt8(ascii: "-")) }
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A non-string key as text (`NonStringKeys.describe`).
    static func text(of v: PlistValue) -> String {
        switch v {
        case .string(let s): return s
        case .integer(let i): return i.description
        case .real(let r): return r.value.description
        case .bool(let b): return b ? "true" : "false"
        case .date(let d): return d.description
        case .data(let d): return "<" + d.map { String($0, radix: 16) }.joined() + ">"
        case .uid(let u): return "UID \(u.value)"
        case .array, .dictionary: return String(PlistDescription.humanReadable(v).dropLast())
        }
    }
}

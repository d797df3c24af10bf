import FoundationEssentials

/// Builds `NSKeyedArchiver` archives from property-list values, as swift-corelibs-foundation's `NSKeyedArchiver` does
/// (`NSKeyedArchiver.swift`, `_encodeObject`), but deterministically.
///
/// Each value is archived as the Foundation object it bridges to: strings, numbers, Booleans and data as plain
/// `$objects` entries, dates as `NSDate` (`NS.time`), arrays as `NSArray` (`NS.objects`), dictionaries as
/// `NSDictionary` (all of `NS.keys`, then all of `NS.objects`, in the dictionary's order). UIDs are handed out in
/// pre-order, each class description follows the first object of its class, and values Foundation on Linux finds
/// equal share one entry: equal strings (exact scalars), numbers equal as numbers (`1`, `1.0` and `true` share the
/// first one's entry, `-0.0` shares `0.0`'s), equal data and dates, and equal arrays and dictionaries. So for a value
/// without multi-entry dictionaries the XML is byte for byte Foundation's
/// `archivedData(withRootObject:requiringSecureCoding:)` with `outputFormat = .xml`; Foundation walks a dictionary in
/// hash order, which changes from run to run, where this keeps the dictionary's own order.
public enum KeyedArchiver {
    /// An archive of `value` as the root object (`$top.root`), as a property list (write it with `PropertyList`).
    /// - Throws: `PlistError.unrepresentable` for a UID, which has no Foundation object.
    public static func archive(_ value: PlistValue, options: KeyedArchiverOptions = KeyedArchiverOptions()) throws -> PlistValue {
        var builder = ArchiveBuilder(exact: options.uniquing == .exact)
        let root = try builder.encodeRoot(value)
        return builder.finish(top: [("root", root)])
    }

    /// `archive(_:)` written as an `.xml` or `.binary` property list.
    public static func archivedData(_ value: PlistValue, format: PlistFormat = .binary,
                                    options: KeyedArchiverOptions = KeyedArchiverOptions()) throws -> [UInt8] {
        try serialize(archive(value, options: options), format: format)
    }

    /// Writes an archive's property list; only XML and binary have UIDs.
    static func serialize(_ archive: PlistValue, format: PlistFormat) throws -> [UInt8] {
        guard format == .xml || format == .binary else {
            throw PlistError(.unrepresentable, "a keyed archive holds UIDs, which only XML and binary property lists can hold",
                             format: format)
        }
        return try PropertyList.writeBytes(archive, format: format)
    }
}

/// Which values Foundation's archiver treats as one object: its object map is keyed by `AnyHashable`, so `isEqual`
/// decides (swift-corelibs-foundation `NSKeyedArchiver.swift`, `_objRefMap`; `NSNumber.swift` compares numbers as
/// doubles when either is a real).
enum ArchiveIdentity: Hashable {
    case string(ExactKey)
    case real(UInt64)
    case integer(PlistInteger)
    case date(UInt64)
    case data(Data)
    case array([Int32])
    /// Pairs of (key identity, value identity), sorted: dictionary equality ignores order.
    case dictionary([Int32])
    /// `KeyedArchiverOptions.Uniquing.exact`: a Boolean, and a real by its bits.
    case bool(Bool)
    case realBits(UInt64)

    /// The identity of a number: Booleans are 0 and 1, integers that a `Double` holds exactly compare as that
    /// `Double`, and −0.0 is 0.0 (one NaN for all).
    static func number(_ d: Double) -> ArchiveIdentity {
        if d.isNaN { return .real(Double.nan.bitPattern) }
        return .real(d == 0 ? 0 : d.bitPattern)
    }

    static func ofInteger(_ i: PlistInteger) -> ArchiveIdentity {
        if let v = i.int64Value {
            let d = Double(v)
            if d.magnitude < 0x1p63, Int64(d) == v { return number(d) }
        } else if let u = i.uint64Value {
            let d = Double(u)
            if d < 0x1p64, UInt64(d) == u { return number(d) }
        }
        return .integer(i)
    }
}

/// One archive being built: `$objects`, the identity of each entry, and the class descriptions made so far.
struct ArchiveBuilder {
    /// `KeyedArchiverOptions.Uniquing.exact`.
    let exact: Bool
    private(set) var objects: [PlistValue] = [.string("$null")]
    private var interned: [ArchiveIdentity: Int32] = [:]
    /// Per pre-order position of the value being archived: its identity and how many positions its subtree spans.
    private var ids: [Int32] = []
    private var spans: [Int32] = []
    private var cursor = 0
    private var uidOfIdentity: [Int32: UInt64] = [:]
    private var classUIDs: [String: UInt64] = [:]

    init(exact: Bool = false) { self.exact = exact }

    /// The identity of a scalar under the uniquing rule.
    private func scalarIdentity(_ value: PlistValue) -> ArchiveIdentity? {
        switch value {
        case .string(let s): return .string(ExactKey(s))
        case .integer(let i): return exact ? .integer(i) : .ofInteger(i)
        case .real(let r): return exact ? .realBits(r.value.bitPattern) : .number(r.value)
        case .bool(let b): return exact ? .bool(b) : .number(b ? 1 : 0)
        case .date(let d):
            let t = d.secondsSinceReferenceDate
            return .date(exact || t != 0 ? t.bitPattern : 0)
        case .data(let d): return .data(d)
        default: return nil
        }
    }

    /// Archives `value` and returns its UID.
    mutating func encodeRoot(_ value: PlistValue) throws -> UID {
        ids.removeAll(keepingCapacity: true)
        spans.removeAll(keepingCapacity: true)
        _ = try identify(value, depth: 0)
        cursor = 0
        return try encode(value)
    }

    /// The finished archive: `$archiver`, `$objects`, `$top`, `$version`.
    func finish(top: [(String, UID)]) -> PlistValue {
        var t = PlistDictionary(minimumCapacity: top.count)
        for (k, u) in top { t[k] = .uid(u) }
        return .dictionary([
            "$archiver": .string(KeyedArchive.archiverName),
            "$objects": .array(objects),
            "$top": .dictionary(t),
            "$version": .integer(PlistInteger(KeyedArchive.formatVersion)),
        ])
    }

    private mutating func intern(_ key: ArchiveIdentity) -> Int32 {
        if let id = interned[key] { return id }
        let id = Int32(truncatingIfNeeded: interned.count)
        interned[key] = id
        return id
    }

    /// First pass, children before parents: the identity of every position, so the second pass (parents first, as
    /// Foundation hands out UIDs) knows at a container whether an equal one was archived already.
    private mutating func identify(_ value: PlistValue, depth: Int) throws -> Int32 {
        guard depth <= 512 else { throw PlistError(.depthLimit, "the value is nested deeper than 512 levels") }
        let slot = ids.count
        ids.append(0)
        spans.append(1)
        let id: Int32
        switch value {
        case .string, .integer, .real, .bool, .date, .data:
            id = intern(scalarIdentity(value) ?? .integer(0))
        case .array(let a):
            var children: [Int32] = []
            children.reserveCapacity(a.count)
            for e in a { children.append(try identify(e, depth: depth + 1)) }
            id = intern(.array(children))
        case .dictionary(let d):
            // Keys first, then values: the order the second pass (and NSDictionary's encode(with:)) visits them.
            var keyIDs: [Int32] = []
            keyIDs.reserveCapacity(d.count)
            for (k, _) in d { keyIDs.append(try identify(.string(k), depth: depth + 1)) }
            var pairs: [(Int32, Int32)] = []
            pairs.reserveCapacity(d.count)
            for (j, (_, v)) in d.enumerated() { pairs.append((keyIDs[j], try identify(v, depth: depth + 1))) }
            pairs.sort { $0.0 < $1.0 || ($0.0 == $1.0 && $0.1 < $1.1) }
            id = intern(.dictionary(pairs.flatMap { [$0.0, $0.1] }))
        case .uid(let u):
            throw PlistError(.unrepresentable, "UID \(u.value) has no Foundation object to archive")
        }
        ids[slot] = id
        spans[slot] = Int32(truncatingIfNeeded: ids.count - slot)
        return id
    }

    /// Second pass: reserve the UID, then the children, then the class description if it is the first of its class.
    private mutating func encode(_ value: PlistValue) throws -> UID {
        let slot = cursor
        let id = ids[slot]
        if let uid = uidOfIdentity[id] {
            cursor += Int(spans[slot])
            return UID(uid)
        }
        cursor += 1
        let uid = UInt64(objects.count)
        uidOfIdentity[id] = uid
        objects.append(.string("$null"))
        let entry: PlistValue
        switch value {
        case .string, .integer, .real, .bool, .data:
            entry = value
        case .date(let d):
            entry = .dictionary(["$class": .uid(UID(classUID("NSDate", ["NSDate", "NSObject"]))),
                                 "NS.time": .real(PlistReal(d.secondsSinceReferenceDate))])
        case .array(let a):
            var refs: [PlistValue] = []
            refs.reserveCapacity(a.count)
            for e in a { refs.append(.uid(try encode(e))) }
            entry = .dictionary(["$class": .uid(UID(classUID("NSArray", ["NSArray", "NSObject"]))), "NS.objects": .array(refs)])
        case .dictionary(let d):
            var keys: [PlistValue] = []
            keys.reserveCapacity(d.count)
            for (k, _) in d { keys.append(.uid(try encode(.string(k)))) }
            var values: [PlistValue] = []
            values.reserveCapacity(d.count)
            for (_, v) in d { values.append(.uid(try encode(v))) }
            entry = .dictionary(["$class": .uid(UID(classUID("NSDictionary", ["NSDictionary", "NSObject"]))),
                                 "NS.keys": .array(keys), "NS.objects": .array(values)])
        case .uid(let u):
            throw PlistError(.unrepresentable, "UID \(u.value) has no Foundation object to archive")
        }
        objects[Int(uid)] = entry
        return UID(uid)
    }

    /// The UID of the class description for `name`, appended the first time (after that object's children).
    mutating func classUID(_ name: String, _ chain: [String]) -> UInt64 {
        if let u = classUIDs[name] { return u }
        let u = UInt64(objects.count)
        objects.append(.dictionary(["$classes": .array(chain.map(PlistValue.string)), "$classname": .string(name)]))
        classUIDs[name] = u
        return u
    }

    /// Appends an entry whose identity the caller manages (the Codable encoder's objects); returns its UID.
    mutating func appendPlaceholder() -> UInt64 {
        objects.append(.string("$null"))
        return UInt64(objects.count - 1)
    }

    /// Fills a placeholder.
    mutating func set(_ uid: UInt64, _ entry: PlistValue) { objects[Int(uid)] = entry }

    /// The UID of a plain scalar entry, shared with equal ones (Foundation's uniquing).
    mutating func scalarUID(_ value: PlistValue) -> UInt64 {
        if case .date = value { return appendEntry(value) }
        guard let key = scalarIdentity(value) else { return appendEntry(value) }
        let id = intern(key)
        if let u = uidOfIdentity[id] { return u }
        let u = appendEntry(value)
        uidOfIdentity[id] = u
        return u
    }

    private mutating func appendEntry(_ value: PlistValue) -> UInt64 {
        objects.append(value)
        return UInt64(objects.count - 1)
    }
}

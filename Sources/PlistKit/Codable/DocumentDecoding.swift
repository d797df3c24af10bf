import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

// `PlistDecoder.decode(_:from: BinaryPlistDocument)`. A type's keyed and unkeyed containers are answered from the
// document's dictionaries and arrays where they lie; every other value (a scalar, an array of scalars, a dictionary
// taken whole as `PlistValue`, a URL) is materialised where it is asked for and decoded by the tree decoder, so
// conversions, messages and coding paths are the tree decoder's own. What the type never asks for is never read.
// The checks on what is read are the document's (`BinaryPlistDocument`): those of the tree reader, object by object.

/// Where a document container sits: its coding path and the containers from the root down to it.
struct DocumentPlace {
    /// Tells containers apart for `DocumentDecodingContext.owner`.
    let id: UInt32
    let codingPath: [any CodingKey]
    /// The containers from the root down to and including this one (for the checks on what is found inside).
    let inside: [Int]
}

/// A dictionary's checked keys, as the tree holds them, and the entries whose values the duplicate-key policy keeps.
final class DocumentKeySet {
    /// Where the dictionary's key references lie, and how many entries it has: another dictionary with the same
    /// reference bytes has the same keys.
    let keyRefs: Int
    let count: Int
    let keys: [String]
    let entries: [Int]
    /// Positions by key, for a large dictionary, made by its first lookup.
    var index: [ExactKey: Int]?
    /// A dictionary too large to decode its keys for a few lookups (past `DocumentDecodingContext.decodedKeysLimit`
    /// entries): `keys` and `entries` are empty and each key is looked up in the document's raw keys.
    var looksUpInDocument: Bool { count > DocumentDecodingContext.decodedKeysLimit }

    init(keyRefs: Int, count: Int, keys: [String], entries: [Int]) {
        self.keyRefs = keyRefs
        self.count = count
        self.keys = keys
        self.entries = entries
    }
}

/// What a document decoding shares across its levels: the document's bytes (valid for the whole decoding), a
/// tree decoder for materialised values, and per `CodingKeys` type the key set its last container had.
final class DocumentDecodingContext {
    let document: BinaryPlistDocument
    let bytes: UnsafeRawBufferPointer
    let table: BinaryObjectTable
    /// One state for the whole decoding, so its per-type caches stay warm.
    let tree: PlistDecodingState
    /// The container whose coding path `tree.path` holds now: set once per container rather than once per value.
    private var owner: UInt32 = 0
    private var lastID: UInt32 = 0
    // Direct-mapped by `CodingKeys` type: records of one type share their key objects (writers unique keys), so
    // their keys are checked and decoded once.
    // Four key sets a type, most recent first: a type with an optional field has two layouts.
    private var keySetTypes = [UInt](repeating: 0, count: 64)
    private var keySets = [[DocumentKeySet]](repeating: [], count: 64)
    /// Per `CodingKeys` type, where its containers' k-th lookups found their keys: records of one type share their
    /// layout, whatever order their keys were written in.
    private var positions = [[Int32]](repeating: [], count: 64)
    /// What the decoding may read, in bytes as the tree reader counts them (four times the object area, the tree
    /// reader's own budget): materialised objects, and the keys and elements of the containers it walks. Objects
    /// the type reaches through many references (shared by the writer) are read each time, so a document that
    /// shares much runs out of it — and is then decoded from its bytes, whose tree holds a shared object once.
    private var budget: Int
    /// Set when `budget` ran out: whatever the decoding returned or threw (a type may catch errors), it is redone
    /// from the bytes.
    private(set) var exhausted = false
    /// An error that could not be thrown where it happened (`allKeys` cannot throw), thrown when the decoding ends.
    private(set) var deferredError: DecodingError?
    /// Set when the decoding has returned: a container that escaped it must not read the document's bytes again.
    var finished = false

    init(document: BinaryPlistDocument, bytes: UnsafeRawBufferPointer, table: BinaryObjectTable, userInfo: [CodingUserInfoKey: Any]) {
        self.document = document
        self.bytes = bytes
        self.table = table
        budget = BinaryEventSource<PlistTreeBuilder, AsWrittenKeyOrder>.treeBudget(table.trailer)
        tree = PlistDecodingState(value: .string(""), userInfo: userInfo, scalarsFromStrings: false)
    }

    /// Raised when the budget runs out; `PlistDecoder` then decodes from the bytes.
    struct BudgetExhausted: Error {}

    /// Charges `bytes` of reading to the budget.
    func charge(_ bytes: Int) throws {
        budget -= bytes
        if budget < 0 {
            exhausted = true
            throw BudgetExhausted()
        }
    }

    /// Keeps the first error that could not be thrown where it happened.
    func keepForLater(_ error: any Error, at path: [any CodingKey]) {
        guard deferredError == nil else { return }
        if let error = error as? DecodingError {
            deferredError = error
        } else if let error = error as? PlistError {
            deferredError = .dataCorrupted(DecodingError.Context(
                codingPath: path, debugDescription: "The data is not a valid property list: \(error.description)", underlyingError: error))
        }
    }

    func place(_ codingPath: [any CodingKey], inside: [Int]) -> DocumentPlace {
        lastID &+= 1
        return DocumentPlace(id: lastID, codingPath: codingPath, inside: inside)
    }

    /// Runs a read of the document, turning its `PlistError` into the `dataCorrupted` that decoding bytes that do not
    /// read gives (with the coding path where it happened).
    @inline(__always)
    func reading<R>(at path: @autoclosure () -> [any CodingKey], _ body: () throws -> R) throws -> R {
        if finished || exhausted { throw finished ? Self.escaped(path()) : BudgetExhausted() }
        do {
            return try body()
        } catch let error as PlistError {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: path(), debugDescription: "The data is not a valid property list: \(error.description)",
                underlyingError: error))
        }
    }

    /// The tree decoder's error for a container used after the value it belongs to was decoded.
    @inline(never) static func escaped(_ path: [any CodingKey]) -> DecodingError {
        .dataCorrupted(DecodingError.Context(
            codingPath: path, debugDescription: "A decoding container was used after the decoding it belongs to returned."))
    }

    /// The marker's high nibble of object `index` (`0xD` a dictionary, `0xA` an array).
    func kind(_ index: Int, at path: @autoclosure () -> [any CodingKey]) throws -> UInt8 {
        try reading(at: path()) { table.marker(at: try table.objectOffset(index)) >> 4 }
    }

    /// Object `index`, inside the containers `inside`, as a value (charged to the budget).
    func value(_ index: Int, inside: [Int], at path: @autoclosure () -> [any CodingKey]) throws -> PlistValue {
        let value = try reading(at: path()) {
            try document.value(ofObject: index, depth: inside.count, budget: &budget, bytes, table)
        }
        guard let value else {
            exhausted = true
            throw BudgetExhausted()
        }
        return value
    }

    /// Decodes a `T` from object `index`, found as `element` of the container at `place` (the root: no element):
    /// through document containers when `T` is no native plist type and the object is a container, else from its
    /// materialised value by the tree decoder.
    func decode<T: Decodable>(_ type: T.Type, object index: Int, element: CodingPathElement?, in place: DocumentPlace) throws -> T {
        if NativeType.of(T.self) == .none {
            let kind = try self.kind(index, at: path(place, element))
            if kind == 0xD || kind == 0xA {
                return try T(from: DocumentDecodingState(context: self, object: index, ancestors: place.inside, codingPath: path(place, element)))
            }
        }
        let value = try self.value(index, inside: place.inside, at: path(place, element))
        if owner != place.id {
            _ = tree.path.replace(with: place.codingPath)
            owner = place.id
        }
        return try tree.decodeLevel(type, from: value, at: element)
    }

    private func path(_ place: DocumentPlace, _ element: CodingPathElement?) -> [any CodingKey] {
        guard let element else { return place.codingPath }
        return place.codingPath + [element.codingKey]
    }

    /// A tree decoder on `value` at `path`, for a container the document does not answer (its type mismatch is the
    /// tree decoder's).
    func treeDecoder(for value: PlistValue, at path: [any CodingKey]) -> PlistDecodingState {
        PlistDecodingState(value: value, userInfo: tree.userInfo, scalarsFromStrings: false, path: path)
    }

    /// Whether object `index` is Foundation's `$null` (a string object spelling it).
    func isNull(_ index: Int, at path: @autoclosure () -> [any CodingKey]) throws -> Bool {
        try reading(at: path()) {
            let offset = try table.objectOffset(index)
            let kind = table.marker(at: offset) >> 4
            guard kind == 0x5 || kind == 0x6 else { return false }
            return try table.leaf(at: offset).value == .string(plistNullString)
        }
    }

    // MARK: Keyed containers

    /// The key set of dictionary `index` (below `ancestors`), checked as the tree reader checks it on entering, for
    /// a container keyed by `keyType`.
    func keySet(ofDictionary index: Int, under ancestors: [Int], keyType: Any.Type, at path: [any CodingKey]) throws -> (DocumentKeySet, slot: Int, keyRefs: Int) {
        let t = UInt(bitPattern: ObjectIdentifier(keyType))
        // Metadata of neighbouring types lies close together: mix the address before taking six bits.
        let slot = Int(truncatingIfNeeded: ((t >> 4) &* 0x9E37_79B9_7F4A_7C15) >> 58)
        return try reading(at: path) { () throws -> (DocumentKeySet, slot: Int, keyRefs: Int) in
            try document.enter(container: index, under: ancestors, table)
            let offset = try table.objectOffset(index)
            let refSize = table.trailer.refSize
            let (keyRefs, count) = try table.payload(Int(table.marker(at: offset) & 0x0F), unit: 2 * refSize, at: offset)
            if keySetTypes[slot] != t {
                keySetTypes[slot] = t
                keySets[slot].removeAll()
                positions[slot].removeAll()
            }
            for (i, known) in keySets[slot].enumerated() where known.count == count
                && (known.keyRefs == keyRefs || memcmp(table.base + known.keyRefs, table.base + keyRefs, count * refSize) == 0) {
                if i > 0 { keySets[slot].swapAt(0, i) }
                return (known, slot, keyRefs)
            }
            if count > Self.decodedKeysLimit {
                // Not remembered: such a dictionary is one of a kind (a library's tracks by ID).
                return (DocumentKeySet(keyRefs: keyRefs, count: count, keys: [], entries: []), slot, keyRefs)
            }
            try charge(count * (2 * refSize + 1))
            let (keys, entries) = try document.distinctKeys(ofDictionary: index, inside: ancestors + [index], table)
            let set = DocumentKeySet(keyRefs: keyRefs, count: count, keys: keys, entries: entries)
            if keySets[slot].count == 4 { keySets[slot].removeLast() }
            keySets[slot].insert(set, at: 0)
            return (set, slot, keyRefs)
        }
    }

    /// Past this many entries a dictionary's keys are not decoded for its container: a type reading a few fields of
    /// a huge dictionary looks them up in the document (whose lookups index such a dictionary once they have
    /// scanned it a few times), and only `allKeys` decodes them all.
    static var decodedKeysLimit: Int { 4096 }

    /// The keys of the dictionary at `place` (for `allKeys` and messages), as the tree holds them.
    func keys(of set: DocumentKeySet, at place: DocumentPlace) throws -> [String] {
        guard set.looksUpInDocument, let dictionary = place.inside.last else { return set.keys }
        return try reading(at: place.codingPath) {
            try charge(set.count * (2 * table.trailer.refSize + 1))
            return try document.distinctKeys(ofDictionary: dictionary, inside: place.inside, table).keys
        }
    }

    /// The object holding the value for `key` in the dictionary whose key references lie at `keyRefs` and whose key
    /// set is `set` (perhaps another dictionary's, with the same key objects), or nil; `lookup` counts the
    /// container's lookups; `place` is the container's.
    func entry(
        _ key: String, in set: DocumentKeySet, keyRefs: Int, slot: Int, lookup k: Int, place: DocumentPlace,
        at path: @autoclosure () -> [any CodingKey]
    ) throws -> Int? {
        if set.looksUpInDocument, let dictionary = place.inside.last {
            return try reading(at: path()) {
                try document.entry(key, inDictionary: dictionary, under: Array(place.inside.dropLast()), table)
            }
        }
        let n = set.keys.count
        var position: Int?
        let cached = k < positions[slot].count ? Int(positions[slot][k]) : -1
        if cached >= 0, cached < n, exactKeyBytesEqual(set.keys[cached], key) {
            position = cached
        } else if n > 16 {
            if set.index == nil {
                var index: [ExactKey: Int] = [:]
                index.reserveCapacity(n)
                for (i, k) in set.keys.enumerated() { index[ExactKey(k)] = i }
                set.index = index
            }
            position = set.index?[ExactKey(key)]
        } else {
            // From where the previous lookup of this container found its key (fields are mostly read in order).
            var j = k > 0 && k - 1 < positions[slot].count ? Int(positions[slot][k - 1]) + 1 : 0
            for _ in 0 ..< n {
                if j >= n { j = 0 }
                if exactKeyBytesEqual(set.keys[j], key) {
                    position = j
                    break
                }
                j += 1
            }
        }
        if k < positions[slot].count {
            positions[slot][k] = Int32(truncatingIfNeeded: position ?? -1)
        } else if k == positions[slot].count, k < 1024 {
            positions[slot].append(Int32(truncatingIfNeeded: position ?? -1))
        }
        guard let position else { return nil }
        let refSize = table.trailer.refSize
        return try reading(at: path()) { try table.reference(at: keyRefs + (set.count + set.entries[position]) * refSize) }
    }
}

/// The `Decoder` for one container object of a document decoding.
final class DocumentDecodingState: Decoder {
    let context: DocumentDecodingContext
    let object: Int
    /// The containers from the root down to the one holding `object`.
    let ancestors: [Int]
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { context.tree.userInfo }

    init(context: DocumentDecodingContext, object: Int, ancestors: [Int], codingPath: [any CodingKey]) {
        self.context = context
        self.object = object
        self.ancestors = ancestors
        self.codingPath = codingPath
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard try context.kind(object, at: codingPath) == 0xD else { return try materialised().container(keyedBy: type) }
        let (set, slot, keyRefs) = try context.keySet(ofDictionary: object, under: ancestors, keyType: Key.self, at: codingPath)
        return KeyedDecodingContainer(DocumentKeyedDecodingContainer<Key>(frame: DocumentDictionaryFrame(
            context: context, keys: set, keyRefs: keyRefs, slot: slot, place: context.place(codingPath, inside: ancestors + [object]))))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard try context.kind(object, at: codingPath) == 0xA else { return try materialised().unkeyedContainer() }
        let elements = try context.reading(at: codingPath) { () throws -> [Int] in
            let elements = try context.document.elements(ofArray: object, under: ancestors, context.table)
            try context.charge(elements.count * context.table.trailer.refSize)
            return elements
        }
        return DocumentUnkeyedDecodingContainer(
            context: context, elements: elements, place: context.place(codingPath, inside: ancestors + [object]))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { try materialised().singleValueContainer() }

    private func materialised() throws -> PlistDecodingState {
        context.treeDecoder(for: try context.value(object, inside: ancestors, at: codingPath), at: codingPath)
    }
}

/// What a keyed container over a document dictionary knows: one object, so the container (which the standard
/// library's box copies on every call) holds one reference.
final class DocumentDictionaryFrame {
    let context: DocumentDecodingContext
    let keys: DocumentKeySet
    /// Where this dictionary's key references lie (its values' follow them).
    let keyRefs: Int
    let slot: Int
    let place: DocumentPlace
    /// How many lookups the container has made.
    var lookups = 0

    init(context: DocumentDecodingContext, keys: DocumentKeySet, keyRefs: Int, slot: Int, place: DocumentPlace) {
        self.context = context
        self.keys = keys
        self.keyRefs = keyRefs
        self.slot = slot
        self.place = place
    }
}

/// A keyed container over a dictionary of the document: its keys are checked and decoded once (once per run of
/// dictionaries with the same key objects), its values where they lie.
struct DocumentKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let frame: DocumentDictionaryFrame

    private var context: DocumentDecodingContext { frame.context }
    private var keys: DocumentKeySet { frame.keys }
    private var place: DocumentPlace { frame.place }
    var codingPath: [any CodingKey] { frame.place.codingPath }

    var allKeys: [Key] {
        do {
            return try context.keys(of: keys, at: place).compactMap { Key(stringValue: $0) }
        } catch {
            // The protocol's `allKeys` cannot throw: the error ends the decoding when it returns.
            context.keepForLater(error, at: codingPath)
            return []
        }
    }

    /// The object holding the value for `key`, or nil when the dictionary has none.
    private func find(_ key: Key) throws -> Int? { try find(key.stringValue) }

    private func find(_ key: String) throws -> Int? {
        let k = frame.lookups
        frame.lookups += 1
        return try frame.context.entry(key, in: frame.keys, keyRefs: frame.keyRefs, slot: frame.slot, lookup: k, place: frame.place, at: codingPath)
    }

    private func require(_ key: Key) throws -> Int {
        if let found = try find(key) { return found }
        throw PlistKit.keyNotFound(key, at: codingPath, keys: try context.keys(of: keys, at: place))
    }

    func contains(_ key: Key) -> Bool { ((try? find(key)) ?? nil) != nil }

    func decodeNil(forKey key: Key) throws -> Bool { try context.isNull(try require(key), at: codingPath + [key]) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try context.decode(type, object: try require(key), element: .key(key), in: place)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decode(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decode(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decode(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decode(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decode(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decode(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decode(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decode(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decode(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decode(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decode(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decode(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decode(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decode(type, key) }

    /// The scalar requirements, through the generic one (the tree decoder converts the materialised scalar).
    private func decode<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        try context.decode(type, object: try require(key), element: .key(key), in: place)
    }

    // Written out rather than left to the protocol's defaults, which go through the non-throwing `contains` and
    // would take a document error (a broken value reference) for an absent key.
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? { try decodeIfPresent(type, key) }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try decodeIfPresent(type, key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try decodeIfPresent(type, key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try decodeIfPresent(type, key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try decodeIfPresent(type, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try decodeIfPresent(type, key) }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try decodeIfPresent(type, key) }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try decodeIfPresent(type, key) }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try decodeIfPresent(type, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try decodeIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try decodeIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try decodeIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try decodeIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try decodeIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try decodeIfPresent(type, key) }

    private func decodeIfPresent<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T? {
        guard let entry = try find(key), try !context.isNull(entry, at: codingPath + [key]) else { return nil }
        return try context.decode(type, object: entry, element: .key(key), in: place)
    }

    private func nested(_ key: Key) throws -> DocumentDecodingState {
        DocumentDecodingState(context: context, object: try require(key), ancestors: place.inside, codingPath: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try nested(key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { try nested(key).unkeyedContainer() }

    func superDecoder() throws -> any Decoder { try superDecoder(named: PlistCodingKey.superKey.stringValue, PlistCodingKey.superKey) }

    func superDecoder(forKey key: Key) throws -> any Decoder { try superDecoder(named: key.stringValue, key) }

    /// As the tree decoder's: an absent key gives an empty dictionary, so a superclass with only optional fields
    /// still decodes.
    private func superDecoder(named name: String, _ key: any CodingKey) throws -> any Decoder {
        let path = codingPath + [key]
        guard let entry = try find(name) else {
            return context.treeDecoder(for: .dictionary(PlistDictionary()), at: path)
        }
        return DocumentDecodingState(context: context, object: entry, ancestors: place.inside, codingPath: path)
    }
}

/// An unkeyed container over an array of the document: its elements are decoded one at a time where they lie.
struct DocumentUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let context: DocumentDecodingContext
    let elements: [Int]
    let place: DocumentPlace
    private(set) var currentIndex = 0

    init(context: DocumentDecodingContext, elements: [Int], place: DocumentPlace) {
        self.context = context
        self.elements = elements
        self.place = place
    }

    var codingPath: [any CodingKey] { place.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    /// The next element; as in the tree decoder's container, an error past the end.
    private func next(_ type: Any.Type) throws -> Int {
        guard currentIndex < elements.count else {
            throw pastTheEnd(type, at: codingPath + [PlistCodingKey(index: currentIndex)], count: elements.count)
        }
        return elements[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        guard try context.isNull(try next(Never.self), at: codingPath + [PlistCodingKey(index: currentIndex)]) else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try decode(type, ()) }
    mutating func decode(_ type: Bool.Type) throws -> Bool { try decode(type, ()) }
    mutating func decode(_ type: String.Type) throws -> String { try decode(type, ()) }
    mutating func decode(_ type: Double.Type) throws -> Double { try decode(type, ()) }
    mutating func decode(_ type: Float.Type) throws -> Float { try decode(type, ()) }
    mutating func decode(_ type: Int.Type) throws -> Int { try decode(type, ()) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try decode(type, ()) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try decode(type, ()) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try decode(type, ()) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try decode(type, ()) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try decode(type, ()) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try decode(type, ()) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try decode(type, ()) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try decode(type, ()) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try decode(type, ()) }

    /// Every `decode` requirement, through one generic function.
    private mutating func decode<T: Decodable>(_ type: T.Type, _: Void) throws -> T {
        let value = try context.decode(type, object: try next(type), element: .index(currentIndex), in: place)
        currentIndex += 1
        return value
    }

    /// A decoder for the next element; the index moves on once what the caller makes of it exists (as in the tree
    /// decoder's container, a type mismatch leaves it).
    private func nested(_ type: Any.Type) throws -> DocumentDecodingState {
        DocumentDecodingState(context: context, object: try next(type), ancestors: place.inside,
                              codingPath: codingPath + [PlistCodingKey(index: currentIndex)])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let container = try nested([String: Any].self).container(keyedBy: type)
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let container = try nested([Any].self).unkeyedContainer()
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let decoder = try nested((any Decoder).self)
        currentIndex += 1
        return decoder
    }
}

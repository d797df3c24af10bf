import FoundationEssentials
import Synchronization

/// A binary property list opened without being read: the trailer and the offset table are checked when it opens,
/// and nothing else is decoded, or allocated, until a caller asks for it. A key path is followed by comparing raw
/// key bytes in each dictionary on the way, as CoreFoundation's `CFBinaryPList.c` looks keys up; any object can then
/// be materialised as a `PlistValue`, or sent as events to a sink.
///
/// Every rule of `PropertyList.read` holds on the objects a call touches: bounds, encodings, non-string keys, the
/// duplicate-key policy, cycles, nesting depth and the decoding budget. In each dictionary on a path the keys are
/// checked up to the entry found — all of them for an absent key and under `.lastWins` or `.reject`; under
/// `.firstWins`, binary's reading of the default `.coreFoundation`, the first equal key ends the search, as it ends
/// CoreFoundation's own lookup — so a lookup that succeeds answers what a lookup in `read`'s tree answers, and one
/// that fails fails with the tree reader's kind of error. Objects a call does not touch are not checked, so a
/// lookup can succeed in a file that `read` refuses elsewhere (a broken key after the one found, say).
///
/// A lookup costs the objects on its path, never the size of the file. A dictionary of more than 64 entries is
/// indexed by key hash once lookups in it have read eight times its keys (within `lookupIndexMemory`; under
/// `.reject` on the first lookup), so later lookups in it cost a binary search; the document may be used from
/// several threads at once.
public final class BinaryPlistDocument: @unchecked Sendable {
    private enum Storage {
        case data(Data)
        case bytes([UInt8])
        case mapped(MappedInput)
    }

    private let storage: Storage
    private let trailer: BinaryTrailer
    /// The read options the document was opened with (limits and policies for every call).
    public let options: PlistReadOptions
    /// `options.duplicateKeys` as applied to binary input.
    private let duplicateKeys: DuplicateKeyPolicy
    /// The most memory the indexes of large dictionaries may hold together (8 bytes a slot, at most 11 an entry);
    /// past it older indexes are dropped, and a dictionary whose index alone is larger is scanned on every lookup.
    public let lookupIndexMemory: Int
    /// The default `lookupIndexMemory`: 64 MiB, the index of a dictionary of about 6 million entries.
    public static let defaultLookupIndexMemory = 64 << 20

    private struct IndexCache {
        var indexes: [Int: BinaryDictionaryIndex] = [:]
        var bytes = 0
        /// How many keys the scans of each large dictionary have read, by offset (past `indexAfterPasses` passes'
        /// worth, the next lookup builds its index).
        var keysScanned: [Int: Int] = [:]
        /// Large dictionaries with a key the index could not take (a broken key), always scanned.
        var unindexable: Set<Int> = []
    }
    /// The indexes built so far, by dictionary offset.
    private let indexes = Mutex(IndexCache())
    /// Seeds the key hashes of the indexes, so that no file can be made of keys that collide.
    private let seed = UInt64.random(in: .min ... .max)

    /// An object of the document, as a lookup finds it: a position in the offset table and what kind it is.
    public struct Object: Sendable, Hashable {
        /// The object's index in the offset table.
        public let index: Int
        /// What the object's marker says it is (`PlistValue.typeName` spelling: `dictionary`, `array`, `string`, …).
        public let typeName: String
        /// For an array or dictionary, how many elements or entries it has as written (a key written twice counts
        /// twice; the tree holds it once).
        public let count: Int?
    }

    /// Opens `data` (it is kept, not copied).
    public convenience init(
        _ data: Data, options: PlistReadOptions = PlistReadOptions(), lookupIndexMemory: Int = defaultLookupIndexMemory
    ) throws {
        try self.init(storage: .data(data), options: options, lookupIndexMemory: lookupIndexMemory)
    }

    /// Opens `bytes` (they are kept, not copied).
    public convenience init(
        _ bytes: [UInt8], options: PlistReadOptions = PlistReadOptions(), lookupIndexMemory: Int = defaultLookupIndexMemory
    ) throws {
        try self.init(storage: .bytes(bytes), options: options, lookupIndexMemory: lookupIndexMemory)
    }

    /// Opens the file at `path`, mapped into memory (`MappedInput`): only the pages that calls touch are read.
    public convenience init(
        contentsOfFile path: String, options: PlistReadOptions = PlistReadOptions(),
        lookupIndexMemory: Int = defaultLookupIndexMemory
    ) throws {
        let input: MappedInput
        do {
            input = try MappedInput(path: path, limit: options.maxInputSize)
        } catch {
            throw PlistError(.io, "cannot read \(path): \(error)", format: .binary)
        }
        try self.init(storage: .mapped(input), options: options, lookupIndexMemory: lookupIndexMemory)
    }

    /// Opens mapped (or read) input.
    public convenience init(
        _ input: MappedInput, options: PlistReadOptions = PlistReadOptions(), lookupIndexMemory: Int = defaultLookupIndexMemory
    ) throws {
        try self.init(storage: .mapped(input), options: options, lookupIndexMemory: lookupIndexMemory)
    }

    private init(storage: Storage, options: PlistReadOptions, lookupIndexMemory: Int) throws {
        self.storage = storage
        self.options = options
        duplicateKeys = options.duplicateKeys.resolved(for: .binary)
        self.lookupIndexMemory = lookupIndexMemory
        trailer = try Self.withBytes(storage) { bytes in
            guard bytes.count <= options.maxInputSize else {
                throw PlistError(.sizeLimit, "input is \(bytes.count) bytes, more than the limit of \(options.maxInputSize)",
                                 format: .binary)
            }
            let trailer = try BinaryTrailer(bytes, options: options)
            // Every offset entry must point into the object area: checked once, here, without allocating.
            let table = BinaryObjectTable(base: bytes.baseAddress.unsafelyUnwrapped, trailer: trailer, strictDates: options.strictDates)
            let (least, greatest) = Self.offsetRange(table)
            if least < UInt64(BinaryTrailer.headerSize) || greatest >= UInt64(table.objectsEnd) {
                // Some entry is wrong: the first one is the error, as the tree reader would report it.
                for index in 0..<trailer.objectCount { _ = try table.objectOffset(index) }
            }
            return trailer
        }
    }

    /// The least and greatest entries of the offset table, in a loop without branches for the common widths (the
    /// check of millions of entries is most of the time of opening a large document).
    private static func offsetRange(_ table: BinaryObjectTable) -> (UInt64, UInt64) {
        let trailer = table.trailer
        let entries = table.base + trailer.offsetTableOffset
        let count = trailer.objectCount
        var least = UInt64.max
        var greatest: UInt64 = 0
        func scan<T: FixedWidthInteger & UnsignedInteger>(_: T.Type) {
            for i in 0 ..< count {
                let v = UInt64(T(bigEndian: entries.loadUnaligned(fromByteOffset: i * MemoryLayout<T>.size, as: T.self)))
                least = min(least, v)
                greatest = max(greatest, v)
            }
        }
        switch trailer.offsetSize {
        case 1: scan(UInt8.self)
        case 2: scan(UInt16.self)
        case 4: scan(UInt32.self)
        case 8: scan(UInt64.self)
        default:
            for i in 0 ..< count {
                let v = table.readUInt(at: trailer.offsetTableOffset + i * trailer.offsetSize, size: trailer.offsetSize)
                least = min(least, v)
                greatest = max(greatest, v)
            }
        }
        return (least, greatest)
    }

    private static func withBytes<R>(_ storage: Storage, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        switch storage {
        case .data(let data): return try data.withUnsafeBytes(body)
        case .bytes(let bytes): return try bytes.withUnsafeBytes(body)
        case .mapped(let input): return try input.withUnsafeBytes(body)
        }
    }

    /// Calls `body` with the bytes and an object table over them (valid only inside `body`).
    private func withTable<R>(_ body: (UnsafeRawBufferPointer, BinaryObjectTable) throws -> R) rethrows -> R {
        try Self.withBytes(storage) { bytes in
            try body(bytes, BinaryObjectTable(base: bytes.baseAddress.unsafelyUnwrapped, trailer: trailer, strictDates: options.strictDates))
        }
    }

    /// The root object.
    public var root: Object {
        get throws { try withTable { _, table in try Self.describe(trailer.topObject, in: table) } }
    }

    // MARK: Lookups

    /// The object at `path` (the empty path is the root), or nil when a key is missing, an index is out of range or
    /// not a number, or a scalar is in the way — as `PlistValue[path:]` answers on the tree `read` builds. Each
    /// dictionary on the path has its keys checked up to the one found (see the type's notes), and the containers
    /// on it are checked for cycles and depth as the tree reader checks them; a dictionary of more than 64 entries
    /// is indexed once lookups in it have read eight times its keys (see `lookupIndexMemory`), so later lookups in
    /// it take a binary search instead of a pass over its keys.
    public func object(at path: KeyPath) throws -> Object? {
        try withTable { _, table in
            guard let found = try find(path, in: table) else { return nil }
            return try Self.describe(found, in: table)
        }
    }

    /// The value at `path`, materialised (`PlistValue.value(at:)`'s error when there is none), checked as the tree
    /// reader checks it at that depth.
    public func value(at path: KeyPath) throws -> PlistValue {
        try withTable { bytes, table in
            guard let found = try find(path, in: table) else {
                throw PlistError(.keyPath, "No value at that key path or invalid key path: \(path)", keyPath: path)
            }
            do {
                return try materialise(found, depth: path.components.count, bytes, table)
            } catch let e as PlistError {
                throw Self.at(path.components[...], e)
            }
        }
    }

    /// The whole value of `object` (and everything inside it), checked as `PropertyList.read` checks a document.
    public func value(of object: Object) throws -> PlistValue {
        try withTable { bytes, table in try materialise(object.index, depth: 0, bytes, table) }
    }

    /// The whole document's value: `PropertyList.read` of its bytes.
    public func value() throws -> PlistValue {
        try withTable { bytes, _ in try BinaryReader.read(bytes, trailer: trailer, options: options) }
    }

    /// The value of object `index`, found inside `depth` containers: a scalar, string or data decoded on its own; a
    /// container read by the tree reader (whose nesting limit then counts the containers above it). A reading
    /// costs the objects it meets, not the document's object count (`BinaryObjectSlots`).
    private func materialise(_ index: Int, depth: Int, _ bytes: UnsafeRawBufferPointer, _ table: BinaryObjectTable) throws -> PlistValue {
        var budget = BinaryEventSource<PlistTreeBuilder, AsWrittenKeyOrder>.treeBudget(trailer)
        if let value = try value(ofObject: index, depth: depth, budget: &budget, bytes, table) { return value }
        // Past the budget: offset entries alias one another, which the tree reader reads again by offset.
        var options = options
        options.maxDepth -= depth
        return try BinaryReader.read(bytes, trailer: trailer, options: options, from: index)
    }

    /// `materialise`, charging the bytes it decodes to `budget` (as the tree reader counts them: each object's
    /// span, once per reading); nil, with nothing returned, when the budget runs out. For a caller that materialises
    /// many objects of one document and must stay within a bound however they share subtrees (`PlistDecoder`).
    func value(ofObject index: Int, depth: Int, budget: inout Int, _ bytes: UnsafeRawBufferPointer, _ table: BinaryObjectTable) throws -> PlistValue? {
        let offset = try table.objectOffset(index)
        let kind = table.marker(at: offset) >> 4
        guard kind == 0xA || kind == 0xD else {
            let (value, end) = try table.leaf(at: offset)
            budget -= max(end - offset, 1)
            return budget >= 0 ? value : nil
        }
        if kind == 0xA, let elements = try leafArray(at: offset, depth: depth, table, budget: &budget) { return .array(elements) }
        guard budget >= 0 else { return nil }
        var options = options
        options.maxDepth -= depth
        var left = budget
        do {
            let value = try PlistTreeBuilder.build(options, format: .binary) {
                left = try BinaryEventSource<_, AsWrittenKeyOrder>.run(
                    bytes, trailer: trailer, options: options, byOffset: false, from: index, budget: budget, into: &$0).budgetLeft
            }
            budget = left
            return value
        } catch is BinaryBudgetExhausted {
            budget = -1
            return nil
        }
    }

    /// The elements of the array at `offset` (inside `depth` containers) when every one is a scalar, string or
    /// data, decoded as the tree reader decodes them; nil when one is a container or they would take more reading
    /// than `budget` (which they are charged to; the tree reader then reads it). An array of scalars — a `[String]` or
    /// `[Double]` field of a type decoded from the document — then costs its elements, where the tree reader's
    /// per-object table costs the document's object count.
    private func leafArray(at offset: Int, depth: Int, _ table: BinaryObjectTable, budget: inout Int) throws -> [PlistValue]? {
        let refSize = trailer.refSize
        let (refs, count) = try table.payload(Int(table.marker(at: offset) & 0x0F), unit: refSize, at: offset)
        if depth + 1 > options.maxDepth {
            throw BinaryTrailer.error(.depthLimit, "nesting deeper than \(options.maxDepth) levels", at: offset)
        }
        var elements: [PlistValue] = []
        elements.reserveCapacity(count)
        for i in 0 ..< count {
            do {
                let element = try table.objectOffset(try table.reference(at: refs + i * refSize))
                let kind = table.marker(at: element) >> 4
                guard kind != 0xA, kind != 0xD else { return nil }
                let (value, end) = try table.leaf(at: element)
                budget -= max(end - element, 1)
                guard budget >= 0 else { return nil }
                elements.append(value)
            } catch let e as PlistError {
                throw e.inside(String(i))  // as the tree reader names a bad element
            }
        }
        return elements
    }

    /// Sends `object`'s events to `sink` (a tree builder stands in for shared subtrees; a sink that cannot is
    /// refused past the decoding budget, as `PropertyList.parse(_:into:)` is).
    public func send<Sink: PlistEventSink>(_ object: Object, to sink: inout Sink) throws {
        try withTable { bytes, _ in
            var limited = LimitingSink(sink, limits: ReadLimits(options, format: .binary))
            defer { sink = limited.inner }
            do {
                try BinaryEventSource<_, AsWrittenKeyOrder>.run(bytes, trailer: trailer, options: options, byOffset: false, from: object.index, into: &limited)
            } catch let exhausted as BinaryBudgetExhausted {
                throw exhausted.error
            }
        }
    }

    /// What object `index` is, after checking its header (a container's length must fit the object area; a scalar
    /// is decoded, so its encoding is checked).
    private static func describe(_ index: Int, in table: BinaryObjectTable) throws -> Object {
        let offset = try table.objectOffset(index)
        let marker = table.marker(at: offset)
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0xA:
            let (_, count) = try table.payload(low, unit: table.trailer.refSize, at: offset)
            return Object(index: index, typeName: "array", count: count)
        case 0xD:
            let (_, count) = try table.payload(low, unit: 2 * table.trailer.refSize, at: offset)
            return Object(index: index, typeName: "dictionary", count: count)
        default:
            return Object(index: index, typeName: try table.leaf(at: offset).value.typeName, count: nil)
        }
    }


    // MARK: Reading in place (for `PlistDecoder`)

    /// Calls `body` with the bytes and an object table over them, valid only inside `body`.
    func withObjectTable<R>(_ body: (UnsafeRawBufferPointer, BinaryObjectTable) throws -> R) rethrows -> R {
        try withTable(body)
    }

    /// Checks container `index` as the tree reader checks a container it enters below `ancestors` (the containers
    /// from the root down to its parent): a reference back to one of them is a cycle, and the nesting limit holds.
    func enter(container index: Int, under ancestors: [Int], _ table: BinaryObjectTable) throws {
        _ = try find([], from: index, under: ancestors, in: table)
    }

    /// The value (an object index) for `key` in dictionary `dictionary`, whose containers from the root are
    /// `ancestors`: what `object(at:)` finds one key further down, with the same checks; nil when there is none.
    func entry(_ key: String, inDictionary dictionary: Int, under ancestors: [Int], _ table: BinaryObjectTable) throws -> Int? {
        try find([key], from: dictionary, under: ancestors, in: table)
    }

    /// The entries of dictionary `index` as the tree holds them: each distinct key once (its first entry's place),
    /// with the entry whose value the duplicate-key policy keeps, every key checked as the tree reader checks it
    /// (`inside`: the containers from the root down to this dictionary); a repeated key under `.reject` is its error.
    func distinctKeys(ofDictionary index: Int, inside: [Int], _ table: BinaryObjectTable) throws -> (keys: [String], entries: [Int]) {
        let offset = try table.objectOffset(index)
        let refSize = trailer.refSize
        let (keyRefs, count) = try table.payload(Int(table.marker(at: offset) & 0x0F), unit: 2 * refSize, at: offset)
        return try Self.withPath(inside, room: 0) { path in
            var keys: [String] = []
            var entries: [Int] = []
            keys.reserveCapacity(count)
            entries.reserveCapacity(count)
            // Small dictionaries compare keys pairwise; larger ones through a table.
            var positions: [ExactKey: Int] = [:]
            for i in 0 ..< count {
                let key = table.string(of: try table.checkedKey(try table.reference(at: keyRefs + i * refSize), inside: path, depth: inside.count))
                let earlier: Int?
                if count <= 16 {
                    earlier = keys.firstIndex { exactKeyBytesEqual($0, key) }
                } else {
                    earlier = positions[ExactKey(key)]
                    if earlier == nil { positions[ExactKey(key)] = keys.count }
                }
                guard let earlier else {
                    keys.append(key)
                    entries.append(i)
                    continue
                }
                switch duplicateKeys {
                case .reject: throw try duplicateKeyError(i, keyRefs: keyRefs, table)
                case .lastWins: entries[earlier] = i
                case .firstWins, .coreFoundation: break  // `.coreFoundation` reads binary as `.firstWins`
                }
            }
            return (keys, entries)
        }
    }

    /// Calls `body` with a walk's path of containers: `containers` first, then `room` slots more.
    private static func withPath<R>(_ containers: [Int], room: Int, _ body: (UnsafeMutableBufferPointer<Int>) throws -> R) rethrows -> R {
        try withUnsafeTemporaryAllocation(of: Int.self, capacity: containers.count + room) { path in
            for (i, container) in containers.enumerated() { path[i] = container }
            return try body(path)
        }
    }

    /// The elements of array `index` (object indexes), after `enter(container:under:)`'s checks.
    func elements(ofArray index: Int, under ancestors: [Int], _ table: BinaryObjectTable) throws -> [Int] {
        try enter(container: index, under: ancestors, table)
        let offset = try table.objectOffset(index)
        let refSize = trailer.refSize
        let (refs, count) = try table.payload(Int(table.marker(at: offset) & 0x0F), unit: refSize, at: offset)
        return try (0 ..< count).map { try table.reference(at: refs + $0 * refSize) }
    }

    // MARK: Following a key path

    /// Dictionaries of more entries than this are indexed once lookups in them have scanned many keys (see
    /// `indexAfterPasses`); smaller ones are always scanned.
    static var indexedCount: Int { 64 }

    /// A large dictionary is indexed once its scans have read this many times its keys.
    static var indexAfterPasses: Int { 8 }

    /// One lookup's bookkeeping: the containers it is inside (for cycles and depth) and its decoding budget.
    private struct Walk {
        /// Four times the object area, as for the tree reader; charged with the keys longer than a short string
        /// and the entries of each large dictionary scanned (an index found in the cache costs nothing).
        var budget: Int
        /// The second try, after the first ran out of budget: in each dictionary, a long key object named by
        /// several entries is checked, hashed, compared and charged once (the tree reader decodes a key object
        /// once too), by object index.
        var repeats: [Int: Repeat]?
        /// The objects the lookup is inside, outermost first (`path[0 ..< depth]`).
        let path: UnsafeMutableBufferPointer<Int>

        /// What the first entry naming a long key object found.
        struct Repeat {
            var hash: UInt64
            var matches: Bool
        }

        /// Whether key objects of `key`'s size are remembered in `repeats`.
        static func isLong(_ key: BinaryKey) -> Bool { (key.wide ? 2 * key.count : key.count) > 15 }

        mutating func charge(_ key: BinaryKey) throws {
            guard Self.isLong(key) else { return }
            try charge(key.wide ? 2 * key.count : key.count, at: key.start)
        }

        mutating func charge(_ bytes: Int, at offset: Int) throws {
            budget -= bytes
            if budget < 0 { throw BinaryBudgetExhausted(offset: offset) }
        }
    }

    /// The object at `path` and how many containers are above it, or nil. A lookup that runs out of budget is
    /// tried again with key objects charged once each, and past that fails as the tree reader fails on
    /// overlapping objects.
    private func find(_ path: KeyPath, in table: BinaryObjectTable) throws -> Int? {
        try find(path.components, from: trailer.topObject, under: [], in: table)
    }

    /// `find` of `components` below object `start`, whose containers from the root are `ancestors` (checked for
    /// cycles and counted for depth as if the walk had come down through them).
    private func find(_ components: [String], from start: Int, under ancestors: [Int], in table: BinaryObjectTable) throws -> Int? {
        try Self.withPath(ancestors, room: components.count + 1) { inside in
            do {
                var walk = Walk(budget: 4 * trailer.offsetTableOffset, repeats: nil, path: inside)
                return try find(components, from: start, at: ancestors.count, in: table, &walk)
            } catch is BinaryBudgetExhausted {
                var walk = Walk(budget: 4 * trailer.offsetTableOffset, repeats: [:], path: inside)
                do {
                    return try find(components, from: start, at: ancestors.count, in: table, &walk)
                } catch let exhausted as BinaryBudgetExhausted {
                    throw exhausted.error
                }
            }
        }
    }

    private func find(_ components: [String], from start: Int, at base: Int, in table: BinaryObjectTable, _ walk: inout Walk) throws -> Int? {
        let refSize = trailer.refSize
        var index = start
        for (step, component) in components.enumerated() {
            let depth = base + step
            let offset = try table.objectOffset(index)
            let marker = table.marker(at: offset)
            let low = Int(marker & 0x0F)
            do {
                switch marker >> 4 {
                case 0xD:
                    try enter(index, at: offset, depth: depth, walk)
                    let (keyRefs, count) = try table.payload(low, unit: 2 * refSize, at: offset)
                    // The keys are checked before the nesting, as the tree reader reads a dictionary's keys first.
                    let entry = try BinaryKeyQuery.with(component, seed: seed) { query in
                        count > Self.indexedCount && BinaryDictionaryIndex.canIndex(count)
                            ? try indexedEntry(query, dictionaryAt: offset, keyRefs: keyRefs, count: count, inside: depth + 1, table, &walk)
                            : try scannedEntry(query, keyRefs: keyRefs, count: count, inside: depth + 1, table, &walk)
                    }
                    try checkDepth(depth, at: offset)
                    guard let entry else { return nil }
                    index = try table.reference(at: keyRefs + (count + entry) * refSize)
                case 0xA:
                    try enter(index, at: offset, depth: depth, walk)
                    let (refs, count) = try table.payload(low, unit: refSize, at: offset)
                    try checkDepth(depth, at: offset)
                    guard let i = KeyPath.arrayIndex(component), i < count else { return nil }
                    index = try table.reference(at: refs + i * refSize)
                default:
                    return nil
                }
            } catch let e as PlistError {
                throw Self.at(components[..<step], e)
            }
        }
        // The object found: if it is a container, the tree reader nests it too.
        do {
            let offset = try table.objectOffset(index)
            let kind = table.marker(at: offset) >> 4
            if kind == 0xA || kind == 0xD {
                try enter(index, at: offset, depth: base + components.count, walk)
                try checkDepth(base + components.count, at: offset)
            }
        } catch let e as PlistError {
            throw Self.at(components[...], e)
        }
        return index
    }

    /// `error` with `components` put in front of its key path, as the tree reader reports a failure inside them.
    private static func at(_ components: ArraySlice<String>, _ error: PlistError) -> PlistError {
        guard !components.isEmpty else { return error }
        var e = error
        e.keyPath = KeyPath(components: Array(components) + (e.keyPath?.components ?? []))
        return e
    }

    /// Container `index` at `offset` is entered `depth` containers deep: being inside it already is a cycle.
    private func enter(_ index: Int, at offset: Int, depth: Int, _ walk: Walk) throws {
        if walk.path[0 ..< depth].contains(index) {
            throw BinaryTrailer.error(.cycle, "object \(index) contains itself (reference cycle)", at: offset)
        }
        walk.path[depth] = index
    }

    /// The container at `offset`, inside `depth` others, must be within the nesting limit.
    private func checkDepth(_ depth: Int, at offset: Int) throws {
        if depth + 1 > options.maxDepth {
            throw BinaryTrailer.error(.depthLimit, "nesting deeper than \(options.maxDepth) levels", at: offset)
        }
    }

    /// The position of `query`'s entry in a dictionary, by a pass over its keys, each checked as the tree reader
    /// checks it. Under `.firstWins` (binary's reading of `.coreFoundation`) the pass ends at the first equal key,
    /// as CoreFoundation's `__CFBinaryPlistGetOffsetForValueFromDictionary3` ends it: that entry is the one the tree
    /// keeps, and the keys after it are not on the lookup's path. Otherwise every key is read: the last equal one
    /// wins, or (`.reject`, only for a small dictionary: the search for a repeated key is quadratic here) a
    /// repeated one fails.
    private func scannedEntry(
        _ query: BinaryKeyQuery, keyRefs: Int, count: Int, inside depth: Int, _ table: BinaryObjectTable, _ walk: inout Walk
    ) throws -> Int? {
        var keysRead = 0
        return try scannedEntry(query, keyRefs: keyRefs, count: count, inside: depth, table, &walk, keysRead: &keysRead)
    }

    /// `scannedEntry`, saying in `keysRead` how many keys the pass read.
    private func scannedEntry(
        _ query: BinaryKeyQuery, keyRefs: Int, count: Int, inside depth: Int, _ table: BinaryObjectTable, _ walk: inout Walk,
        keysRead: inout Int
    ) throws -> Int? {
        let refSize = trailer.refSize
        let policy = duplicateKeys
        let stopsAtMatch = policy == .firstWins
        if count > Self.indexedCount { try walk.charge(2 * refSize * count, at: keyRefs) }
        walk.repeats?.removeAll(keepingCapacity: true)
        // Under `.reject` the keys and their hashes are kept (on the stack) to find a repeated one.
        return try withUnsafeTemporaryAllocation(of: (BinaryKey, UInt64).self, capacity: policy == .reject ? count : 0) { keys in
            var found: Int?
            var repeated: Int?
            // Short ASCII keys (record identifiers, nearly every key of a large dictionary) go through a loop of
            // their own; each other key is taken below, one at a time.
            let short = policy != .reject && walk.repeats == nil ? ShortASCIIQuery(query) : nil
            var i = 0
            scan: while i < count {
                if let short {
                    let (end, match) = table.scanShortASCIIKeys(from: i, count: count, keyRefs: keyRefs, query: short, stopAtMatch: stopsAtMatch)
                    if let match {
                        found = match
                        if stopsAtMatch { break scan }
                    }
                    i = end
                    if i == count { break }
                }
                let ref = try table.reference(at: keyRefs + i * refSize)
                if let known = walk.repeats?[ref] {
                    // The same key object as an earlier entry: the same key.
                    if policy == .reject {
                        if repeated == nil { repeated = i }
                        keys.initializeElement(at: i, to: keys[0])
                    }
                    if known.matches {
                        found = i
                        if stopsAtMatch { break scan }
                    }
                    i += 1
                    continue
                }
                let key = try table.checkedKey(ref, inside: walk.path, depth: depth)
                try walk.charge(key)
                let matches = table.key(key, equals: query)
                if policy == .reject {
                    let hash = table.hash(key, seed: seed)
                    if repeated == nil, keys[..<i].contains(where: { $0.1 == hash && table.keysEqual($0.0, key) }) { repeated = i }
                    keys.initializeElement(at: i, to: (key, hash))
                }
                if walk.repeats != nil, Walk.isLong(key) { walk.repeats![ref] = Walk.Repeat(hash: 0, matches: matches) }
                if matches {
                    found = i
                    if stopsAtMatch { break scan }
                }
                i += 1
            }
            keysRead = stopsAtMatch ? found.map { $0 + 1 } ?? count : count
            if let repeated { throw try duplicateKeyError(repeated, keyRefs: keyRefs, table) }
            return found
        }
    }

    /// The position of `query`'s entry in a large dictionary: by a scan until lookups have scanned it often, then
    /// through its index.
    private func indexedEntry(
        _ query: BinaryKeyQuery, dictionaryAt offset: Int, keyRefs: Int, count: Int, inside depth: Int,
        _ table: BinaryObjectTable, _ walk: inout Walk
    ) throws -> Int? {
        let index: BinaryDictionaryIndex
        if let cached = indexes.withLock({ $0.indexes[offset] }) {
            index = cached
        } else if duplicateKeys != .reject,
                  count * MemoryLayout<UInt64>.stride > lookupIndexMemory
                  || indexes.withLock({ $0.unindexable.contains(offset) || $0.keysScanned[offset, default: 0] < Self.indexAfterPasses * count }) {
            // A lookup in a dictionary without an index (or whose index would not be kept) is a pass over its keys
            // up to the one found, the cheapest a single lookup can be. Building the index costs about fifteen
            // full passes (measured on the 551,883-entry dictionary of a 92 MB library: 20–28 ms against 1.4–2 ms),
            // so it waits until the scans have read as many keys as `indexAfterPasses` passes: a few lookups never
            // pay for it, many pay at most about twice what the cheaper choice would have cost. (Under `.reject`
            // the index is how a repeated key is found.)
            var keysRead = 0
            defer { indexes.withLock { $0.keysScanned[offset, default: 0] += keysRead } }
            return try scannedEntry(query, keyRefs: keyRefs, count: count, inside: depth, table, &walk, keysRead: &keysRead)
        } else {
            do {
                index = try buildIndex(keyRefs: keyRefs, count: count, inside: depth, table, &walk)
            } catch is PlistError where duplicateKeys != .reject {
                // The index reads every key, and one is broken; a scan may end before it (`scannedEntry`), so the
                // dictionary is scanned from now on: lookups answer as they did before the index was tried.
                indexes.withLock { _ = $0.unindexable.insert(offset) }
                return try scannedEntry(query, keyRefs: keyRefs, count: count, inside: depth, table, &walk)
            }
            let limit = lookupIndexMemory
            indexes.withLock { cache in
                guard index.bytes <= limit, cache.indexes[offset] == nil else { return }
                while cache.bytes + index.bytes > limit, let victim = cache.indexes.first {
                    cache.indexes.removeValue(forKey: victim.key)
                    cache.bytes -= victim.value.bytes
                }
                cache.indexes[offset] = index
                cache.bytes += index.bytes
            }
        }
        let refSize = trailer.refSize
        let tag = query.hash >> 32
        var i = index.first(withTag: tag)
        while i < index.entries.count, index.entries[i] >> 32 == tag {
            let entry = Int(truncatingIfNeeded: index.entries[i] & 0xFFFF_FFFF)
            if table.key(try table.knownKey(try table.reference(at: keyRefs + entry * refSize)), equals: query) { return entry }
            i += 1
        }
        return nil
    }

    /// Checks every key of a large dictionary (as `scannedEntry` does) and indexes the entries the duplicate-key
    /// policy keeps: hashes in entry order, sorted by hash, and of each run of equal keys (equal keys have equal
    /// hashes, so they are side by side, in entry order) the first or the last kept.
    private func buildIndex(
        keyRefs: Int, count: Int, inside depth: Int, _ table: BinaryObjectTable, _ walk: inout Walk
    ) throws -> BinaryDictionaryIndex {
        let refSize = trailer.refSize
        let policy = duplicateKeys
        try walk.charge(2 * refSize * count, at: keyRefs)
        walk.repeats?.removeAll(keepingCapacity: true)
        var elements = [UInt64](repeating: 0, count: count)
        try elements.withUnsafeMutableBufferPointer { elements in
            for i in 0 ..< count {
                let ref = try table.reference(at: keyRefs + i * refSize)
                let hash: UInt64
                if let known = walk.repeats?[ref] {
                    hash = known.hash  // the same key object as an earlier entry: checked and hashed already
                } else {
                    let key = try table.checkedKey(ref, inside: walk.path, depth: depth)
                    try walk.charge(key)
                    hash = table.hash(key, seed: seed)
                    if walk.repeats != nil, Walk.isLong(key) { walk.repeats![ref] = Walk.Repeat(hash: hash, matches: false) }
                }
                elements[i] = (hash >> 32) << 32 | UInt64(i)
            }
        }
        BinaryDictionaryIndex.sortByTag(&elements)
        // Keeps, of each set of equal keys, the entry the policy keeps, and finds the first entry (in entry order)
        // whose key an earlier one has.
        var repeated: Int?
        var kept = 0
        try elements.withUnsafeMutableBufferPointer { e in
            var runStart = 0
            while runStart < count {
                let tag = e[runStart] >> 32
                var runEnd = runStart + 1
                while runEnd < count, e[runEnd] >> 32 == tag { runEnd += 1 }
                if runEnd - runStart == 1 {
                    e[kept] = e[runStart]
                    kept += 1
                } else {
                    try keepDistinct(e, runStart ..< runEnd, keyRefs: keyRefs, table, policy: policy, kept: &kept, repeated: &repeated)
                }
                runStart = runEnd
            }
        }
        if let repeated { throw try duplicateKeyError(repeated, keyRefs: keyRefs, table) }
        elements.removeLast(count - kept)
        return BinaryDictionaryIndex(entries: elements)
    }

    /// Of the run `run` of elements with one hash tag (in entry order), writes at `kept` one element per distinct
    /// key — the first or the last by the policy — and notes the first entry that repeats a key. The elements
    /// left of `kept` stay sorted: a run is rewritten in place, in order of first occurrence.
    private func keepDistinct(
        _ e: UnsafeMutableBufferPointer<UInt64>, _ run: Range<Int>, keyRefs: Int, _ table: BinaryObjectTable,
        policy: DuplicateKeyPolicy, kept: inout Int, repeated: inout Int?
    ) throws {
        let refSize = trailer.refSize
        func ref(_ element: UInt64) throws -> Int {
            try table.reference(at: keyRefs + Int(truncatingIfNeeded: element & 0xFFFF_FFFF) * refSize)
        }
        let first = kept
        for i in run {
            let element = e[i]
            let r = try ref(element)
            var same: Int?
            for k in first ..< kept {
                // The same key object is the same key without a comparison (a long key named many times).
                let other = try ref(e[k])
                if other == r {
                    same = k
                    break
                }
                if table.keysEqual(try table.knownKey(other), try table.knownKey(r)) {
                    same = k
                    break
                }
            }
            guard let same else {
                e[kept] = element
                kept += 1
                continue
            }
            let position = Int(truncatingIfNeeded: element & 0xFFFF_FFFF)
            switch policy {
            case .lastWins: e[same] = element
            case .firstWins, .coreFoundation: break  // `.coreFoundation` reads binary as `.firstWins`
            case .reject: if repeated.map({ position < $0 }) ?? true { repeated = position }
            }
        }
    }

    /// How many dictionary indexes the document holds (for tests).
    var cachedIndexCount: Int { indexes.withLock { $0.indexes.count } }

    /// The tree reader's error for entry `i`, the first whose key an earlier entry has (under `.reject`).
    private func duplicateKeyError(_ i: Int, keyRefs: Int, _ table: BinaryObjectTable) throws -> PlistError {
        let ref = try table.reference(at: keyRefs + i * trailer.refSize)
        let key = table.string(of: try table.knownKey(ref))
        return PlistError(.duplicateKey, "duplicate key \"\(key)\" in a dictionary", format: .binary,
                          offset: try table.objectOffset(ref), keyPath: KeyPath(components: [key]))
    }
}

import Synchronization

/// An insertion-ordered property-list dictionary with O(1) lookup.
///
/// Keys compare by exact Unicode scalars, so `"é"` (U+00E9) and `"e\u{301}"` are two keys, as in Core Foundation.
/// Setting an existing key replaces its value in place (the key keeps its position): "last wins".
///
/// The entries live in one copy-on-write buffer (keys and values side by side), so a dictionary costs one allocation
/// and a `PlistValue` stays three words wide. A dictionary past `indexThreshold` keys gets a hash index on its first
/// lookup by key, not when it is built: most dictionaries a reader makes are walked or written, never searched, and
/// hashing every key of every record while parsing was a fifth of a binary parse of an array of records.
/// (`@unchecked Sendable`: the buffer is a `ManagedBuffer`, which cannot be marked `Sendable`; it is changed only
/// while uniquely referenced, and the index is published to other threads atomically.)
public struct PlistDictionary: @unchecked Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    public typealias Element = (key: String, value: PlistValue)
    public typealias Index = Int

    /// One key and its value, as stored.
    struct Entry {
        var key: String
        var value: PlistValue
    }

    /// Nil until the first entry: empty dictionaries allocate nothing.
    var storage: PlistDictionaryStorage?

    // Built only past a small size. A hashed lookup is faster from ~8 keys (about 10 ns against 30–55 ns for a
    // scan of 8–16), but each table costs an allocation and hashing every key while parsing: measured, 16 parses
    // binary config files ~6% faster than 12 (and 8 slower still) with XML unchanged, and uses a little less memory.
    static var indexThreshold: Int { 16 }

    /// An empty dictionary.
    public init() { storage = nil }

    /// An empty dictionary with room for `minimumCapacity` entries.
    public init(minimumCapacity: Int) {
        storage = minimumCapacity > 0 ? PlistDictionaryStorage.make(capacity: minimumCapacity) : nil
    }

    public init(dictionaryLiteral elements: (String, PlistValue)...) {
        self.init(minimumCapacity: elements.count)
        for (k, v) in elements { self[k] = v }
    }

    /// Builds a dictionary from pairs in order; later duplicates replace earlier values.
    public init<S: Sequence>(_ pairs: S) where S.Element == (String, PlistValue) {
        self.init(minimumCapacity: pairs.underestimatedCount)
        for (k, v) in pairs { self[k] = v }
    }

    // MARK: Collection

    public var startIndex: Int { 0 }
    public var endIndex: Int { storage?.count ?? 0 }
    public var count: Int { storage?.count ?? 0 }
    public var isEmpty: Bool { count == 0 }

    public subscript(position: Int) -> Element {
        precondition(position >= 0 && position < count, "PlistDictionary index out of range")
        let entry = storage.unsafelyUnwrapped.entries[position]
        return (entry.key, entry.value)
    }

    /// The keys in insertion order (a new array).
    public var keys: [String] { withEntries { $0.map(\.key) } }
    /// The values in insertion order (a new array).
    public var values: [PlistValue] { withEntries { $0.map(\.value) } }

    /// Calls `body` with the entries in order; the buffer is valid only inside `body`.
    /// (`self` keeps the buffer alive for the call.)
    @inline(__always)
    func withEntries<R>(_ body: (UnsafeBufferPointer<Entry>) throws -> R) rethrows -> R {
        guard let storage else { return try body(UnsafeBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeBufferPointer(start: storage.entries, count: storage.count))
    }

    /// The keys as the lookup index sees them.
    @inline(__always)
    func withKeyColumn<R>(_ body: (KeyColumn) throws -> R) rethrows -> R {
        try withEntries { try body(KeyColumn($0)) }
    }

    /// The key at `position` (which must be valid).
    func key(at position: Int) -> String {
        precondition(position >= 0 && position < count, "PlistDictionary index out of range")
        return storage.unsafelyUnwrapped.entries[position].key
    }

    // MARK: Lookup

    /// The position of `key`, compared by exact scalars.
    public func index(forKey key: String) -> Int? {
        // A method of the buffer: its `self` is borrowed, where a local copy of `storage` would be retained.
        storage == nil ? nil : storage.unsafelyUnwrapped.position(of: key)
    }

    /// The value for `key`; setting `nil` removes the entry.
    public subscript(key: String) -> PlistValue? {
        get { index(forKey: key).map { storage.unsafelyUnwrapped.entries[$0].value } }
        set {
            if let newValue { updateValue(newValue, forKey: key) } else { removeValue(forKey: key) }
        }
    }

    /// A dictionary of `count` entries moved out of `keys` and `values` (left uninitialized). The keys must be
    /// distinct; `index`, if given, is built over them (see `PlistKeyIndex.forDictionary`), else a lookup builds it.
    init(movingUniqueKeys keys: UnsafeMutablePointer<String>, values: UnsafeMutablePointer<PlistValue>, count: Int,
         index: PlistKeyIndex?) {
        let box = index.map(PlistKeyIndexBox.init)
        storage = .filled(count: count, index: box.map(Unmanaged.passUnretained)) {
            Entry(key: (keys + $0).move(), value: (values + $0).move())
        }
    }

    /// A dictionary of `keys` and `values` (copied, the same count); the keys must be distinct, and `index`, if
    /// given, the index of those keys in that order (shared, not copied).
    init(uniqueKeys keys: UnsafeBufferPointer<String>, values: UnsafeBufferPointer<PlistValue>, sharing index: PlistKeyIndexBox?) {
        precondition(keys.count == values.count, "as many values as keys")
        storage = .filled(count: keys.count, index: index.map(Unmanaged.passUnretained)) { Entry(key: keys[$0], value: values[$0]) }
    }

    /// The hash index, if a lookup has built it (or the dictionary shares one; nil for a small dictionary), for
    /// dictionaries of the same keys in the same order to share.
    var sharedIndex: PlistKeyIndexBox? { storage?.indexBox?.takeUnretainedValue() }

    /// A dictionary with the keys of `model` and `model.count` values moved out of `values`. A key set used again is
    /// worth its index: `model`'s is built now if it has none, and shared.
    init(keysOf model: PlistDictionary, movingValues values: UnsafeMutablePointer<PlistValue>) {
        guard let source = model.storage else { storage = nil; return }
        let keys = source.entries
        storage = .filled(count: source.count, index: source.builtIndex()) { Entry(key: keys[$0].key, value: (values + $0).move()) }
    }

    /// The value at `position` (which must be valid).
    func value(at position: Int) -> PlistValue {
        precondition(position >= 0 && position < count, "PlistDictionary index out of range")
        return storage.unsafelyUnwrapped.entries[position].value
    }

    /// Replaces the value at `position` (which must be valid); the key stays.
    mutating func setValue(_ value: PlistValue, at position: Int) {
        precondition(position >= 0 && position < count, "PlistDictionary index out of range")
        makeUnique(capacity: count)
        storage.unsafelyUnwrapped.entries[position].value = value
    }

    /// Sets `value` for `key`, returning the previous value. A new key goes to the end.
    @discardableResult
    public mutating func updateValue(_ value: PlistValue, forKey key: String) -> PlistValue? {
        if let i = index(forKey: key) {
            let old = self.value(at: i)
            setValue(value, at: i)
            return old
        }
        appendNew(key, value)
        return nil
    }

    /// Appends `key` without checking whether it exists; returns false (and changes nothing) if it does.
    /// Readers use this to apply a duplicate-key policy with a single lookup.
    @discardableResult
    public mutating func insertIfAbsent(_ value: PlistValue, forKey key: String) -> Bool {
        if index(forKey: key) != nil { return false }
        appendNew(key, value)
        return true
    }

    /// Appends an entry whose key the caller knows is absent.
    mutating func appendNew(_ key: String, _ value: PlistValue) {
        let n = count
        makeUnique(capacity: n + 1)
        let s = storage.unsafelyUnwrapped
        (s.entries + n).initialize(to: Entry(key: key, value: value))
        s.count = n + 1
        s.indexAppended()
    }

    /// Removes `key`, returning its value. O(n): later entries shift down to keep the order.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> PlistValue? {
        guard let i = index(forKey: key) else { return nil }
        let n = count
        makeUnique(capacity: n)
        let s = storage.unsafelyUnwrapped
        let removed = (s.entries + i).move()
        (s.entries + i).moveInitialize(from: s.entries + i + 1, count: n - i - 1)
        s.count = n - 1
        s.dropIndex()
        return removed.value
    }

    /// Inserts at `position`, or replaces the value in place when the key exists.
    public mutating func insert(_ value: PlistValue, forKey key: String, at position: Int) {
        if let i = index(forKey: key) { setValue(value, at: i); return }
        let n = count
        precondition(position >= 0 && position <= n, "PlistDictionary insertion position out of range")
        makeUnique(capacity: n + 1)
        let s = storage.unsafelyUnwrapped
        (s.entries + position + 1).moveInitialize(from: s.entries + position, count: n - position)
        (s.entries + position).initialize(to: Entry(key: key, value: value))
        s.count = n + 1
        s.dropIndex()
    }

    /// Makes `storage` uniquely owned with room for `capacity` entries (growing geometrically).
    @inline(__always)
    mutating func makeUnique(capacity: Int) {
        if storage != nil, isKnownUniquelyReferenced(&storage), storage.unsafelyUnwrapped.entryCapacity >= capacity { return }
        makeUniqueSlow(capacity: capacity)
    }

    @inline(never)
    mutating func makeUniqueSlow(capacity: Int) {
        guard storage != nil else {
            storage = PlistDictionaryStorage.make(capacity: Swift.max(capacity, 4))
            return
        }
        let unique = isKnownUniquelyReferenced(&storage)
        let old = storage.unsafelyUnwrapped
        if unique && old.entryCapacity >= capacity { return }
        let newCapacity = old.entryCapacity >= capacity ? old.entryCapacity : Swift.max(capacity, 2 * old.entryCapacity)
        let fresh = PlistDictionaryStorage.make(capacity: newCapacity)
        let n = old.count
        if unique {
            fresh.entries.moveInitialize(from: old.entries, count: n)
            old.count = 0
        } else {
            fresh.entries.initialize(from: old.entries, count: n)
        }
        fresh.count = n
        fresh.setIndex(old.indexBox?.takeUnretainedValue())
        storage = fresh
    }

    /// The entries sorted by key in Core Foundation's order (UTF-16 code units).
    public func sortedByUTF16Keys() -> [Element] {
        withEntries { e in
            e.indices.sorted { PlistKeyOrder.utf16Less(e[$0].key, e[$1].key) }.map { (e[$0].key, e[$0].value) }
        }
    }

    // MARK: Equality

    /// Two dictionaries are equal when they hold the same keys (exact scalars) with equal values, in any order.
    public static func == (lhs: PlistDictionary, rhs: PlistDictionary) -> Bool {
        guard lhs.count == rhs.count else { return false }
        if lhs.storage === rhs.storage { return true }
        return lhs.withEntries { entries in
            entries.allSatisfy { e in rhs.index(forKey: e.key).map { rhs.value(at: $0) == e.value } ?? false }
        }
    }

    public func hash(into hasher: inout Hasher) {
        // Order-independent, to agree with ==.
        var acc = 0
        withEntries { entries in
            for e in entries {
                var h = Hasher()
                h.combine(ExactKey(e.key))
                h.combine(e.value)
                acc ^= h.finalize()
            }
        }
        hasher.combine(count)
        hasher.combine(acc)
    }
}

/// The header of a dictionary's buffer: how many entries are live and fit, and the lookup index of a large one.
struct PlistDictionaryHeader {
    var count: Int32
    var capacity: Int32
    /// The bits of an `Unmanaged<PlistKeyIndexBox>` the buffer holds a reference to, or 0: reached only as an
    /// `Atomic<UInt>` (`PlistDictionaryStorage.indexWord`), since a lookup on another thread may publish one.
    var indexWord: UInt
}

/// A large dictionary's lookup index, shared (by reference) between dictionaries with the same keys in the same order.
/// Changed in place only while one uniquely referenced buffer holds it.
final class PlistKeyIndexBox: @unchecked Sendable {
    var index: PlistKeyIndex
    init(_ index: PlistKeyIndex) { self.index = index }
}

/// The buffer behind a `PlistDictionary`: a header, then `capacity` entries of which the first `count` are live.
/// Changed only through a uniquely referenced dictionary (copy-on-write), so sharing it between threads is safe; the
/// one thing a reader adds is the index, published with a compare-and-exchange.
final class PlistDictionaryStorage: ManagedBuffer<PlistDictionaryHeader, PlistDictionary.Entry> {
    /// A buffer with room for `capacity` entries, none live.
    static func make(capacity: Int) -> PlistDictionaryStorage {
        precondition(capacity < Int(Int32.max), "PlistDictionary too large")
        let buffer = create(minimumCapacity: capacity) { _ in
            PlistDictionaryHeader(count: 0, capacity: Int32(truncatingIfNeeded: capacity), indexWord: 0)
        }
        return unsafeDowncast(buffer, to: PlistDictionaryStorage.self)
    }

    /// A buffer of `count` entries made by `entry(i)`, sharing `index` (built over those keys, or nil); nil when empty.
    @inline(__always)
    static func filled(
        count: Int, index: Unmanaged<PlistKeyIndexBox>?, _ entry: (Int) -> PlistDictionary.Entry
    ) -> PlistDictionaryStorage? {
        guard count > 0 else { return nil }
        let s = make(capacity: count)
        let e = s.entries
        for i in 0..<count { (e + i).initialize(to: entry(i)) }
        s.count = count
        if let index {
            // A new buffer no other thread can see yet: a plain store.
            s.indexWord.pointee.store(UInt(bitPattern: index.retain().toOpaque()), ordering: .relaxed)
        }
        return s
    }

    @inline(__always) var entries: UnsafeMutablePointer<PlistDictionary.Entry> {
        withUnsafeMutablePointerToElements { $0 }
    }

    // The header is reached through its pointer: `ManagedBuffer.header` is a class property, and every access to
    // it would pay a dynamic exclusivity check (measured: 6% of OpenStep parsing).
    @inline(__always) var headerPointer: UnsafeMutablePointer<PlistDictionaryHeader> {
        withUnsafeMutablePointerToHeader { $0 }
    }

    @inline(__always) var count: Int {
        get { Int(headerPointer.pointee.count) }
        set { headerPointer.pointee.count = Int32(truncatingIfNeeded: newValue) }
    }

    @inline(__always) var entryCapacity: Int { Int(headerPointer.pointee.capacity) }

    /// The keys of the live entries, as the index reads them.
    @inline(__always) var keyColumn: KeyColumn { KeyColumn(UnsafeBufferPointer(start: entries, count: count)) }

    // MARK: Index

    /// The header's index word, as the atomic it is used as (the word is never read as a plain `UInt`).
    @inline(__always) private var indexWord: UnsafeMutablePointer<Atomic<UInt>> {
        let raw = UnsafeMutableRawPointer(headerPointer) + MemoryLayout<PlistDictionaryHeader>.offset(of: \.indexWord)!
        return raw.assumingMemoryBound(to: Atomic<UInt>.self)
    }

    /// The index, if there is one (acquiring: an index another thread published is seen whole). Valid while this
    /// buffer is alive and unchanged.
    @inline(__always) var indexBox: Unmanaged<PlistKeyIndexBox>? {
        let word = indexWord.pointee.load(ordering: .acquiring)
        guard word != 0, let raw = UnsafeRawPointer(bitPattern: word) else { return nil }
        return Unmanaged.fromOpaque(raw)
    }

    /// The index, built and published now if the dictionary is large and has none; nil for a small one. Two threads
    /// may build one at the same time: the first to publish wins, and the other's is freed.
    func builtIndex() -> Unmanaged<PlistKeyIndexBox>? {
        if let box = indexBox { return box }
        guard count > PlistDictionary.indexThreshold, let index = PlistKeyIndex(uniqueKeys: keyColumn) else { return nil }
        let fresh = Unmanaged.passRetained(PlistKeyIndexBox(index))
        let (published, current) = indexWord.pointee.compareExchange(
            expected: 0, desired: UInt(bitPattern: fresh.toOpaque()), ordering: .acquiringAndReleasing)
        if published { return fresh }
        fresh.release()
        return Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: current).unsafelyUnwrapped)
    }

    /// Holds `box` (or none) in place of the current index. Only on a uniquely referenced buffer, or a new one: no
    /// other thread can be reading it.
    func setIndex(_ box: PlistKeyIndexBox?) {
        let word = box.map { UInt(bitPattern: Unmanaged.passRetained($0).toOpaque()) } ?? 0
        let old = indexWord.pointee.exchange(word, ordering: .releasing)
        if old != 0 { Unmanaged<PlistKeyIndexBox>.fromOpaque(UnsafeRawPointer(bitPattern: old).unsafelyUnwrapped).release() }
    }

    /// The last key was appended (uniquely referenced buffer): an index is kept up to date — in place when no other
    /// buffer shares it, else as a copy — and none is built (the first lookup will).
    func indexAppended() {
        guard let box = indexBox else { return }
        // The buffer's own reference, taken out of the word, so that a box no other buffer holds is seen as unique.
        var held = box.takeRetainedValue()
        indexWord.pointee.store(0, ordering: .relaxed)
        if isKnownUniquelyReferenced(&held) {
            held.index.appended(keyColumn)
            setIndex(held)
        } else {
            var copy = held.index
            copy.appended(keyColumn)
            setIndex(PlistKeyIndexBox(copy))
        }
    }

    /// Positions changed (uniquely referenced buffer): the index is dropped, and the next lookup builds a new one.
    func dropIndex() { setIndex(nil) }

    /// The position of `key` among the live entries, compared by exact scalars.
    func position(of key: String) -> Int? {
        let n = Int(headerPointer.pointee.count)
        if n > PlistDictionary.indexThreshold, let box = builtIndex() {
            return box._withUnsafeGuaranteedRef { $0.index.position(of: key, in: keyColumn) }
        }
        let e = entries
        var i = 0
        while i < n {
            if exactKeyBytesEqual(e[i].key, key) { return i }
            i += 1
        }
        return nil
    }

    deinit {
        _ = withUnsafeMutablePointers { h, e in e.deinitialize(count: Int(h.pointee.count)) }
        // The last reference is gone: no other thread can be publishing an index.
        let word = indexWord.pointee.load(ordering: .relaxed)
        if word != 0 { Unmanaged<PlistKeyIndexBox>.fromOpaque(UnsafeRawPointer(bitPattern: word).unsafelyUnwrapped).release() }
    }
}

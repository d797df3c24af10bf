/// An insertion-ordered property-list dictionary with O(1) lookup.
///
/// Keys compare by exact Unicode scalars, so `"é"` (U+00E9) and `"e\u{301}"` are two keys, as in Core Foundation.
/// Setting an existing key replaces its value in place (the key keeps its position): "last wins".
public struct PlistDictionary: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    public typealias Element = (key: String, value: PlistValue)
    public typealias Index = Int

    @usableFromInline var _keys: [String]
    @usableFromInline var _values: [PlistValue]
    // Built only past a small size. A hashed lookup is faster from ~8 keys (about 10 ns against 30–55 ns for a
    // scan of 8–16), but each table costs an allocation and hashing every key while parsing: measured, 16 parses
    // binary config files ~6% faster than 12 (and 8 slower still) with XML unchanged, and uses a little less memory.
    @usableFromInline var _index: PlistKeyIndex?

    @usableFromInline static var indexThreshold: Int { 16 }

    /// An empty dictionary.
    public init() { _keys = []; _values = []; _index = nil }

    /// An empty dictionary with room for `minimumCapacity` entries.
    public init(minimumCapacity: Int) {
        self.init()
        _keys.reserveCapacity(minimumCapacity)
        _values.reserveCapacity(minimumCapacity)
    }

    public init(dictionaryLiteral elements: (String, PlistValue)...) {
        self.init(minimumCapacity: elements.count)
        for (k, v) in elements { self[k] = v }
    }

    /// Builds a dictionary from pairs in order; later duplicates replace earlier values.
    public init<S: Sequence>(_ pairs: S) where S.Element == (String, PlistValue) {
        self.init()
        for (k, v) in pairs { self[k] = v }
    }

    // MARK: Collection

    public var startIndex: Int { 0 }
    public var endIndex: Int { _keys.count }
    public subscript(position: Int) -> Element { (_keys[position], _values[position]) }

    /// The keys in insertion order.
    public var keys: [String] { _keys }
    /// The values in insertion order.
    public var values: [PlistValue] { _values }

    // MARK: Lookup

    /// The position of `key`, compared by exact scalars.
    public func index(forKey key: String) -> Int? {
        if let index = _index { return index.position(of: key, in: _keys) }
        var i = 0
        while i < _keys.count {
            if exactKeyBytesEqual(_keys[i], key) { return i }
            i += 1
        }
        return nil
    }

    /// The value for `key`; setting `nil` removes the entry.
    public subscript(key: String) -> PlistValue? {
        get { index(forKey: key).map { _values[$0] } }
        set {
            if let newValue { updateValue(newValue, forKey: key) } else { removeValue(forKey: key) }
        }
    }

    /// Sets `value` for `key`, returning the previous value. A new key goes to the end.
    @discardableResult
    public mutating func updateValue(_ value: PlistValue, forKey key: String) -> PlistValue? {
        if let i = index(forKey: key) {
            let old = _values[i]
            _values[i] = value
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

    @usableFromInline mutating func appendNew(_ key: String, _ value: PlistValue) {
        _keys.append(key)
        _values.append(value)
        if _index != nil {
            _index!.appended(_keys)
        } else if _keys.count > Self.indexThreshold {
            _index = PlistKeyIndex(uniqueKeys: _keys)
        }
    }

    /// Removes `key`, returning its value. O(n): later entries shift down to keep the order.
    @discardableResult
    public mutating func removeValue(forKey key: String) -> PlistValue? {
        guard let i = index(forKey: key) else { return nil }
        _keys.remove(at: i)
        let old = _values.remove(at: i)
        if _index != nil { rebuildIndex() }
        return old
    }

    /// Inserts at `position`, or replaces the value in place when the key exists.
    public mutating func insert(_ value: PlistValue, forKey key: String, at position: Int) {
        if let i = index(forKey: key) { _values[i] = value; return }
        _keys.insert(key, at: position)
        _values.insert(value, at: position)
        rebuildIndex()
    }

    /// Rebuilds the index after positions shifted (or drops it when the dictionary got small).
    @usableFromInline mutating func rebuildIndex() {
        _index = nil  // releases a uniquely held table before the new one is allocated
        if _keys.count > Self.indexThreshold { _index = PlistKeyIndex(uniqueKeys: _keys) }
    }

    /// The entries sorted by key in Core Foundation's order (UTF-16 code units).
    public func sortedByUTF16Keys() -> [Element] {
        let order = _keys.indices.sorted { PlistKeyOrder.utf16Less(_keys[$0], _keys[$1]) }
        return order.map { (_keys[$0], _values[$0]) }
    }

    // MARK: Equality

    /// Two dictionaries are equal when they hold the same keys (exact scalars) with equal values, in any order.
    public static func == (lhs: PlistDictionary, rhs: PlistDictionary) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for i in 0..<lhs._keys.count {
            guard let j = rhs.index(forKey: lhs._keys[i]), rhs._values[j] == lhs._values[i] else { return false }
        }
        return true
    }

    public func hash(into hasher: inout Hasher) {
        // Order-independent, to agree with ==.
        var acc = 0
        for i in 0..<_keys.count {
            var h = Hasher()
            h.combine(ExactKey(_keys[i]))
            h.combine(_values[i])
            acc ^= h.finalize()
        }
        hasher.combine(_keys.count)
        hasher.combine(acc)
    }
}

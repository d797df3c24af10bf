#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The keys a `PlistKeyIndex` positions refer to: `count` strings `stride` bytes apart — a `[String]` buffer, or the
/// key fields of a dictionary's entries. Valid only while the memory it points into is.
struct KeyColumn {
    let base: UnsafeRawPointer?
    let stride: Int
    let count: Int

    init(_ keys: UnsafeBufferPointer<String>) {
        base = UnsafeRawPointer(keys.baseAddress)
        stride = MemoryLayout<String>.stride
        count = keys.count
    }

    init(_ entries: UnsafeBufferPointer<PlistDictionary.Entry>) {
        // The key is an entry's first stored property, so key i sits at the start of entry i.
        base = entries.baseAddress.map { UnsafeRawPointer(UnsafeMutablePointer(mutating: $0).pointer(to: \.key)!) }
        stride = MemoryLayout<PlistDictionary.Entry>.stride
        count = entries.count
    }

    /// Key `i`, borrowed in place (no retain and release per comparison).
    @inline(__always) subscript(i: Int) -> String {
        unsafeAddress { base.unsafelyUnwrapped.advanced(by: i &* stride).assumingMemoryBound(to: String.self) }
    }
}

/// The lookup index of a large `PlistDictionary`: an open-addressing table (linear probing, power-of-two capacity
/// at least twice the key count) of positions into the dictionary's keys.
///
/// Each 32-bit slot holds `position + 1` in its low `log2(capacity)` bits (0 marks an empty slot) and the top bits
/// of the key's hash above them, so most mismatches are rejected without touching the key string. The table is a
/// `ContiguousArray`, so dictionaries (and the binary reader's key cache) share it by copy-on-write: a shared index
/// is copied, never changed in place.
@usableFromInline
struct PlistKeyIndex: Sendable {
    @usableFromInline var slots: ContiguousArray<UInt32>

    /// Dictionaries this large or larger keep no index (their positions would not fit the slots) and `build` does
    /// not check them for duplicates: the key array alone would take 32 GB, far past any reader's caps. Lookups in
    /// them still work, by scanning.
    static let maxKeyCount = Int(Int32.max)

    /// Random per process, so keys crafted to collide in one run do not collide in the next.
    static let seed = UInt64.random(in: .min ... .max)

    /// An index over `keys`, which must be distinct (exact scalars); nil if there are too many.
    init?(uniqueKeys keys: KeyColumn) {
        guard keys.count < Self.maxKeyCount else { return nil }
        slots = Self.emptySlots(for: keys.count)
        slots.withUnsafeMutableBufferPointer { s in
            for i in 0..<keys.count { Self.place(i, hash: Self.hash(keys[i]), in: s) }
        }
    }

    /// An empty index with room for `count` keys before `appended` has to rebuild it.
    init(reservingCapacityFor count: Int) {
        slots = Self.emptySlots(for: min(count, Self.maxKeyCount - 1))
    }

    /// An index over `keys`, which must be distinct (exact scalars); nil if there are too many.
    init?(uniqueKeys keys: [String]) {
        guard let index = keys.withUnsafeBufferPointer({ PlistKeyIndex(uniqueKeys: KeyColumn($0)) }) else { return nil }
        self = index
    }

    /// An index over `keys`, or the position of the first key equal to an earlier one (then no index is built).
    static func build(_ keys: KeyColumn) -> (index: PlistKeyIndex?, firstDuplicate: Int?) {
        guard keys.count < maxKeyCount else { return (nil, nil) }
        var slots = emptySlots(for: keys.count)
        let duplicate = slots.withUnsafeMutableBufferPointer { s -> Int? in
            for i in 0..<keys.count {
                let h = hash(keys[i])
                if find(keys[i], hash: h, in: UnsafeBufferPointer(s), keys: keys) != nil { return i }
                place(i, hash: h, in: s)
            }
            return nil
        }
        if let duplicate { return (nil, duplicate) }
        return (PlistKeyIndex(slots: slots), nil)
    }

    /// For keys about to become a dictionary's: the index its size calls for (past `PlistDictionary.indexThreshold`)
    /// and the position of the first key equal to an earlier one (then no index). Short key lists are checked pair
    /// by pair, which beats hashing them.
    static func forDictionary(_ keys: KeyColumn) -> (index: PlistKeyIndex?, firstDuplicate: Int?) {
        if keys.count > PlistDictionary.indexThreshold { return build(keys) }
        var j = 1
        while j < keys.count {
            for k in 0..<j where exactKeyBytesEqual(keys[k], keys[j]) { return (nil, j) }
            j += 1
        }
        return (nil, nil)
    }

    /// `forDictionary` over an array of keys.
    static func forDictionary(_ keys: [String]) -> (index: PlistKeyIndex?, firstDuplicate: Int?) {
        keys.withUnsafeBufferPointer { forDictionary(KeyColumn($0)) }
    }

    private init(slots: ContiguousArray<UInt32>) { self.slots = slots }

    /// The position of `key` in `keys` (the keys this index was built over).
    @inline(__always)
    func position(of key: String, in keys: KeyColumn) -> Int? {
        position(of: key, hash: Self.hash(key), in: keys)
    }

    /// `position(of:in:)` with the key's `hash` already computed.
    @inline(__always)
    func position(of key: String, hash h: UInt64, in keys: KeyColumn) -> Int? {
        slots.withUnsafeBufferPointer { s in Self.find(key, hash: h, in: s, keys: keys) }
    }

    /// Records that the last of `keys` (absent before) was appended; grows the table when it gets half full.
    mutating func appended(_ keys: KeyColumn) {
        appended(keys, hash: Self.hash(keys[keys.count - 1]))
    }

    /// `appended(_:)` with the new key's `hash` already computed.
    mutating func appended(_ keys: KeyColumn, hash h: UInt64) {
        let count = keys.count
        if count * 2 > slots.count {
            self = PlistKeyIndex(uniqueKeys: keys) ?? self
            return
        }
        slots.withUnsafeMutableBufferPointer { Self.place(count - 1, hash: h, in: $0) }
    }

    // MARK: Table

    private static func emptySlots(for count: Int) -> ContiguousArray<UInt32> {
        var capacity = 16
        while capacity < count * 2 { capacity *= 2 }
        return ContiguousArray(repeating: 0, count: capacity)
    }

    @inline(__always)
    static func find(_ key: String, hash h: UInt64, in s: UnsafeBufferPointer<UInt32>, keys: KeyColumn) -> Int? {
        let mask = s.count &- 1
        let positionBits = UInt32(truncatingIfNeeded: mask)
        let tag = UInt32(truncatingIfNeeded: h &>> 32) & ~positionBits
        var b = Int(truncatingIfNeeded: h) & mask
        while true {
            let v = s[b]
            if v == 0 { return nil }
            if v & ~positionBits == tag {
                let p = Int(v & positionBits) &- 1
                if exactKeyBytesEqual(keys[p], key) { return p }
            }
            b = (b &+ 1) & mask
        }
    }

    @inline(__always)
    private static func place(_ position: Int, hash h: UInt64, in s: UnsafeMutableBufferPointer<UInt32>) {
        let mask = s.count &- 1
        let positionBits = UInt32(truncatingIfNeeded: mask)
        let tag = UInt32(truncatingIfNeeded: h &>> 32) & ~positionBits
        var b = Int(truncatingIfNeeded: h) & mask
        while s[b] != 0 { b = (b &+ 1) & mask }
        s[b] = tag | UInt32(truncatingIfNeeded: position &+ 1)
    }

    // MARK: Hash

    /// A seeded hash of the key's UTF-8 bytes (multiply-fold mixing, after wyhash's design).
    @usableFromInline @inline(__always)
    static func hash(_ key: String) -> UInt64 {
        if let h = key.utf8.withContiguousStorageIfAvailable({ hash(bytes: UnsafeRawBufferPointer($0)) }) { return h }
        var copy = key
        return copy.withUTF8 { hash(bytes: UnsafeRawBufferPointer($0)) }
    }

    @usableFromInline @inline(__always)
    static func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let r = a.multipliedFullWidth(by: b)
        return r.high ^ r.low
    }

    @usableFromInline
    static func hash(bytes: UnsafeRawBufferPointer) -> UInt64 {
        let k0: UInt64 = 0xA076_1D64_78BD_642F, k1: UInt64 = 0xE703_7ED1_A0B4_28DB, k2: UInt64 = 0x8EBC_6AF0_9C88_C6E3
        let n = bytes.count
        var h = seed ^ mix(seed ^ k0, UInt64(truncatingIfNeeded: n) ^ k1)
        var a: UInt64 = 0, b: UInt64 = 0
        guard n > 0, let p = bytes.baseAddress else { return mix(h ^ k2, k1) }
        if n <= 16 {
            if n >= 8 {
                a = p.loadUnaligned(as: UInt64.self)
                b = p.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
            } else if n >= 4 {
                a = UInt64(p.loadUnaligned(as: UInt32.self))
                b = UInt64(p.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self))
            } else {
                let first = UInt64(p.load(as: UInt8.self))
                let middle = UInt64(p.load(fromByteOffset: n >> 1, as: UInt8.self))
                let last = UInt64(p.load(fromByteOffset: n - 1, as: UInt8.self))
                a = first << 16 | middle << 8 | last
            }
        } else {
            var i = 0
            while i + 16 < n {
                h = mix(p.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ k1,
                        p.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self) ^ h)
                i += 16
            }
            a = p.loadUnaligned(fromByteOffset: n - 16, as: UInt64.self)
            b = p.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
        }
        return mix(k1 ^ UInt64(truncatingIfNeeded: n), mix(a ^ k1, b ^ h))
    }
}

/// Equality by exact UTF-8 bytes (not canonical equivalence): identical representations first, then length, then
/// the bytes. The first two checks are inline (they settle most comparisons in a scan); the byte comparison is not.
@usableFromInline @inline(__always)
func exactKeyBytesEqual(_ a: String, _ b: String) -> Bool {
    #if _pointerBitWidth(_64)
    // The same storage (keys shared by the binary reader) or equal small strings: the same bytes.
    if unsafeBitCast(a, to: (UInt64, UInt64).self) == unsafeBitCast(b, to: (UInt64, UInt64).self) { return true }
    #endif
    guard a.utf8.count == b.utf8.count else { return false }
    return sameUTF8Bytes(a, b)
}

/// Whether two strings of the same UTF-8 length hold the same bytes.
@usableFromInline
func sameUTF8Bytes(_ a: String, _ b: String) -> Bool {
    let n = a.utf8.count
    if let r = a.utf8.withContiguousStorageIfAvailable({ pa in
        b.utf8.withContiguousStorageIfAvailable { pb in
            guard n > 0, let x = UnsafeRawPointer(pa.baseAddress), let y = UnsafeRawPointer(pb.baseAddress) else {
                return true
            }
            return SWAR.equal(x, y, count: n)
        }
    }), let r { return r }
    return a.utf8.elementsEqual(b.utf8)
}

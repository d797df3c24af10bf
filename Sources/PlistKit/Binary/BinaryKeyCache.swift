/// Recognises a dictionary whose key references are, byte for byte, those of a recently read one — a run of records
/// with the same keys, as writers unique key strings — so the sink can reuse that dictionary's checked keys and index
/// (`PlistEventSink.rememberKeys`) instead of receiving, checking and hashing them per record. The cache holds where
/// the key references lie; the sink holds the keys, in the same slot.
///
/// In documents whose dictionaries rarely share key sets (configuration files) every lookup misses and costs a hash
/// and an entry; after 256 misses in a row the cache only probes one dictionary in 64 until it hits again.
struct BinaryKeyCache {
    struct Entry {
        var keyRefs: Int
        var count: Int
    }

    private var entries: [Entry?] = Array(repeating: nil, count: 256)
    private var backoff = CacheBackoff()

    /// The slot of the entry whose key references are byte-for-byte those at `keyRefs`, if any, and whether the
    /// cache was consulted (only then should the dictionary be stored after a miss).
    @inline(__always) mutating func lookup(base: UnsafeRawPointer, keyRefs: Int, count: Int, refSize: Int) -> (slot: Int?, probed: Bool) {
        guard count >= 2, backoff.allows() else { return (nil, false) }
        if let slot = match(base: base, keyRefs: keyRefs, count: count, refSize: refSize) {
            backoff.hit()
            return (slot, true)
        }
        backoff.miss()
        return (nil, true)
    }

    @inline(__always) private func match(base: UnsafeRawPointer, keyRefs: Int, count: Int, refSize: Int) -> Int? {
        let slot = Self.slot(base, keyRefs, count, refSize)
        guard let entry = entries[slot], entry.count == count else { return nil }
        if entry.keyRefs == keyRefs { return slot }
        return SWAR.equal(base + entry.keyRefs, base + keyRefs, count: count * refSize) ? slot : nil
    }

    /// Remembers where the key references of a dictionary whose lookup missed lie; returns the slot, where the sink
    /// keeps the keys.
    mutating func store(base: UnsafeRawPointer, keyRefs: Int, count: Int, refSize: Int) -> Int {
        let slot = Self.slot(base, keyRefs, count, refSize)
        entries[slot] = Entry(keyRefs: keyRefs, count: count)
        return slot
    }

    /// A slot chosen from a hash of all the key-reference bytes (records with optional keys make many similar
    /// sequences, so the first and last references alone collide).
    @inline(__always) private static func slot(_ base: UnsafeRawPointer, _ keyRefs: Int, _ count: Int, _ refSize: Int) -> Int {
        var h = UInt64(count) &* 0x9E37_79B9_7F4A_7C15
        let length = count * refSize
        var i = 0
        while i + 8 <= length {
            h = (h ^ base.loadUnaligned(fromByteOffset: keyRefs + i, as: UInt64.self)) &* 0xFF51_AFD7_ED55_8CCD
            h ^= h >> 32
            i += 8
        }
        while i < length {
            h = (h ^ UInt64(base.load(fromByteOffset: keyRefs + i, as: UInt8.self))) &* 0xC4CE_B9FE_1A85_EC53
            i += 1
        }
        h ^= h >> 29
        return Int(truncatingIfNeeded: h) & 255
    }
}

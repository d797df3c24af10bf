#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The keys an `EventLog` has met, each kept once, so that a key record names one by number: a document's records
/// repeat a few keys millions of times, and a numbered key takes two or three bytes of the log instead of its text
/// and comes back as the same `String` (no decoding, and a `KeyOrderMemo` recognises the set).
///
/// Bounded (a few MiB at most, strings included): at most `maxKeys` keys of up to `maxKeyLength` bytes, `maxBytes` in
/// all; past that a key is logged as text. Keys are found by a seeded hash of their bytes (`BinaryKeyHash`, a random
/// seed per table, so a document cannot be made of keys that collide) in an open-addressing table.
struct EventLogKeys {
    private(set) var keys: [String] = []
    /// Key `i`'s bytes are `bytes[starts[i] ..< starts[i] + lengths[i]]`.
    private var bytes: [UInt8] = []
    private var starts: [Int32] = []
    private var lengths: [Int32] = []
    private var hashes: [UInt64] = []
    /// Per slot: 0 for none, else 1 + a key's number. A power of two, at least twice the keys.
    private var slots: [Int32] = []
    private let seed = UInt64.random(in: .min ... .max)

    static var maxKeys: Int { 1 << 14 }
    static var maxBytes: Int { 1 << 20 }
    static var maxKeyLength: Int { 64 }

    /// The number of the key whose UTF-8 is `utf8` (`key`), added if new and there is room; nil if not kept.
    @inline(__always)
    mutating func number(of utf8: UnsafeRawBufferPointer, _ key: String) -> Int? {
        let n = utf8.count
        guard n <= Self.maxKeyLength else { return nil }
        let h = BinaryKeyHash.bytes(utf8.baseAddress, n, seed)
        if !slots.isEmpty {
            let mask = slots.count &- 1
            var i = Int(truncatingIfNeeded: h) & mask
            while true {
                let s = slots[i]
                if s == 0 { break }
                let k = Int(s) &- 1
                if hashes[k] == h, Int(lengths[k]) == n, equal(k, utf8) { return k }
                i = (i &+ 1) & mask
            }
        }
        return add(utf8, key, hash: h)
    }

    @inline(__always) private func equal(_ k: Int, _ utf8: UnsafeRawBufferPointer) -> Bool {
        guard utf8.count > 0 else { return true }
        return bytes.withUnsafeBufferPointer { memcmp($0.baseAddress! + Int(starts[k]), utf8.baseAddress!, utf8.count) == 0 }
    }

    @inline(never) private mutating func add(_ utf8: UnsafeRawBufferPointer, _ key: String, hash: UInt64) -> Int? {
        guard keys.count < Self.maxKeys, bytes.count + utf8.count <= Self.maxBytes else { return nil }
        if 2 * (keys.count + 1) > slots.count { rehash(to: max(1024, 2 * slots.count)) }
        let k = keys.count
        keys.append(key)
        starts.append(Int32(bytes.count))
        lengths.append(Int32(utf8.count))
        bytes.append(contentsOf: utf8)
        hashes.append(hash)
        place(k)
        return k
    }

    private mutating func rehash(to count: Int) {
        slots = [Int32](repeating: 0, count: count)
        for k in 0..<keys.count { place(k) }
    }

    private mutating func place(_ k: Int) {
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: hashes[k]) & mask
        while slots[i] != 0 { i = (i + 1) & mask }
        slots[i] = Int32(k + 1)
    }
}

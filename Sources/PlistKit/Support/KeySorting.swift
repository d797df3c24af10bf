/// Fast dictionary-key ordering for writers, on the keys' UTF-8 bytes.
enum KeySorting {
    /// Core Foundation's `CFStringCompare` order (UTF-16 code units), decided on UTF-8 bytes.
    ///
    /// UTF-8 byte order is code-point order, which equals UTF-16 order except that a character above U+FFFF (UTF-8
    /// lead byte F0–F4, a surrogate D800–DBFF in UTF-16) sorts *before* U+E000…U+FFFF (lead byte EE or EF).
    @inline(__always)
    static func utf16Less(_ a: String, _ b: String) -> Bool {
        let r = a.utf8.withContiguousStorageIfAvailable { pa in
            b.utf8.withContiguousStorageIfAvailable { pb in utf16Less(pa, pb) }
        }
        if let r, let r { return r }
        return a.utf16.lexicographicallyPrecedes(b.utf16)
    }

    /// `utf16Less` on UTF-8 buffers that hold valid UTF-8.
    @inline(__always)
    static func utf16Less(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        let n = min(a.count, b.count)
        var i = 0
        while i < n && a[i] == b[i] { i += 1 }
        if i == n { return a.count < b.count }
        let x = a[i], y = b[i]
        // Differing lead bytes of a character (continuation bytes never differ first across a lead-byte change).
        if x & 0xC0 != 0x80 {
            if x >= 0xF0 && (y == 0xEE || y == 0xEF) { return true }
            if y >= 0xF0 && (x == 0xEE || x == 0xEF) { return false }
        }
        return x < y
    }

    /// Fills `order` (room for `keys.count` positions, uninitialized) with the positions of `keys` in `less` order,
    /// keys that are not less one than the other in their own order (both sorts are stable); returns whether that
    /// differs from their own order.
    @inline(__always) @discardableResult
    static func sort(_ keys: KeyColumn, by less: (String, String) -> Bool, into order: UnsafeMutableBufferPointer<Int>) -> Bool {
        let n = keys.count
        identity(order)
        guard n > 1 else { return false }
        var inOrder = true
        for i in 1..<n where !less(keys[i - 1], keys[i]) {
            inOrder = false
            break
        }
        if inOrder { return false }
        if n <= 24 {
            // Insertion sort: short dictionaries dominate plists.
            for i in 1..<n {
                let v = order[i]
                var j = i
                while j > 0 && less(keys[v], keys[order[j - 1]]) {
                    order[j] = order[j - 1]
                    j -= 1
                }
                order[j] = v
            }
        } else {
            var all = UnsafeMutableBufferPointer(rebasing: order[0..<n])
            all.sort { less(keys[$0], keys[$1]) }
        }
        return true
    }

    /// Fills `order` with 0, 1, 2, …
    @inline(__always)
    static func identity(_ order: UnsafeMutableBufferPointer<Int>) {
        for i in 0..<order.count { order.initializeElement(at: i, to: i) }
    }
}

/// The key orders of dictionaries sorted recently (in one walk of a tree, or one stream), so that a dictionary whose
/// keys are those of one sorted before — the same `String` values bit for bit, as the records of one key set are (a
/// binary reader's shared key set, an encoder's template) and as equal short keys are (stored inline) — takes its
/// order without comparing a key.
///
/// A slot holds the `String`s it was stored with, not only their bits: while it holds them their storage cannot be
/// freed and reused for other text, so equal bits always mean the same keys — also for keys made and dropped one
/// dictionary at a time (a stream's replay), not only for a tree that outlives the walk.
struct KeyOrderMemo {
    private struct Slot {
        /// The keys stored (kept alive: see above).
        var keys: [String] = []
        var order: [Int] = []
        /// When the slot was last used (`clock`), to replace the older of a pair.
        var used: UInt64 = 0
    }

    /// Two-way set associative, chosen by key count and first key: records of two shapes (an optional key present or
    /// not) and the dictionaries nested in them keep a slot each. Allocated by the first order stored, so a walk that
    /// stores none (most small files') pays nothing for it.
    private var slots: [Slot] = []
    private var clock: UInt64 = 0
    /// Counts the orders stored since the last hit (a miss is a store).
    private var backoff = CacheBackoff()
    /// Larger dictionaries are sorted each time (rare, and comparing their keys' bits costs more).
    private static var maxKeys: Int { 64 }

    /// Fills `order` (room for `keys.count` positions, uninitialized) as `KeySorting.sort` does.
    ///
    /// Only an order that differs from the keys' own is stored (checking that keys are in order costs about what a
    /// hit does), and after 256 stores in a row without a hit only one in 64: a configuration file's dictionaries
    /// rarely share keys, and storing each one's order made writing them 11 % slower (measured).
    mutating func sort(_ keys: KeyColumn, by less: (String, String) -> Bool, into order: UnsafeMutableBufferPointer<Int>) {
        let n = keys.count
        guard n > 1, n <= Self.maxKeys else {
            KeySorting.sort(keys, by: less, into: order)
            return
        }
        clock &+= 1
        let pair = Self.pair(keys)
        for s in pair..<pair + 2 where s < slots.count && Self.matches(slots[s].keys, keys) {
            _ = order.initialize(from: slots[s].order)
            slots[s].used = clock
            backoff.hit()
            return
        }
        guard KeySorting.sort(keys, by: less, into: order), backoff.allows() else { return }
        backoff.miss()
        if slots.isEmpty { slots = Array(repeating: Slot(), count: 16) }
        let s = slots[pair].used <= slots[pair + 1].used ? pair : pair + 1
        slots[s].used = clock
        slots[s].keys.removeAll(keepingCapacity: true)
        for i in 0..<n { slots[s].keys.append(keys[i]) }
        slots[s].order.removeAll(keepingCapacity: true)
        slots[s].order.append(contentsOf: order)
    }

    /// Word `w` (0 or 1) of key `i`'s `String` value.
    @inline(__always) private static func word(_ keys: KeyColumn, _ i: Int, _ w: Int) -> UInt64 {
        keys.base.unsafelyUnwrapped.loadUnaligned(fromByteOffset: i &* keys.stride &+ 8 &* w, as: UInt64.self)
    }

    /// The first slot of the pair for `keys`.
    @inline(__always) private static func pair(_ keys: KeyColumn) -> Int {
        let h = (UInt64(keys.count) ^ word(keys, 0, 0) ^ word(keys, 0, 1) &* 31) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: h >> 61) &* 2
    }

    @inline(__always) private static func matches(_ stored: [String], _ keys: KeyColumn) -> Bool {
        guard stored.count == keys.count else { return false }
        return stored.withUnsafeBufferPointer { s in
            let held = KeyColumn(s)
            for i in 0..<keys.count where word(held, i, 0) != word(keys, i, 0) || word(held, i, 1) != word(keys, i, 1) {
                return false
            }
            return true
        }
    }
}

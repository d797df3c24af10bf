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

    /// The entries of `d` and their positions in the order a writer needs: UTF-16 key order when `sorted`, else
    /// insertion order. Calls `body` with them (without allocating for small dictionaries).
    @inline(__always)
    static func withOrder<R>(
        _ d: PlistDictionary, sorted: Bool,
        _ body: (UnsafeBufferPointer<PlistDictionary.Entry>, UnsafeBufferPointer<Int>) throws -> R
    ) rethrows -> R {
        try withOrder(d, sorted: sorted, by: utf16Less, body)
    }

    /// `withOrder` with another ordering (`less` must be a strict total order on distinct keys).
    @inline(__always)
    static func withOrder<R>(
        _ d: PlistDictionary, sorted: Bool, by less: (String, String) -> Bool,
        _ body: (UnsafeBufferPointer<PlistDictionary.Entry>, UnsafeBufferPointer<Int>) throws -> R
    ) rethrows -> R {
        try d.withEntries { entries in
            try withOrder(KeyColumn(entries), sorted: sorted, by: less) { try body(entries, $0) }
        }
    }

    @inline(__always)
    private static func withOrder<R>(
        _ keys: KeyColumn, sorted: Bool, by less: (String, String) -> Bool,
        _ body: (UnsafeBufferPointer<Int>) throws -> R
    ) rethrows -> R {
        let n = keys.count
        return try withUnsafeTemporaryAllocation(of: Int.self, capacity: n) { order in
            for i in 0..<n { order.initializeElement(at: i, to: i) }
            if sorted && n > 1 {
                var inOrder = true
                for i in 1..<n where !less(keys[i - 1], keys[i]) {
                    inOrder = false
                    break
                }
                if !inOrder {
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
                        var all = order
                        all.sort { less(keys[$0], keys[$1]) }
                    }
                }
            }
            return try body(UnsafeBufferPointer(order))
        }
    }
}

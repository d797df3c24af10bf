/// When a small cache stops paying: after 256 misses in a row it is used only one time in 64, until it hits again.
/// For caches that documents either feed well (records of one shape) or not at all (configuration files, whose
/// dictionaries rarely repeat), where each miss still costs a hash or a store.
struct CacheBackoff {
    private var missesInARow = 0
    private var skipped = 0

    /// Whether to use the cache this time.
    @inline(__always) mutating func allows() -> Bool {
        guard missesInARow >= 256 else { return true }
        skipped &+= 1
        return skipped & 63 == 0
    }

    @inline(__always) mutating func hit() { missesInARow = 0 }
    @inline(__always) mutating func miss() { missesInARow += 1 }
}

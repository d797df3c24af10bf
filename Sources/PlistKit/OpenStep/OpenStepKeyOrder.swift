/// Core Foundation's key order (UTF-16 code units) with a fast path over the UTF-8 bytes of native strings.
enum OpenStepKeyOrder {
    /// Same result as `PlistKeyOrder.utf16Less`. Byte order and UTF-16 order agree up to the first differing byte
    /// whenever one of the two differing bytes is ASCII (an ASCII unit is below every other unit); only two
    /// non-ASCII bytes need the general comparison.
    @inline(__always)
    static func utf16Less(_ a: String, _ b: String) -> Bool {
        // 0: less, 1: not less, 2: undecided (two non-ASCII bytes, or a string without contiguous UTF-8).
        var verdict: UInt8 = 2
        _ = a.utf8.withContiguousStorageIfAvailable { pa in
            _ = b.utf8.withContiguousStorageIfAvailable { pb in
                let n = min(pa.count, pb.count)
                var k = 0
                while k < n && pa[k] == pb[k] { k += 1 }
                if k == n {
                    verdict = pa.count < pb.count ? 0 : 1
                } else if pa[k] < 0x80 || pb[k] < 0x80 {
                    verdict = pa[k] < pb[k] ? 0 : 1
                }
            }
        }
        if verdict != 2 { return verdict == 0 }
        return PlistKeyOrder.utf16Less(a, b)
    }
}

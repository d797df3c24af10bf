/// Equality by exact UTF-8 bytes (not canonical equivalence), with the cheap length test first.
@inline(__always) func exactKeyEqual(_ a: String, _ b: String) -> Bool {
    #if _pointerBitWidth(_64)
    // The same representation (a literal compared with itself, equal small strings) is the same bytes.
    if unsafeBitCast(a, to: (UInt64, UInt64).self) == unsafeBitCast(b, to: (UInt64, UInt64).self) { return true }
    #endif
    guard a.utf8.count == b.utf8.count else { return false }
    // withUTF8 gives small strings a stack copy and native ones their storage: no per-byte iterator.
    var a = a
    var b = b
    return a.withUTF8 { pa in
        b.withUTF8 { pb in
            var i = 0
            let n = pa.count
            while i < n {
                if pa[i] != pb[i] { return false }
                i += 1
            }
            return true
        }
    }
}

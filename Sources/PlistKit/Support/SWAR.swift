/// Eight-bytes-at-a-time tests ("SIMD within a register") for the text scanners' fast paths.
enum SWAR {
    static let ones: UInt64 = 0x0101_0101_0101_0101
    static let high: UInt64 = 0x8080_8080_8080_8080

    /// Whether some byte of `x` is zero.
    @inline(__always) static func hasZero(_ x: UInt64) -> Bool { (x &- ones) & ~x & high != 0 }

    /// Whether some byte of `x` equals `c`.
    @inline(__always) static func hasByte(_ x: UInt64, _ c: UInt8) -> Bool { hasZero(x ^ (ones &* UInt64(c))) }

    /// Whether some byte of `x` is below `c` (`c` ≤ 0x80); bytes ≥ 0x80 never count.
    @inline(__always) static func hasLess(_ x: UInt64, _ c: UInt8) -> Bool { (x &- ones &* UInt64(c)) & ~x & high != 0 }

    /// Whether some byte of `x` is one a JSON string cannot hold raw: a control character, `"` or `\`
    /// (and `/`, which `JSONSerialization` escapes, when `slash`).
    @inline(__always) static func hasJSONSpecial(_ x: UInt64, slash: Bool) -> Bool {
        hasLess(x, 0x20) || hasByte(x, 0x22) || hasByte(x, 0x5C) || (slash && hasByte(x, 0x2F))
    }

    /// Whether the `count` bytes at `x` and at `y` are the same, eight at a time (short runs — keys, key
    /// references, scalars — where a call to `memcmp` costs more than the comparison).
    @inline(__always) static func equal(_ x: UnsafeRawPointer, _ y: UnsafeRawPointer, count n: Int) -> Bool {
        var i = 0
        while i + 8 <= n {
            if x.loadUnaligned(fromByteOffset: i, as: UInt64.self) != y.loadUnaligned(fromByteOffset: i, as: UInt64.self) {
                return false
            }
            i += 8
        }
        while i < n {
            if x.load(fromByteOffset: i, as: UInt8.self) != y.load(fromByteOffset: i, as: UInt8.self) { return false }
            i += 1
        }
        return true
    }

    /// Exact per-byte masks (0x80 in each byte that matches, no false positives from borrows), for tests that must
    /// exclude some bytes from a class.
    /// Bytes of `x` equal to `c`.
    @inline(__always) static func maskEqual(_ x: UInt64, _ c: UInt8) -> UInt64 {
        let y = x ^ (ones &* UInt64(c))
        return ~(((y & ~high) &+ ~high) | y) & high
    }

    /// Bytes of `x` below `c` (`c` ≤ 0x80).
    @inline(__always) static func maskLess(_ x: UInt64, _ c: UInt8) -> UInt64 {
        ~(((x & ~high) &+ ones &* UInt64(0x80 - c)) | x) & high
    }
}

/// Byte classes and the hex-data decoding loop of the OpenStep reader, free of the reader's state so the compiler keeps
/// them in registers.
enum OpenStepBytes {
    /// `[A-Za-z0-9_$/:.-]`, as a bit set over ASCII.
    @inline(__always)
    static func isUnquoted(_ c: UInt8) -> Bool {
        // 0–63: '$'(36) '-'(45) '.'(46) '/'(47) '0'–'9'(48–57) ':'(58); 64–127: 'A'–'Z', '_'(95), 'a'–'z'.
        let low: UInt64 = (1 << 36) | (1 << 45) | (1 << 46) | (1 << 47) | (0x3FF << 48) | (1 << 58)
        let high: UInt64 = (0x3FF_FFFF << 1) | (1 << 31) | (0x3FF_FFFF << 33)
        if c < 64 { return low >> c & 1 != 0 }
        if c < 128 { return high >> (c - 64) & 1 != 0 }
        return false
    }

    @inline(__always)
    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x41...0x46: return c - 0x41 + 10
        case 0x61...0x66: return c - 0x61 + 10
        default: return nil
        }
    }


    /// The decoding loop of `decodeHex`, free of `self` so the compiler keeps everything in registers. Returns the
    /// bytes written, or the offset of the first fault: a lone digit (odd count) or a byte that is not a hex digit.
    static func hexPairs(
        _ p: UnsafePointer<UInt8>, from: Int, to end: Int, atEndOfInput: Bool, into out: UnsafeMutablePointer<UInt8>
    ) -> (Int, Int?) {
        hexTable.withUnsafeBufferPointer { table in
            hexPairs(p, from: from, to: end, atEndOfInput: atEndOfInput, into: out, table: table.baseAddress.unsafelyUnwrapped)
        }
    }

    /// Hex digit values, 0xFF for other bytes: a table instead of comparisons, because random hex digits make the
    /// digit-or-letter branch unpredictable.
    static let hexTable: [UInt8] = (0..<256).map { nibble(UInt8($0)) }

    @inline(__always)
    static func hexPairs(
        _ p: UnsafePointer<UInt8>, from: Int, to end: Int, atEndOfInput: Bool, into out: UnsafeMutablePointer<UInt8>,
        table t: UnsafePointer<UInt8>
    ) -> (Int, Int?) {
        var o = 0
        var k = from
        while k < end {
            // Fast path: four pairs in a row, as writers group them.
            if k + 8 <= end {
                let a = t[Int(p[k])], b = t[Int(p[k + 1])], c = t[Int(p[k + 2])], d = t[Int(p[k + 3])]
                let e = t[Int(p[k + 4])], f = t[Int(p[k + 5])], g = t[Int(p[k + 6])], h = t[Int(p[k + 7])]
                if (a | b | c | d | e | f | g | h) < 16 {
                    out[o] = a << 4 | b
                    out[o + 1] = c << 4 | d
                    out[o + 2] = e << 4 | f
                    out[o + 3] = g << 4 | h
                    o += 4
                    k += 8
                    continue
                }
            }
            let ch = p[k]
            let hi = t[Int(ch)]
            if hi < 16 {
                guard k + 1 < end else {
                    if atEndOfInput { return (o, nil) }  // the missing '>' is the error to report
                    return (o, k)
                }
                let lo = t[Int(p[k + 1])]
                guard lo < 16 else {
                    let d = p[k + 1]
                    return (o, d == 0x20 || (d >= 0x09 && d <= 0x0D) || d == 0xE2 ? k : k + 1)
                }
                out[o] = hi << 4 | lo
                o += 1
                k += 2
            } else if ch == 0x20 || (ch >= 0x09 && ch <= 0x0D) {
                k += 1
            } else if ch == 0xE2, k + 2 < end, p[k + 1] == 0x80, p[k + 2] == 0xA8 || p[k + 2] == 0xA9 {
                k += 3
            } else {
                return (o, k)
            }
        }
        return (o, nil)
    }

    /// The value of a hex digit, or 0xFF.
    @inline(__always)
    static func nibble(_ c: UInt8) -> UInt8 {
        let d = c &- 0x30
        if d < 10 { return d }
        let l = (c | 0x20) &- 0x61
        return l < 6 ? l + 10 : 0xFF
    }
}

/// Strict UTF-8 checking (no overlong forms, surrogates or values above U+10FFFF), used only to pinpoint an error.
enum UTF8Validation {
    /// The offset of the first byte that does not start a valid UTF-8 sequence, or nil when all of `b` is valid.
    static func firstInvalidOffset(_ b: UnsafeRawBufferPointer) -> Int? {
        var i = 0
        let n = b.count
        while i < n {
            let c = b[i]
            if c < 0x80 { i += 1; continue }
            let length: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xBF
            switch c {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return i
            }
            guard i + length <= n else { return i }
            let c1 = b[i + 1]
            guard c1 >= low, c1 <= high else { return i }
            for k in 2..<max(2, length) where b[i + k] & 0xC0 != 0x80 { return i }
            i += length
        }
        return nil
    }
}

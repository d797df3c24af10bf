/// UTF-8 validation that reports where the first invalid sequence starts (Unicode's well-formed table, D92).
enum UTF8Validation {
    /// The offset of the first byte of the first ill-formed sequence, or nil when `b` is valid UTF-8.
    static func firstInvalidOffset(_ b: UnsafeRawBufferPointer) -> Int? {
        let n = b.count
        var i = 0
        while i < n {
            let c = b[i]
            if c < 0x80 {
                i += 1
                continue
            }
            var len = 0
            var lo: UInt8 = 0x80, hi: UInt8 = 0xBF
            switch c {
            case 0xC2...0xDF: len = 2
            case 0xE0: len = 3; lo = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: len = 3
            case 0xED: len = 3; hi = 0x9F
            case 0xF0: len = 4; lo = 0x90
            case 0xF1...0xF3: len = 4
            case 0xF4: len = 4; hi = 0x8F
            default: return i
            }
            guard i + len <= n else { return i }
            guard b[i + 1] >= lo && b[i + 1] <= hi else { return i }
            for k in 2..<len where b[i + k] & 0xC0 != 0x80 { return i }
            i += len
        }
        return nil
    }
}

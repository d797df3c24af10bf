/// Standard-alphabet base64 (RFC 4648 §4, `=` padding) encoding over raw bytes, table-driven.
enum Base64 {
    static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Characters produced for `byteCount` input bytes.
    @inline(__always) static func encodedLength(_ byteCount: Int) -> Int { (byteCount + 2) / 3 * 4 }

    /// Encodes `input` into `out`, which must have room for `encodedLength(input.count)` bytes; returns that length.
    @inline(__always)
    static func encode(_ input: UnsafeRawBufferPointer, into out: UnsafeMutablePointer<UInt8>) -> Int {
        alphabet.withUnsafeBufferPointer { table in
            let n = input.count
            var i = 0
            var o = 0
            while i + 3 <= n {
                let b0 = Int(input[i]), b1 = Int(input[i + 1]), b2 = Int(input[i + 2])
                out[o] = table[b0 >> 2]
                out[o + 1] = table[(b0 & 0x03) << 4 | b1 >> 4]
                out[o + 2] = table[(b1 & 0x0F) << 2 | b2 >> 6]
                out[o + 3] = table[b2 & 0x3F]
                i += 3
                o += 4
            }
            let rest = n - i
            if rest == 1 {
                let b0 = Int(input[i])
                out[o] = table[b0 >> 2]
                out[o + 1] = table[(b0 & 0x03) << 4]
                out[o + 2] = 0x3D
                out[o + 3] = 0x3D
                o += 4
            } else if rest == 2 {
                let b0 = Int(input[i]), b1 = Int(input[i + 1])
                out[o] = table[b0 >> 2]
                out[o + 1] = table[(b0 & 0x03) << 4 | b1 >> 4]
                out[o + 2] = table[(b1 & 0x0F) << 2]
                out[o + 3] = 0x3D
                o += 4
            }
            return o
        }
    }

    /// The base64 text of `input` as bytes.
    static func encode(_ input: UnsafeRawBufferPointer) -> [UInt8] {
        let count = encodedLength(input.count)
        return [UInt8](unsafeUninitializedCapacity: count) { buf, initialized in
            initialized = count == 0 ? 0 : encode(input, into: buf.baseAddress!)
        }
    }
}

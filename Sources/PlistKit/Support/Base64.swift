/// Standard-alphabet base64 (RFC 4648, the base64 alphabet with `=` padding) encoding over raw bytes, table-driven.
enum Base64 {
    static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Characters produced for `byteCount` input bytes.
    @inline(__always) static func encodedLength(_ byteCount: Int) -> Int { (byteCount + 2) / 3 * 4 }

    /// Encodes `input` into `out`, which must have room for `encodedLength(input.count)` bytes; returns that length.
    @inline(__always)
    static func encode(_ input: UnsafeRawBufferPointer, into out: UnsafeMutablePointer<UInt8>) -> Int {
        alphabet.withUnsafeBufferPointer { encode(input, into: out, table: $0) }
    }

    @inline(__always)
    private static func encode(
        _ input: UnsafeRawBufferPointer, into out: UnsafeMutablePointer<UInt8>, table: UnsafeBufferPointer<UInt8>
    ) -> Int {
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

    /// Bytes needed by `encodeLines`.
    static func linesLength(_ byteCount: Int, width: Int, indent: Int) -> Int {
        let chunk = width / 4 * 3
        let lines = (byteCount + chunk - 1) / chunk
        return encodedLength(byteCount) + lines * (indent + 1)
    }

    /// Encodes `input` as lines of at most `width` characters (a multiple of 4), each preceded by `indent` tabs and
    /// followed by a newline, into `out` (room for `linesLength` bytes); returns the length written.
    static func encodeLines(
        _ input: UnsafeRawBufferPointer, width: Int, indent: Int, into out: UnsafeMutablePointer<UInt8>
    ) -> Int {
        let chunk = width / 4 * 3
        let total = input.count
        return alphabet.withUnsafeBufferPointer { table in
            var offset = 0
            var o = 0
            while offset < total {
                let n = min(chunk, total - offset)
                if indent > 0 {
                    (out + o).initialize(repeating: 0x09, count: indent)
                    o += indent
                }
                o += encode(UnsafeRawBufferPointer(rebasing: input[offset..<(offset + n)]), into: out + o, table: table)
                out[o] = 0x0A
                o += 1
                offset += n
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

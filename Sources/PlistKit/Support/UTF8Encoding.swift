/// UTF-8 encoding of single scalars, for readers that decode escapes (`\U…`, `\u…`, `&#…;`) or wider encodings.
enum UTF8Encoding {
    /// Appends the UTF-8 form of scalar value `s` (the caller has checked it is a valid scalar, or U+FFFD).
    @inline(__always)
    static func append(_ s: UInt32, to out: inout [UInt8]) {
        switch s {
        case 0..<0x80:
            out.append(UInt8(s))
        case 0x80..<0x800:
            out.append(UInt8(0xC0 | s >> 6))
            out.append(UInt8(0x80 | s & 0x3F))
        case 0x800..<0x10000:
            out.append(UInt8(0xE0 | s >> 12))
            out.append(UInt8(0x80 | s >> 6 & 0x3F))
            out.append(UInt8(0x80 | s & 0x3F))
        default:
            out.append(UInt8(0xF0 | s >> 18))
            out.append(UInt8(0x80 | s >> 12 & 0x3F))
            out.append(UInt8(0x80 | s >> 6 & 0x3F))
            out.append(UInt8(0x80 | s & 0x3F))
        }
    }
}

extension String {
    /// The string of UTF-8 `bytes`, ill-formed sequences repaired as `String(decoding:as:)` repairs them. Up to 15
    /// bytes are copied straight into a small (inline) string, whose ASCII check is one test of its two words;
    /// `String(decoding:as:)` first runs its general validation over them, and readers make most of their strings
    /// (keys, short values) this size: measured, 3–4 % of a binary parse of the shared harness's array-M file.
    @inline(__always)
    init(readerUTF8 bytes: UnsafeRawBufferPointer) {
        let count = bytes.count
        guard count <= 15, let source = bytes.baseAddress else {
            self.init(decoding: bytes, as: UTF8.self)
            return
        }
        self.init(unsafeUninitializedCapacity: count) { out in
            out.baseAddress!.initialize(from: source.assumingMemoryBound(to: UInt8.self), count: count)
            return count
        }
    }
}

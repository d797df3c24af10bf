/// UTF-16 and UTF-32 input, recognised by byte-order mark or by the zero bytes around the first `<`, is converted to
/// UTF-8 here rather than by libxml2: libxml2 2.9 does not recognise UTF-32 byte-order marks, reports malformed
/// UTF-16 without a usable position (and through its global error channel), and error offsets can then be mapped back
/// to the caller's bytes exactly.
struct XMLReaderInputEncoding {
    enum Width: Int { case utf16 = 2, utf32 = 4 }

    let width: Width
    let bigEndian: Bool
    /// Bytes of byte-order mark skipped at the start.
    let bomLength: Int

    /// The wide encoding of `b`, or nil for UTF-8 and other byte encodings (left to libxml2).
    static func detect(_ b: UnsafeRawBufferPointer) -> XMLReaderInputEncoding? {
        let n = b.count
        if n >= 4 {
            if b[0] == 0x00, b[1] == 0x00, b[2] == 0xFE, b[3] == 0xFF { return .init(width: .utf32, bigEndian: true, bomLength: 4) }
            if b[0] == 0xFF, b[1] == 0xFE, b[2] == 0x00, b[3] == 0x00 { return .init(width: .utf32, bigEndian: false, bomLength: 4) }
            if b[0] == 0x00, b[1] == 0x00, b[2] == 0x00, b[3] == 0x3C { return .init(width: .utf32, bigEndian: true, bomLength: 0) }
            if b[0] == 0x3C, b[1] == 0x00, b[2] == 0x00, b[3] == 0x00 { return .init(width: .utf32, bigEndian: false, bomLength: 0) }
        }
        if n >= 2 {
            if b[0] == 0xFE, b[1] == 0xFF { return .init(width: .utf16, bigEndian: true, bomLength: 2) }
            if b[0] == 0xFF, b[1] == 0xFE { return .init(width: .utf16, bigEndian: false, bomLength: 2) }
            if b[0] == 0x00, b[1] == 0x3C { return .init(width: .utf16, bigEndian: true, bomLength: 0) }
            if b[0] == 0x3C, b[1] == 0x00 { return .init(width: .utf16, bigEndian: false, bomLength: 0) }
        }
        return nil
    }

    /// The document as UTF-8 (without a byte-order mark). Lone surrogates, values above U+10FFFF and a truncated final
    /// code unit are `.encoding` errors at their byte offset.
    func utf8(_ b: UnsafeRawBufferPointer) throws -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(b.count)
        let unit = width.rawValue
        var i = bomLength
        func bad(_ what: String, _ at: Int) -> PlistError {
            let (line, column) = out.withUnsafeBytes { TextPosition.lineColumn(of: $0.count, in: $0) }
            return PlistError(.encoding, "\(what) at byte offset \(at)", format: .xml, offset: at, line: line, column: column)
        }
        while i < b.count {
            guard i + unit <= b.count else { throw bad("truncated \(width == .utf16 ? "UTF-16" : "UTF-32") code unit", i) }
            var scalar: UInt32
            if width == .utf32 {
                scalar = read32(b, i)
                guard scalar < 0xD800 || (scalar > 0xDFFF && scalar <= 0x10FFFF) else {
                    throw bad("invalid UTF-32 code point", i)
                }
                i += 4
            } else {
                let u = UInt32(read16(b, i))
                if u >= 0xD800 && u <= 0xDBFF {
                    guard i + 4 <= b.count else { throw bad("unpaired UTF-16 surrogate", i) }
                    let low = UInt32(read16(b, i + 2))
                    guard low >= 0xDC00 && low <= 0xDFFF else { throw bad("unpaired UTF-16 surrogate", i) }
                    scalar = 0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00)
                    i += 4
                } else {
                    guard u < 0xDC00 || u > 0xDFFF else { throw bad("unpaired UTF-16 surrogate", i) }
                    scalar = u
                    i += 2
                }
            }
            UTF8Encoding.append(scalar, to: &out)
        }
        return out
    }

    /// Maps an offset in the UTF-8 conversion back to an offset in the original bytes.
    func originalOffset(_ utf8Offset: Int, in converted: UnsafeRawBufferPointer) -> Int {
        var units = 0
        var i = 0
        let end = min(utf8Offset, converted.count)
        while i < end {
            let c = converted[i]
            if c & 0xC0 != 0x80 { units += (width == .utf16 && c >= 0xF0) ? 2 : 1 }
            i += 1
        }
        return bomLength + units * (width == .utf16 ? 2 : 4)
    }

    @inline(__always) private func read16(_ b: UnsafeRawBufferPointer, _ i: Int) -> UInt16 {
        bigEndian ? UInt16(b[i]) << 8 | UInt16(b[i + 1]) : UInt16(b[i + 1]) << 8 | UInt16(b[i])
    }

    @inline(__always) private func read32(_ b: UnsafeRawBufferPointer, _ i: Int) -> UInt32 {
        bigEndian
            ? UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
            : UInt32(b[i + 3]) << 24 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 1]) << 8 | UInt32(b[i])
    }


    /// The `encoding` named in the XML declaration of a byte-oriented document (after an optional UTF-8 byte-order
    /// mark), as written, or nil when there is no declaration or it names none.
    static func declaredEncoding(_ b: UnsafeRawBufferPointer) -> String? {
        guard let range = declaredEncodingRange(b) else { return nil }
        return String(decoding: UnsafeRawBufferPointer(rebasing: b[range]), as: UTF8.self)
    }

    /// Where the declared encoding's name lies in `b` (see `declaredEncoding`).
    static func declaredEncodingRange(_ b: UnsafeRawBufferPointer) -> Range<Int>? {
        var i = 0
        if b.count >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { i = 3 }
        guard starts(b, i, "<?xml") else { return nil }
        while i + 1 < b.count, !(b[i] == 0x3F && b[i + 1] == 0x3E) {  // up to "?>"
            if starts(b, i, "encoding") {
                i += 8
                while i < b.count, b[i] == 0x20 || b[i] == 0x3D || b[i] == 0x22 || b[i] == 0x27 || b[i] == 0x09 { i += 1 }
                let start = i
                while i < b.count, b[i] != 0x22, b[i] != 0x27, b[i] != 0x20, b[i] != 0x3F, i - start < 40 { i += 1 }
                return i > start ? start..<i : nil
            }
            i += 1
        }
        return nil
    }

    /// Whether `b[i...]` begins with `word`.
    static func starts(_ b: UnsafeRawBufferPointer, _ i: Int, _ word: StaticString) -> Bool {
        let count = word.utf8CodeUnitCount
        guard i + count <= b.count else { return false }
        return word.withUTF8Buffer { w in (0..<count).allSatisfy { b[i + $0] == w[$0] } }
    }
}

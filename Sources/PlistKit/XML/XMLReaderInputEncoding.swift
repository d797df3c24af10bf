/// The XML declaration as the readers see it before parsing, and how UTF-16 and UTF-32 documents are recognised:
/// by byte-order mark or by the zero bytes around the first `<` (`WideText`). They are converted to UTF-8 before
/// libxml2 sees them: libxml2 2.9 does not recognise UTF-32 byte-order marks, reports malformed UTF-16 without a
/// usable position (and through its global error channel), and error offsets can then be mapped back to the
/// caller's bytes exactly.
enum XMLReaderInputEncoding {
    /// The wide encoding of `b`, or nil for UTF-8 and other byte encodings (left to libxml2).
    static func detect(_ b: UnsafeRawBufferPointer) -> WideText? {
        WideText.detect(b, unmarkedFirst: { $0 == 0x3C })
    }

    /// The `encoding` named in the XML declaration of a byte-oriented document (after an optional UTF-8 byte-order
    /// mark and white space), as written, or nil when there is no declaration or it names none.
    static func declaredEncoding(_ b: UnsafeRawBufferPointer) -> String? {
        guard let range = declaredEncodingRange(b) else { return nil }
        return String(decoding: UnsafeRawBufferPointer(rebasing: b[range]), as: UTF8.self)
    }

    /// Where the declared encoding's name lies in `b` (see `declaredEncoding`).
    static func declaredEncodingRange(_ b: UnsafeRawBufferPointer) -> Range<Int>? {
        var i = 0
        if b.count >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { i = 3 }
        // White space before the declaration is repaired later (`XMLReaderProlog`); the encoding is read first.
        while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 }
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

/// UTF-16 and UTF-32 text, recognised by its byte-order mark or, without one, by the zero bytes around a first ASCII
/// character (the encoding rule of RFC 4627 and Appendix F of XML 1.0), and converted to UTF-8 so the byte-oriented
/// readers can parse it; error offsets in the conversion map back to the caller's bytes.
struct WideText {
    enum Width: Int { case utf16 = 2, utf32 = 4 }

    let width: Width
    let bigEndian: Bool
    /// Bytes of byte-order mark skipped at the start.
    let bomLength: Int

    /// The wide encoding of `b`: from a UTF-32 or UTF-16 byte-order mark, else from zero bytes around a first ASCII
    /// character that `unmarkedFirst` accepts. Nil for UTF-8 and other byte encodings.
    static func detect(_ b: UnsafeRawBufferPointer, unmarkedFirst: (UInt8) -> Bool) -> WideText? {
        let n = b.count
        func ascii(_ c: UInt8) -> Bool { c != 0 && c < 0x80 && unmarkedFirst(c) }
        if n >= 4 {
            if b[0] == 0x00, b[1] == 0x00, b[2] == 0xFE, b[3] == 0xFF { return .init(width: .utf32, bigEndian: true, bomLength: 4) }
            if b[0] == 0xFF, b[1] == 0xFE, b[2] == 0x00, b[3] == 0x00 { return .init(width: .utf32, bigEndian: false, bomLength: 4) }
            if b[0] == 0x00, b[1] == 0x00, b[2] == 0x00, ascii(b[3]) { return .init(width: .utf32, bigEndian: true, bomLength: 0) }
            if ascii(b[0]), b[1] == 0x00, b[2] == 0x00, b[3] == 0x00 { return .init(width: .utf32, bigEndian: false, bomLength: 0) }
        }
        if n >= 2 {
            if b[0] == 0xFE, b[1] == 0xFF { return .init(width: .utf16, bigEndian: true, bomLength: 2) }
            if b[0] == 0xFF, b[1] == 0xFE { return .init(width: .utf16, bigEndian: false, bomLength: 2) }
            if b[0] == 0x00, ascii(b[1]) { return .init(width: .utf16, bigEndian: true, bomLength: 0) }
            if ascii(b[0]), b[1] == 0x00 { return .init(width: .utf16, bigEndian: false, bomLength: 0) }
        }
        return nil
    }

    /// The text as UTF-8 (without a byte-order mark). Lone surrogates, values above U+10FFFF and a truncated final
    /// code unit are `.encoding` errors of `format` at their byte offset.
    func utf8(_ b: UnsafeRawBufferPointer, format: PlistFormat) throws -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(b.count)
        var i = bomLength
        while i < b.count {
            guard let (scalar, next) = scalar(b, at: i) else {
                let (line, column) = out.withUnsafeBytes { TextPosition.lineColumn(of: $0.count, in: $0) }
                let what = i + width.rawValue > b.count
                    ? "truncated \(width == .utf16 ? "UTF-16" : "UTF-32") code unit"
                    : width == .utf16 ? "unpaired UTF-16 surrogate" : "invalid UTF-32 code point"
                throw PlistError(.encoding, "\(what) at byte offset \(i)", format: format, offset: i, line: line, column: column)
            }
            UTF8Encoding.append(scalar, to: &out)
            i = next
        }
        return out
    }

    /// `utf8(_:format:)`, recorded in `map` as a step whose offsets lead back to `b`.
    func utf8(_ b: UnsafeRawBufferPointer, format: PlistFormat, appendingTo map: inout OffsetMap) throws -> [UInt8] {
        let converted = try utf8(b, format: format)
        let scan = ScanPosition()
        map.append(.convertsEncoding, output: converted) { offset in
            converted.withUnsafeBytes { self.originalOffset(offset, in: $0, resuming: scan) }
        }
        return converted
    }

    /// As much of the start of the text as converts cleanly, in UTF-8, up to `limit` bytes of input: enough to see
    /// what a document begins with.
    func utf8Prefix(_ b: UnsafeRawBufferPointer, limit: Int) -> [UInt8] {
        var out = [UInt8]()
        var i = bomLength
        let end = min(b.count, limit)
        while i < end, let (scalar, next) = scalar(b, at: i) {
            UTF8Encoding.append(scalar, to: &out)
            i = next
        }
        return out
    }

    /// The scalar at byte `i` and where the next one starts, or nil when the code units there are not valid.
    private func scalar(_ b: UnsafeRawBufferPointer, at i: Int) -> (UInt32, Int)? {
        guard i + width.rawValue <= b.count else { return nil }
        if width == .utf32 {
            let scalar = read32(b, i)
            guard scalar < 0xD800 || (scalar > 0xDFFF && scalar <= 0x10FFFF) else { return nil }
            return (scalar, i + 4)
        }
        let u = UInt32(read16(b, i))
        if u >= 0xD800 && u <= 0xDBFF {
            guard i + 4 <= b.count else { return nil }
            let low = UInt32(read16(b, i + 2))
            guard low >= 0xDC00 && low <= 0xDFFF else { return nil }
            return (0x10000 + ((u - 0xD800) << 10) + (low - 0xDC00), i + 4)
        }
        guard u < 0xDC00 || u > 0xDFFF else { return nil }
        return (u, i + 2)
    }

    /// Maps an offset in the UTF-8 conversion back to an offset in the original bytes, going on from where `scan`
    /// stopped when the offset is not before it (the code units of the text before `scan.offset` are `scan.carried`).
    func originalOffset(_ utf8Offset: Int, in converted: UnsafeRawBufferPointer, resuming scan: ScanPosition = ScanPosition()) -> Int {
        let end = min(utf8Offset, converted.count)
        if end < scan.offset { scan.reset() }
        var units = scan.carried
        var i = scan.offset
        while i < end {
            let c = converted[i]
            if c & 0xC0 != 0x80 { units += (width == .utf16 && c >= 0xF0) ? 2 : 1 }
            i += 1
        }
        scan.offset = i
        scan.carried = units
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
}

/// XML declarations that libxml2 refuses and Core Foundation and libplist (mostly plistlib too) read, presented to
/// libxml2 in a form it accepts. Only the declaration and the white space before it change places; `originalOffset`
/// maps an offset in the repaired copy back to the caller's bytes, where the error's line and column are then
/// counted. The repairs:
/// - white space before `<?xml` (files assembled by scripts often start with a newline): the declaration is moved to
///   the start and the white space placed right after it;
/// - a version other than 1.x (`version="2.0"`), which libxml2 treats as fatal: it is read as `1.` followed by zeros
///   of the same width, as XML 1.0 asks of unknown 1.x versions;
/// - white space inside the quotes of the encoding name (`encoding=" UTF-8"`): the quotes move in to the name.
/// Anything else before or in the declaration (a comment, a second declaration, malformed attributes) is left for
/// libxml2 to reject, as the XML specification and plistlib do.
enum XMLReaderProlog {
    /// The repaired copy of a document.
    struct Repair {
        var bytes: [UInt8]
        /// Where the declaration starts in the copy (after a UTF-8 byte-order mark), where it started in the
        /// original, and where it ends in both.
        let start: Int
        let declStart: Int
        let declEnd: Int

        /// The offset in the original bytes of `offset` in `bytes`.
        func originalOffset(_ offset: Int) -> Int {
            let declLength = declEnd - declStart
            if offset >= start && offset < start + declLength { return offset + (declStart - start) }
            if offset >= start + declLength && offset < declEnd { return offset - declLength }
            return offset
        }
    }

    /// A copy of the byte-oriented document `b` with those repairs, or nil when it needs none.
    static func normalized(_ b: UnsafeRawBufferPointer) -> Repair? {
        var start = 0
        if b.count >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { start = 3 }
        var declStart = start
        while declStart < b.count, isSpace(b[declStart]) { declStart += 1 }
        guard XMLReaderInputEncoding.starts(b, declStart, "<?xml"), declStart + 5 < b.count, isSpace(b[declStart + 5])
        else { return nil }
        var declEnd = declStart + 5
        while declEnd + 1 < b.count, !(b[declEnd] == 0x3F && b[declEnd + 1] == 0x3E) { declEnd += 1 }
        guard declEnd + 1 < b.count else { return nil }
        declEnd += 2
        let version = versionDigits(b, from: declStart, to: declEnd)
        let encoding = paddedEncoding(b, from: declStart, to: declEnd)
        let moves = declStart > start
        guard moves || version != nil || encoding != nil else { return nil }
        var out = Array(b)
        let shift = declStart - start
        if moves {
            let declLength = declEnd - declStart
            for k in 0..<declLength { out[start + k] = b[declStart + k] }
            for k in 0..<shift { out[start + declLength + k] = b[start + k] }
        }
        if let version {
            let at = version.lowerBound - shift
            out[at] = 0x31  // "1"
            out[at + 1] = 0x2E  // "."
            for k in (at + 2)..<(at + version.count) { out[k] = 0x30 }
        }
        if let (quotes, name) = encoding {
            // Move the quotes in to the name: `=" UTF-8 "` becomes `= "UTF-8" `, white space XML allows.
            let q = b[quotes.lowerBound]
            for k in quotes { out[k - shift] = 0x20 }
            out[name.lowerBound - 1 - shift] = q
            for k in name { out[k - shift] = b[k] }
            out[name.upperBound - shift] = q
        }
        return Repair(bytes: out, start: start, declStart: declStart, declEnd: declEnd)
    }

    /// When the encoding value has white space inside its quotes (`encoding=" UTF-8"`, which Core Foundation and
    /// libplist read and libxml2 does not): the range from the opening to the closing quote, and the name's range.
    private static func paddedEncoding(_ b: UnsafeRawBufferPointer, from: Int, to: Int) -> (quotes: ClosedRange<Int>, name: Range<Int>)? {
        var i = from + 5
        while i + 8 <= to, !XMLReaderInputEncoding.starts(b, i, "encoding") { i += 1 }
        guard i + 8 <= to else { return nil }
        guard let (open, close) = quotedValue(b, after: i + 8, to: to) else { return nil }
        var nameStart = open + 1
        while nameStart < close, isSpace(b[nameStart]) { nameStart += 1 }
        var nameEnd = close
        while nameEnd > nameStart, isSpace(b[nameEnd - 1]) { nameEnd -= 1 }
        guard nameEnd > nameStart, nameStart > open + 1 || nameEnd < close else { return nil }
        return (open...close, nameStart..<nameEnd)
    }

    /// The range of the version value in `b[from..<to]` when it is digits, a dot and digits with a major version
    /// other than 1 (which libxml2 rejects), and at least three characters long; nil otherwise.
    private static func versionDigits(_ b: UnsafeRawBufferPointer, from: Int, to: Int) -> Range<Int>? {
        var i = from + 5
        while i < to, isSpace(b[i]) { i += 1 }
        guard XMLReaderInputEncoding.starts(b, i, "version") else { return nil }
        guard let (open, j) = quotedValue(b, after: i + 7, to: to) else { return nil }
        let valueStart = open + 1
        let value = valueStart..<j
        guard value.count >= 3, let dot = value.first(where: { b[$0] == 0x2E }), dot > valueStart, dot < j - 1,
              value.allSatisfy({ $0 == dot || (b[$0] >= 0x30 && b[$0] <= 0x39) }),
              !(dot == valueStart + 1 && b[valueStart] == 0x31) else { return nil }
        return value
    }

    /// The positions of the opening and closing quotes of the value that follows an attribute name ending at
    /// `after` (white space and `=` between), within `b[..<to]`.
    private static func quotedValue(_ b: UnsafeRawBufferPointer, after: Int, to: Int) -> (Int, Int)? {
        var i = after
        while i < to, isSpace(b[i]) || b[i] == 0x3D { i += 1 }
        guard i < to, b[i] == 0x22 || b[i] == 0x27 else { return nil }
        var close = i + 1
        while close < to, b[close] != b[i] { close += 1 }
        return close < to ? (i, close) : nil
    }

    /// Overwrites the declared encoding name of a document already converted to UTF-8, whose declaration libxml2 is
    /// told to ignore but still parses, with letters it accepts (`ISO-8859-1:1987` has a `:` XML does not allow).
    static func sanitizeEncodingName(_ b: inout [UInt8]) {
        b.withUnsafeMutableBytes { raw in
            guard let value = XMLReaderInputEncoding.declaredEncodingRange(UnsafeRawBufferPointer(raw)) else { return }
            for i in value { raw[i] = 0x58 }  // "X"
        }
    }

    @inline(__always) private static func isSpace(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D
    }
}

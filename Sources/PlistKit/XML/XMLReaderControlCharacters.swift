/// Raw C0 control characters (U+0000…U+0008, U+000B, U+000C, U+000E…U+001F) in UTF-8 documents.
///
/// They are not XML characters, but Core Foundation writes them unescaped inside strings and reads them back, and so
/// does libplist; Python's plistlib rejects them. So that every document CF writes can be read, each such byte is
/// swapped, before libxml2 sees it, for a private-use stand-in (U+10FF00 + the byte, four bytes of UTF-8), and the
/// stand-ins are swapped back in element text. Outside text (in a tag name, say) a stand-in is still an error. A
/// document that already contains U+10FF00…U+10FF1F is left alone (and its control characters rejected), so the
/// swap can never be confused with real text.
///
/// Carriage returns get the same treatment outside markup, so that text keeps CR and CR LF exactly as Core
/// Foundation writes and reads them (XML end-of-line handling would turn them into LF, and our own output would not
/// read back unchanged). A stand-in for CR between elements counts as white space.
enum XMLReaderControlCharacters {
    /// The UTF-8 lead bytes shared by every stand-in: F4 8F BC, then 0x80 + the control byte.
    private static let lead: (UInt8, UInt8, UInt8) = (0xF4, 0x8F, 0xBC)

    @inline(__always)
    private static func isControl(_ c: UInt8) -> Bool {
        c < 0x20 && c != 0x09 && c != 0x0A && c != 0x0D
    }

    /// The stand-in for CR, which between elements is white space.
    static let carriageReturnStandIn: (UInt8, UInt8, UInt8, UInt8) = (0xF4, 0x8F, 0xBC, 0x8D)

    /// Whether `b` (UTF-8, or declared as such) has control characters to stand in for, and no stand-ins already.
    /// `pages`, when `b` are a file mapping's, get the pages the scan has passed back every few MiB (the parse
    /// faults them in again, and gives them back again: `InputPages.startOver`).
    static func applies(_ b: UnsafeRawBufferPointer, declaredEncodingIgnored: Bool, pages: InputPages? = nil) -> Bool {
        var found = false
        var i = 0
        let n = b.count
        // The scan goes a stretch at a time, so the pages behind it can be given back.
        let stretch = 4 << 20
        var stretchEnd = pages == nil ? n : min(n, stretch)
        defer { pages?.startOver() }
        // Every document pays for this scan: skip eight bytes at a time while none is a control character other
        // than tab and LF (indentation and line ends are everywhere) or a stand-in's lead byte.
        while i < n {
            // Thirty-two bytes a test where they can, then eight.
            while i + 32 <= stretchEnd, lookMask(b.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                | lookMask(b.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self))
                | lookMask(b.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self))
                | lookMask(b.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self)) == 0 { i += 32 }
            while i + 8 <= stretchEnd, !mayNeedALook(b.loadUnaligned(fromByteOffset: i, as: UInt64.self)) { i += 8 }
            if stretchEnd < n, i + 8 > stretchEnd {
                pages?.passed(offset: i)
                stretchEnd = min(n, stretchEnd + stretch)
                continue
            }
            guard i < n else { break }
            let c = b[i]
            if isControl(c) || c == 0x0D || isNoncharacter(b, i) {
                found = true
            } else if c == lead.0, i + 2 < n, b[i + 1] == lead.1, b[i + 2] == lead.2 {
                return false
            }
            i += 1
        }
        return found && (declaredEncodingIgnored || declaresUTF8OrNothing(b))
    }

    /// Whether some byte of `word` is a control character other than tab and LF, or 0xEF or above (a stand-in's lead
    /// byte F4 and U+FFFE/U+FFFF's EF among them; the bytes of F0–FF that are neither get a look they did not need).
    /// Each test is exact per byte (no borrow crosses a byte: the sums are of seven-bit values): fifteen operations,
    /// where four exact byte-equality masks took about thirty-five (measured: the scan was 6 % of the instructions of
    /// an XML parse of `plistbench codable`'s records).
    @inline(__always)
    static func mayNeedALook(_ word: UInt64) -> Bool { lookMask(word) != 0 }

    /// 0x80 in each byte of `word` that `mayNeedALook` looks for.
    @inline(__always)
    private static func lookMask(_ word: UInt64) -> UInt64 {
        let low = word & ~SWAR.high
        let below20 = ~(low &+ SWAR.ones &* 0x60) & ~word
        let tabOrLF = (low &+ SWAR.ones &* (0x80 - 0x09)) & ~(low &+ SWAR.ones &* (0x80 - 0x0B))
        let aboveEE = (low &+ SWAR.ones &* (0x80 - 0x6F)) & word
        return (below20 & ~tabOrLF | aboveEE) & SWAR.high
    }

    /// Whether `b[i...]` starts with U+FFFE or U+FFFF (EF BF BE / EF BF BF), which XML forbids even as references
    /// but CF writes raw and reads back; they get stand-ins too (U+10FF20, U+10FF21).
    @inline(__always)
    private static func isNoncharacter(_ b: UnsafeRawBufferPointer, _ i: Int) -> Bool {
        b[i] == 0xEF && i + 2 < b.count && b[i + 1] == 0xBF && (b[i + 2] == 0xBE || b[i + 2] == 0xBF)
    }

    /// The document with every control byte, and every CR in character data inside the root element (text and
    /// CDATA), replaced by its stand-in. CRs in markup, the prolog and the epilog stay: there they are white space.
    static func substitute(_ b: UnsafeRawBufferPointer) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(b.count + 64)
        let n = b.count
        var depth = 0
        var i = 0
        func copy(until end: Int, crIsText: Bool) {
            while i < min(end, n) {
                let c = b[i]
                if isControl(c) || (crIsText && c == 0x0D) {
                    out.append(lead.0); out.append(lead.1); out.append(lead.2); out.append(0x80 + c)
                } else if isNoncharacter(b, i) {
                    out.append(lead.0); out.append(lead.1); out.append(lead.2); out.append(0xA0 + (b[i + 2] - 0xBE))
                    i += 3
                    continue
                } else {
                    out.append(c)
                }
                i += 1
            }
        }
        func find(_ terminator: StaticString, from start: Int) -> Int {
            terminator.withUTF8Buffer { t in
                var j = start
                while j + t.count <= n {
                    if b[j] == t[0], (1..<t.count).allSatisfy({ b[j + $0] == t[$0] }) { return j + t.count }
                    j += 1
                }
                return n
            }
        }
        while i < n {
            guard b[i] == 0x3C else {
                copy(until: i + 1, crIsText: depth > 0)
                continue
            }
            let next = i + 1 < n ? b[i + 1] : 0
            if next == 0x3F {
                copy(until: find("?>", from: i + 2), crIsText: false)
            } else if next == 0x21, XMLReaderInputEncoding.starts(b, i, "<!--") {
                copy(until: find("-->", from: i + 4), crIsText: false)
            } else if next == 0x21, XMLReaderInputEncoding.starts(b, i, "<![CDATA[") {
                copy(until: i + 9, crIsText: false)
                copy(until: find("]]>", from: i), crIsText: depth > 0)
            } else if next == 0x21 {
                copy(until: find(">", from: i + 2), crIsText: false)
            } else {
                // A start or end tag: up to the '>' that is not inside a quoted attribute value.
                var j = i + 1
                var quote: UInt8 = 0
                while j < n {
                    let c = b[j]
                    if quote != 0 { if c == quote { quote = 0 } } else if c == 0x22 || c == 0x27 { quote = c } else if c == 0x3E { break }
                    j += 1
                }
                if next == 0x2F { depth -= 1 } else if j < n, b[j - 1] != 0x2F { depth += 1 }
                copy(until: j + 1, crIsText: false)
            }
        }
        return out
    }

    /// Swaps stand-ins in element text back to the control bytes they replaced.
    static func restore(_ text: inout [UInt8]) {
        guard text.contains(lead.0) else { return }
        var out = [UInt8]()
        out.reserveCapacity(text.count)
        var i = 0
        while i < text.count {
            if text[i] == lead.0, i + 3 < text.count, text[i + 1] == lead.1, text[i + 2] == lead.2,
               text[i + 3] >= 0x80, text[i + 3] < 0xA2 {
                if text[i + 3] < 0xA0 {
                    out.append(text[i + 3] - 0x80)
                } else {
                    out.append(0xEF); out.append(0xBF); out.append(0xBE + (text[i + 3] - 0xA0))
                }
                i += 4
            } else {
                out.append(text[i])
                i += 1
            }
        }
        text = out
    }

    /// Maps an offset in the substituted document back to the original (a stand-in is three bytes longer than the
    /// control byte it replaced, one byte longer than a noncharacter).
    static func originalOffset(_ offset: Int, in substituted: UnsafeRawBufferPointer, resuming scan: ScanPosition = ScanPosition()) -> Int {
        let end = min(offset, substituted.count)
        if end < scan.offset { scan.reset() }
        var extra = scan.carried
        var i = scan.offset
        while i < end {
            if i + 3 < substituted.count, substituted[i] == lead.0, substituted[i + 1] == lead.1,
               substituted[i + 2] == lead.2 {
                extra += substituted[i + 3] >= 0xA0 ? 1 : 3
                i += 4
            } else {
                i += 1
            }
        }
        scan.offset = i
        scan.carried = extra
        return offset - extra
    }

    /// No `encoding=` in the XML declaration, or one naming UTF-8 (any case, with or without the hyphen).
    private static func declaresUTF8OrNothing(_ b: UnsafeRawBufferPointer) -> Bool {
        guard let name = XMLReaderInputEncoding.declaredEncoding(b) else { return true }
        return ["UTF-8", "UTF8"].contains(name.uppercased())
    }
}

internal import CLibXML2

/// Where libxml2's parser is in the input: the cursor arithmetic the SAX callbacks need for positions.
///
/// Offsets are in libxml2's UTF-8 buffer, which is the parsed bytes themselves unless libxml2 transcodes (then the
/// reader uses libxml2's own line and column, and `xmlByteConsumed`).
struct XMLCursor {
    let ctxt: xmlParserCtxtPtr

    /// The parser's current byte offset: in SAX2 start- and end-element callbacks, just past the tag.
    var offset: Int {
        guard let input = ctxt.pointee.input, let cur = input.pointee.cur, let base = input.pointee.base else { return 0 }
        return Int(input.pointee.consumed) + (cur - base)
    }

    /// Walks back from `offset` (inside or just after a tag) to that tag's `<`; attribute values cannot contain `<`.
    func tagStart(_ offset: Int) -> Int {
        guard let input = ctxt.pointee.input, let base = input.pointee.base, let end = input.pointee.end else { return offset }
        let local = offset - Int(input.pointee.consumed)
        guard end > base, local >= 0, local <= end - base else { return offset }
        var p = base + min(local, end - base - 1)
        while p > base, p.pointee != 0x3C { p -= 1 }
        return p.pointee == 0x3C ? Int(input.pointee.consumed) + (p - base) : offset
    }

    /// The offset of `bytes[i]` when libxml2 hands text straight from its input buffer, else the cursor.
    func textOffset(_ bytes: UnsafePointer<xmlChar>, _ i: Int) -> Int {
        guard let input = ctxt.pointee.input, let base = input.pointee.base, let end = input.pointee.end,
              bytes >= base, bytes < end else { return offset }
        return Int(input.pointee.consumed) + (bytes - base) + i
    }

    /// Whether the cursor has reached the end of the input.
    var atEndOfInput: Bool {
        guard let input = ctxt.pointee.input, let cur = input.pointee.cur, let end = input.pointee.end else { return true }
        return cur >= end
    }

    /// Whether the cursor (after white space) is at the start of another element.
    var secondRootAhead: Bool {
        guard let input = ctxt.pointee.input, var p = input.pointee.cur, let end = input.pointee.end else { return false }
        while p < end, p.pointee == 0x20 || p.pointee == 0x0A || p.pointee == 0x09 || p.pointee == 0x0D { p += 1 }
        guard p + 1 < end, p.pointee == 0x3C else { return false }
        let next = (p + 1).pointee
        return next != 0x21 && next != 0x3F && next != 0x2F
    }

    /// Whether the next byte is `[`: in the SAX2 `internalSubset` callback (after `<!DOCTYPE name` and any external
    /// identifier and white space), the start of an internal subset.
    var atInternalSubset: Bool {
        guard let input = ctxt.pointee.input, let cur = input.pointee.cur, let end = input.pointee.end else { return false }
        return cur < end && cur.pointee == 0x5B
    }

    /// Whether libxml2 converts the input to UTF-8 itself (its positions are then the reliable ones).
    var isTranscoding: Bool {
        ctxt.pointee.input?.pointee.buf?.pointee.encoder != nil
    }
}

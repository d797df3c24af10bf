/// Line and token helpers over a text document's bytes, for laying out edits: where a line starts, its
/// indentation, what lies between tokens. Positions are byte offsets; lines end at LF, CR or CR LF.
struct TextBytes {
    let bytes: UnsafeBufferPointer<UInt8>
    let isXML: Bool

    var count: Int { bytes.count }

    @inline(__always)
    static func isBlank(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 }

    /// The first byte of the line holding `p`.
    func lineStart(_ p: Int) -> Int {
        var i = min(p, count)
        while i > 0, bytes[i - 1] != 0x0A, bytes[i - 1] != 0x0D { i -= 1 }
        return i
    }

    /// The line break (or the end) at or after `p`.
    func lineEnd(_ p: Int) -> Int {
        var i = p
        while i < count, bytes[i] != 0x0A, bytes[i] != 0x0D { i += 1 }
        return i
    }

    /// Just past the line break at `p` (which `lineEnd` returned); `p` at the end.
    func afterLineBreak(_ p: Int) -> Int {
        guard p < count else { return p }
        if bytes[p] == 0x0D, p + 1 < count, bytes[p + 1] == 0x0A { return p + 2 }
        return p + 1
    }

    /// Whether only blanks precede `p` on its line.
    func isFirstOnLine(_ p: Int) -> Bool {
        var i = p
        while i > 0 {
            let c = bytes[i - 1]
            if c == 0x0A || c == 0x0D { return true }
            if !Self.isBlank(c) { return false }
            i -= 1
        }
        return true
    }

    /// Whether only blanks follow `p` up to the end of its line.
    func isLastOnLine(_ p: Int) -> Bool {
        var i = p
        while i < count {
            let c = bytes[i]
            if c == 0x0A || c == 0x0D { return true }
            if !Self.isBlank(c) { return false }
            i += 1
        }
        return true
    }

    /// The blanks that start the line holding `p`.
    func indent(of p: Int) -> [UInt8] {
        let s = lineStart(p)
        var e = s
        while e < count, Self.isBlank(bytes[e]) { e += 1 }
        return Array(bytes[s..<e])
    }

    /// Whether `range` holds a line break.
    func hasLineBreak(_ range: Range<Int>) -> Bool {
        for i in range where bytes[i] == 0x0A || bytes[i] == 0x0D { return true }
        return false
    }

    /// The document's line break: CR LF when its first line ends so, else LF.
    var lineBreak: [UInt8] {
        let e = lineEnd(0)
        if e < count, bytes[e] == 0x0D { return e + 1 < count && bytes[e + 1] == 0x0A ? [0x0D, 0x0A] : [0x0D] }
        return [0x0A]
    }

    /// The position of the next token at or after `p` (white space and comments skipped: `/* */` and `//` in
    /// OpenStep, `<!-- -->` in XML), or `count`.
    func skipTrivia(_ p: Int) -> Int {
        var i = p
        while i < count {
            let c = bytes[i]
            if c == 0x20 || (c >= 0x09 && c <= 0x0D) {
                i += 1
            } else if !isXML, c == 0x2F, i + 1 < count, bytes[i + 1] == 0x2A {
                i += 2
                while i + 1 < count, !(bytes[i] == 0x2A && bytes[i + 1] == 0x2F) { i += 1 }
                i = min(count, i + 2)
            } else if !isXML, c == 0x2F, i + 1 < count, bytes[i + 1] == 0x2F {
                i = lineEnd(i)
            } else if !isXML, c == 0xE2, i + 2 < count, bytes[i + 1] == 0x80, bytes[i + 2] == 0xA8 || bytes[i + 2] == 0xA9 {
                i += 3
            } else if isXML, c == 0x3C, i + 3 < count, bytes[i + 1] == 0x21, bytes[i + 2] == 0x2D, bytes[i + 3] == 0x2D {
                i += 4
                while i + 2 < count, !(bytes[i] == 0x2D && bytes[i + 1] == 0x2D && bytes[i + 2] == 0x3E) { i += 1 }
                i = min(count, i + 3)
            } else {
                return i
            }
        }
        return count
    }

    /// A ` /* … */` comment right after `p` (blanks, then the comment, starting on the same line; a name with a line
    /// break makes a comment of several lines): its range with the blanks before it.
    func trailingComment(after p: Int) -> Range<Int>? {
        var i = p
        while i < count, Self.isBlank(bytes[i]) { i += 1 }
        guard i + 1 < count, bytes[i] == 0x2F, bytes[i + 1] == 0x2A else { return nil }
        var j = i + 2
        while j + 1 < count, !(bytes[j] == 0x2A && bytes[j + 1] == 0x2F) { j += 1 }
        guard j + 1 < count else { return nil }
        return p..<(j + 2)
    }

    /// The indentation unit the document uses: the first indented line's blanks (a tab, or a run of spaces), or a tab.
    var indentUnit: [UInt8] {
        var i = 0
        while i < count {
            let s = i
            var e = s
            while e < count, Self.isBlank(bytes[e]) { e += 1 }
            if e > s, e < count, bytes[e] != 0x0A, bytes[e] != 0x0D {
                if bytes[s] == 0x09 { return [0x09] }
                var n = 0
                while s + n < e, bytes[s + n] == 0x20 { n += 1 }
                return [UInt8](repeating: 0x20, count: max(1, min(n, 8)))
            }
            i = afterLineBreak(lineEnd(s))
        }
        return [0x09]
    }
}

extension TextBytes {
    /// The first occurrence of `needle` in `haystack` at or after `from` (a byte scan for its first byte, then a
    /// comparison).
    static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int = 0) -> Range<Int>? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        return haystack.withUnsafeBufferPointer { h in
            needle.withUnsafeBufferPointer { n in
                var i = from
                let last = h.count - n.count
                while i <= last {
                    if h[i] == first {
                        var k = 1
                        while k < n.count, h[i + k] == n[k] { k += 1 }
                        if k == n.count { return i..<(i + n.count) }
                    }
                    i += 1
                }
                return nil
            }
        }
    }
}

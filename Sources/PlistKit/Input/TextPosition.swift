/// Line and column computation for error messages (done only when an error is reported).
enum TextPosition {
    /// 1-based line and column (in Unicode scalars) of byte `offset` in UTF-8 text. A byte-order mark at the start
    /// is not a column. CR, LF and CR LF each end a line.
    static func lineColumn(of offset: Int, in b: UnsafeRawBufferPointer) -> (Int, Int) {
        var line = 1
        var column = 1
        var i = b.count >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF ? 3 : 0
        let end = min(offset, b.count)
        while i < end {
            let c = b[i]
            if c == 0x0A {
                line += 1
                column = 1
            } else if c == 0x0D {
                if i + 1 < end, b[i + 1] == 0x0A { i += 1 }
                line += 1
                column = 1
            } else if c & 0xC0 != 0x80 {
                column += 1
            }
            i += 1
        }
        return (line, column)
    }
}

/// Git's merge-conflict markers in a text property list (most often an Xcode `project.pbxproj` left mid-merge): a
/// line starting with exactly seven `<` (then a space or the line's end), later a line of exactly seven `=`, later one
/// starting with seven `>`. Looked for only after a parse has failed, so a quoted string holding such a line in a file
/// that reads raises no false alarm; the error then names the first marker's line and column (and diff3's `|||||||`
/// base marker when there is one) instead of the parser's puzzling "unexpected '<'".
enum MergeConflictMarkers {
    /// The error for `bytes` when it holds a conflict, else nil.
    static func error(in bytes: UnsafeRawBufferPointer, format: PlistFormat) -> PlistError? {
        var ours: (offset: Int, line: Int)?
        var base: Int?
        var separator: Int?
        var line = 1
        var i = 0
        let n = bytes.count
        func marker(_ c: UInt8, at s: Int, exact: Bool) -> Bool {
            guard s + 7 <= n else { return false }
            for k in 0..<7 where bytes[s + k] != c { return false }
            if s + 7 == n { return true }
            let next = bytes[s + 7]
            if next == 0x0A || next == 0x0D { return true }
            return !exact && next == 0x20
        }
        while i < n {
            if ours == nil {
                if marker(0x3C, at: i, exact: false) { ours = (i, line) }
            } else if separator == nil {
                if base == nil, marker(0x7C, at: i, exact: false) { base = line }
                if marker(0x3D, at: i, exact: true) { separator = line }
            } else if marker(0x3E, at: i, exact: false), let ours {
                var text = "the file is in a git merge conflict: '<<<<<<<' at line \(ours.line):1"
                if let base { text += ", '|||||||' at line \(base)" }
                text += ", '=======' at line \(separator ?? 0), '>>>>>>>' at line \(line); resolve the conflict first"
                return PlistError(.syntax, text, format: format, offset: ours.offset, line: ours.line, column: 1)
            }
            // Next line.
            while i < n, bytes[i] != 0x0A, bytes[i] != 0x0D { i += 1 }
            if i < n, bytes[i] == 0x0D, i + 1 < n, bytes[i + 1] == 0x0A { i += 1 }
            i += 1
            line += 1
        }
        return nil
    }
}

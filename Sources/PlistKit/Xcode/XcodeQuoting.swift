/// Xcode's rules for strings in `project.pbxproj` (keys, values and IDs alike): bare when non-empty, made only of
/// `[A-Za-z0-9_$./]`, and holding neither `//` nor `___`; otherwise in double quotes with `"` `\` LF TAB escaped as
/// `\"` `\\` `\n` `\t`, CR and the other C0 controls as `\r` `\a` `\b` `\f` `\v` or `\U00xx`, and everything else
/// (DEL, non-ASCII) raw UTF-8.
enum XcodeQuoting {
    @inline(__always)
    static func isBareByte(_ c: UInt8) -> Bool {
        (c >= 0x61 && c <= 0x7A) || (c >= 0x41 && c <= 0x5A) || (c >= 0x30 && c <= 0x39) || c == 0x5F || c == 0x24
            || c == 0x2E || c == 0x2F
    }

    static func canBeBare(_ s: String) -> Bool {
        var previous: UInt8 = 0, underscores = 0
        var any = false
        for c in s.utf8 {
            any = true
            guard isBareByte(c) else { return false }
            if c == 0x2F && previous == 0x2F { return false }
            underscores = c == 0x5F ? underscores + 1 : 0
            if underscores == 3 { return false }
            previous = c
        }
        return any
    }

    /// `s` as Xcode writes it.
    static func quoted(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        append(s, to: &out)
        return out
    }

    static func append(_ s: String, to out: inout [UInt8]) {
        if canBeBare(s) {
            out.append(contentsOf: s.utf8)
            return
        }
        out.append(0x22)
        for c in s.utf8 {
            switch c {
            case 0x22: out += [0x5C, 0x22]
            case 0x5C: out += [0x5C, 0x5C]
            case 0x0A: out += [0x5C, 0x6E]
            case 0x09: out += [0x5C, 0x74]
            case 0x0D: out += [0x5C, 0x72]
            case 0x07: out += [0x5C, 0x61]
            case 0x08: out += [0x5C, 0x62]
            case 0x0C: out += [0x5C, 0x66]
            case 0x0B: out += [0x5C, 0x76]
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                out += [0x5C, 0x55, 0x30, 0x30, hex[Int(c >> 4)], hex[Int(c & 15)]]
            default: out.append(c)
            }
        }
        out.append(0x22)
    }
}

/// Xcode's key order in every dictionary: `isa` first, then the other keys by their bytes (ordinal).
enum XcodeKeyOrder {
    static func less(_ a: String, _ b: String) -> Bool {
        if a == "isa" { return b != "isa" }
        if b == "isa" { return false }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}

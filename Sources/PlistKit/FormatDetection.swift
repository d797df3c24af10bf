/// Format detection from the first bytes of a (decompressed) document.
enum FormatDetection {
    static func detect(_ b: UnsafeRawBufferPointer) -> PlistFormat {
        let n = b.count
        if n >= 6, b[0] == 0x62, b[1] == 0x70, b[2] == 0x6C, b[3] == 0x69, b[4] == 0x73, b[5] == 0x74 { return .binary }
        // UTF-16 / UTF-32 (a byte-order mark, or zero bytes around a first `<`, `[` or `{`): what the text begins with
        // decides, as in UTF-8 (a UTF-16 `.strings` file is OpenStep, UTF-16 JSON is JSON as Apple's plutil reads it).
        if let wide = WideText.detect(b, unmarkedFirst: { $0 == 0x3C || $0 == 0x5B || $0 == 0x7B }) {
            return wide.utf8Prefix(b, limit: 4096).withUnsafeBytes { detectByteOriented($0) }
        }
        return detectByteOriented(b)
    }

    /// Detection for UTF-8 (or ASCII-compatible) text and whatever is not text.
    private static func detectByteOriented(_ b: UnsafeRawBufferPointer) -> PlistFormat {
        let n = b.count
        var i = 0
        if n >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { i = 3 }
        i = skipSpace(b, i)
        guard i < n else { return .openStep }
        switch b[i] {
        case 0x3C:  // '<': XML unless it is OpenStep data (<hex>) or a GNUstep form (<*…> / <[…]>)
            if i + 1 < n {
                let c = b[i + 1]
                if c == 0x3F || c == 0x21 || isNameStart(c) && !isHex(c) { return .xml }
                // An XML name never starts with a digit, so `<0g>` is (bad) OpenStep data, not an element.
                if isHex(c), !(c >= 0x30 && c <= 0x39), looksLikeXMLName(b, i + 1) { return .xml }
            }
            return .openStep
        case 0x5B:  // '['
            return .json
        case 0x7B:  // '{': JSON when the first member is "key" followed by ':'
            var j = skipSpace(b, i + 1)
            guard j < n, b[j] == 0x22 else { return .openStep }
            j += 1
            while j < n, b[j] != 0x22 {
                if b[j] == 0x5C { j += 1 }
                j += 1
            }
            j = skipSpace(b, j + 1)
            return j < n && b[j] == 0x3A ? .json : .openStep
        default:
            return .openStep
        }
    }

    private static func skipSpace(_ b: UnsafeRawBufferPointer, _ start: Int) -> Int {
        var i = start
        while i < b.count, b[i] == 0x20 || b[i] == 0x09 || b[i] == 0x0A || b[i] == 0x0D { i += 1 }
        return i
    }

    private static func isNameStart(_ c: UInt8) -> Bool {
        (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || c == 0x3A
    }

    private static func isHex(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
    }

    /// `<abc…` could be hex data or an element such as `<array>`/`<dict>`/`<data>`/`<date>`: an element name is
    /// followed by `>`, `/` or space after letters that are not all hex digits.
    private static func looksLikeXMLName(_ b: UnsafeRawBufferPointer, _ start: Int) -> Bool {
        var j = start
        var allHex = true
        while j < b.count, isNameStart(b[j]) || (b[j] >= 0x30 && b[j] <= 0x39) || b[j] == 0x2D {
            if !isHex(b[j]) { allHex = false }
            j += 1
        }
        return !allHex
    }
}

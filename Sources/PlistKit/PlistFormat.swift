/// The property-list formats PlistKit reads and writes.
public enum PlistFormat: String, Sendable, Hashable, CaseIterable {
    /// Apple XML (`xml1`).
    case xml
    /// Binary `bplist00` (`binary1`).
    case binary
    /// NeXTSTEP / OpenStep old-style ASCII.
    case openStep
    /// GNUstep's extended text format (OpenStep plus `<*I…>`, `<*R…>`, `<*B…>`, `<*D…>`, `<[…]>`).
    case gnustep
    /// A `.strings` file: `key = value;` pairs without enclosing braces.
    case strings
    /// JSON, with `plutil`'s rules.
    case json

    /// The name used in messages.
    public var displayName: String {
        switch self {
        case .xml: return "XML"
        case .binary: return "binary"
        case .openStep: return "OpenStep"
        case .gnustep: return "GNUstep"
        case .strings: return "strings"
        case .json: return "JSON"
        }
    }

    /// The `plutil -convert` name (`xml1`, `binary1`, `json`, `openstep`, `gnustep`, `strings`).
    public var plutilName: String {
        switch self {
        case .xml: return "xml1"
        case .binary: return "binary1"
        case .openStep: return "openstep"
        case .gnustep: return "gnustep"
        case .strings: return "strings"
        case .json: return "json"
        }
    }

    /// Parses a `plutil` format name.
    public init?(plutilName: String) {
        switch plutilName {
        case "xml1", "xml": self = .xml
        case "binary1", "binary": self = .binary
        case "json": self = .json
        case "openstep", "openStep", "ascii1": self = .openStep
        case "gnustep": self = .gnustep
        case "strings": self = .strings
        default: return nil
        }
    }

    /// The format the first bytes show, with the old-style text dialects as `.openStep` (OpenStep, GNUstep and
    /// `.strings` are told apart only by reading: `detection(of:)` says so).
    public static func detect(_ bytes: UnsafeRawBufferPointer) -> PlistFormat {
        detection(of: bytes).format ?? .openStep
    }

    /// What the first bytes of a (decompressed) document say about its format.
    ///
    /// `bplist` → binary; `<?xml`, `<!DOCTYPE`, `<plist` (after an optional BOM and whitespace) or a UTF-16/32
    /// BOM followed by `<` → XML; a document starting with `[` is JSON, and one starting with `{` is JSON when its
    /// first member is a quoted key followed by `:`; everything else is old-style text (OpenStep, GNUstep or
    /// `.strings`), which the reader tells apart while parsing.
    public static func detection(of bytes: UnsafeRawBufferPointer) -> PlistFormatDetection {
        FormatDetection.detect(bytes)
    }
}

/// What the first bytes of a document say about its format: one format, or "old-style text" (OpenStep, GNUstep or a
/// `.strings` body), which only reading can tell apart.
public enum PlistFormatDetection: Sendable, Hashable {
    case xml
    case binary
    case json
    /// OpenStep, GNUstep or `.strings`: the OpenStep reader reads all three and says which it was.
    case oldStyleText

    /// The format, when the first bytes decide it (nil for old-style text).
    public var format: PlistFormat? {
        switch self {
        case .xml: return .xml
        case .binary: return .binary
        case .json: return .json
        case .oldStyleText: return nil
        }
    }
}

/// Format detection from the first bytes of a (decompressed) document.
enum FormatDetection {
    static func detect(_ b: UnsafeRawBufferPointer) -> PlistFormatDetection {
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
    private static func detectByteOriented(_ b: UnsafeRawBufferPointer) -> PlistFormatDetection {
        let n = b.count
        var i = 0
        if n >= 3, b[0] == 0xEF, b[1] == 0xBB, b[2] == 0xBF { i = 3 }
        i = skipSpace(b, i)
        guard i < n else { return .oldStyleText }
        switch b[i] {
        case 0x3C:  // '<': XML unless it is OpenStep data (<hex>) or a GNUstep form (<*…> / <[…]>)
            if i + 1 < n {
                let c = b[i + 1]
                if c == 0x3F || c == 0x21 || isNameStart(c) && !isHex(c) { return .xml }
                // An XML name never starts with a digit, so `<0g>` is (bad) OpenStep data, not an element.
                if isHex(c), !(c >= 0x30 && c <= 0x39), looksLikeXMLName(b, i + 1) { return .xml }
            }
            return .oldStyleText
        case 0x5B:  // '['
            return .json
        case 0x7B:  // '{': JSON when the first member is "key" followed by ':'
            var j = skipSpace(b, i + 1)
            guard j < n, b[j] == 0x22 else { return .oldStyleText }
            j += 1
            while j < n, b[j] != 0x22 {
                if b[j] == 0x5C { j += 1 }
                j += 1
            }
            j = skipSpace(b, j + 1)
            return j < n && b[j] == 0x3A ? .json : .oldStyleText
        default:
            return .oldStyleText
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

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

    /// Detects the format from the first bytes (after gzip decompression).
    ///
    /// `bplist` → binary; `<?xml`, `<!DOCTYPE`, `<plist` (after an optional BOM and whitespace) or a UTF-16/32
    /// BOM followed by `<` → XML; `{`/`[` that parse as JSON are decided by the reader, so a document starting with
    /// `[` or `"` is JSON and one starting with `{` is JSON when its first non-space byte after `{` is `"` or `}`;
    /// everything else is OpenStep (which covers GNUstep and `.strings`).
    public static func detect(_ bytes: UnsafeRawBufferPointer) -> PlistFormat {
        FormatDetection.detect(bytes)
    }
}

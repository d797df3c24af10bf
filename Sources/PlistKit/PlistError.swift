/// The one error type of the PlistKit codecs: what went wrong, in which format, and where.
public struct PlistError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure this is, independent of the message wording.
    public enum Kind: String, Sendable, Equatable {
        /// The bytes do not follow the format's grammar.
        case syntax
        /// Text is not valid in its declared or detected encoding (invalid UTF-8, lone surrogates, …).
        case encoding
        /// A value is syntactically fine but its content is not allowed (bad integer, date, base64, …).
        case invalidValue
        /// A number does not fit the plist integer range −2^63 … 2^64−1.
        case integerOutOfRange
        /// Nesting deeper than `maxDepth`.
        case depthLimit
        /// Input or output larger than a configured size cap (including a decompression bomb).
        case sizeLimit
        /// More objects, entries or elements than a configured count cap.
        case countLimit
        /// The input ends before the structure is complete.
        case truncated
        /// A binary object reference or offset points outside what is allowed.
        case invalidReference
        /// A container (directly or indirectly) contains itself.
        case cycle
        /// A dictionary key appears twice and the options reject duplicates.
        case duplicateKey
        /// A dictionary key that is not a string.
        case nonStringKey
        /// The document holds something other than exactly one root value.
        case rootCount
        /// XML entity or DTD declarations, which are refused for safety.
        case forbiddenConstruct
        /// The format is recognised but not handled (or not yet implemented).
        case unsupportedFormat
        /// A binary plist version other than `bplist0?`.
        case unsupportedVersion
        /// A value the target format cannot represent (e.g. a date in JSON).
        case unrepresentable
        /// Reading or writing a file failed.
        case io
        /// A key path does not lead where an edit or lookup needs: a missing key or parent, an index out of range or
        /// not a number, or a scalar where a container is needed.
        case keyPath
    }

    /// The format being read or written, if known.
    public var format: PlistFormat?
    /// The kind of failure.
    public var kind: Kind
    /// A human-readable explanation a user can act on.
    public var message: String
    /// Byte offset in the input, when known.
    public var offset: Int?
    /// 1-based line, when known (text formats).
    public var line: Int?
    /// 1-based column, in characters (Unicode scalars), when known.
    public var column: Int?
    /// Where in the value tree the failure happened, when known.
    public var keyPath: KeyPath?
    /// The offset is in the caller's bytes already (a sink that was given mapped ranges threw it), so the reader
    /// does not map it again (`OffsetMap.locate`). Not part of equality.
    var offsetIsOriginal = false

    public init(
        _ kind: Kind, _ message: String, format: PlistFormat? = nil, offset: Int? = nil,
        line: Int? = nil, column: Int? = nil, keyPath: KeyPath? = nil
    ) {
        self.kind = kind
        self.message = message
        self.format = format
        self.offset = offset
        self.line = line
        self.column = column
        self.keyPath = keyPath
    }

    public static func == (a: PlistError, b: PlistError) -> Bool {
        a.format == b.format && a.kind == b.kind && a.message == b.message && a.offset == b.offset && a.line == b.line
            && a.column == b.column && a.keyPath == b.keyPath
    }

    /// This error with `component` (an array position or dictionary key) put in front of its key path, for a
    /// container that was reading or writing the failing child. Out of line: the hot loops that call it keep small
    /// stack frames, which matters for deep nesting in unoptimised builds.
    @inline(never)
    func inside(_ component: String) -> PlistError {
        var e = self
        e.keyPath = KeyPath(components: [component] + (keyPath?.components ?? []))
        return e
    }

    /// `FORMAT: line L:C (offset N): message (at key path K)`, with only the parts that are known.
    public var description: String {
        var s = ""
        if let format { s += "\(format.displayName): " }
        var where_: [String] = []
        if let line { where_.append(column.map { "line \(line):\($0)" } ?? "line \(line)") }
        if let offset { where_.append(where_.isEmpty ? "offset \(offset)" : "(offset \(offset))") }
        if !where_.isEmpty { s += where_.joined(separator: " ") + ": " }
        s += message
        if let keyPath, !keyPath.components.isEmpty { s += " (at key path \(keyPath))" }
        return s
    }

    /// A copy with the location filled in from a byte offset into `input` (line and column computed by scanning).
    func located(in input: UnsafeRawBufferPointer) -> PlistError {
        guard let offset, line == nil else { return self }
        var copy = self
        let (l, c) = TextPosition.lineColumn(of: offset, in: input)
        copy.line = l
        copy.column = c
        return copy
    }
}

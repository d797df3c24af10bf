/// What a reader does when a dictionary holds the same key twice.
public enum DuplicateKeyPolicy: Sendable, Hashable {
    /// The later value replaces the earlier one (Core Foundation's XML and OpenStep behaviour).
    case lastWins
    /// The earlier value is kept (Core Foundation's binary reader on Linux).
    case firstWins
    /// A `PlistError` of kind `.duplicateKey`.
    case reject
}

extension DuplicateKeyPolicy {
    /// For a key met again in one dictionary: whether the later value replaces the one kept (`.lastWins`; the key
    /// keeps its first place) or is dropped (`.firstWins`); `.reject` throws, naming the key. The one place the
    /// policy is decided, for the tree and for a stream's writer alike.
    func keepsLater(_ key: String, at offset: Int?, format: PlistFormat?) throws -> Bool {
        switch self {
        case .lastWins: return true
        case .firstWins: return false
        case .reject:
            throw PlistError(.duplicateKey, "duplicate key \"\(key)\" in a dictionary", format: format, offset: offset,
                             keyPath: KeyPath(components: [key]))
        }
    }
}

/// Limits and policies for reading. Every cap can be raised or lowered by the caller.
public struct PlistReadOptions: Sendable, Hashable {
    /// Deepest nesting of arrays and dictionaries accepted (Core Foundation's limit is 512).
    public var maxDepth: Int = 512
    /// Largest input accepted, in bytes, after decompression. Default 1 GiB.
    public var maxInputSize: Int = 1 << 30
    /// Largest decompressed size of gzip input. Default 256 MiB.
    public var maxDecompressedSize: Int = 256 << 20
    /// Most objects (values, containers included) in one document. Default 64 Mi.
    public var maxObjectCount: Int = 64 << 20
    /// Duplicate dictionary keys: last wins by default.
    public var duplicateKeys: DuplicateKeyPolicy = .lastWins
    /// Reject dates that are NaN or infinite (binary) instead of passing them through.
    public var strictDates: Bool = false
    /// Decompress gzip input transparently.
    public var allowGzip: Bool = true
    /// Formats the reader may detect; others give an `.unsupportedFormat` error. Default: all.
    public var allowedFormats: Set<PlistFormat> = Set(PlistFormat.allCases)

    public init() {}
}

/// Choices for writing.
public struct PlistWriteOptions: Sendable, Hashable {
    /// Sort dictionary keys (XML: UTF-16 code-unit order, as Core Foundation; binary: Unicode scalar order, as
    /// Python). When false, insertion order is kept.
    public var sortKeys: Bool = true
    /// JSON: human-readable layout (`plutil -r`).
    public var prettyPrinted: Bool = false
    /// OpenStep: write numbers, Booleans, dates and UIDs as strings instead of failing.
    public var lossy: Bool = false
    /// Deepest nesting written (cycles cannot occur in value types, but depth is still bounded).
    public var maxDepth: Int = 512

    public init() {}
}

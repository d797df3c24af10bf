/// What a reader does when a dictionary holds the same key twice.
public enum DuplicateKeyPolicy: Sendable, Hashable {
    /// The later value replaces the earlier one (Core Foundation's XML and OpenStep behaviour).
    case lastWins
    /// The earlier value is kept (Core Foundation's binary reader: `CFBinaryPList.c` adds the entries with
    /// `CFDictionaryAddValue`, which keeps a key already present).
    case firstWins
    /// A `PlistError` of kind `.duplicateKey`.
    case reject
    /// Each format as Core Foundation reads it: `.firstWins` for binary, `.lastWins` for every text format. The
    /// default, so that a file reads here as it reads on Apple's systems.
    case coreFoundation

    /// The policy a reader of `format` applies: `.coreFoundation` made concrete (`.lastWins` when the format is not
    /// known), any other policy as it is.
    public func resolved(for format: PlistFormat?) -> DuplicateKeyPolicy {
        guard self == .coreFoundation else { return self }
        return format == .binary ? .firstWins : .lastWins
    }
}

extension DuplicateKeyPolicy {
    /// For a key met again in one dictionary: whether the later value replaces the one kept (`.lastWins`; the key
    /// keeps its first place) or is dropped (`.firstWins`); `.reject` throws, naming the key. The one place the
    /// policy is decided, for the tree and for a stream's writer alike.
    func keepsLater(_ key: String, at offset: Int?, format: PlistFormat?) throws -> Bool {
        switch resolved(for: format) {
        case .lastWins, .coreFoundation: return true
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
    /// Duplicate dictionary keys: by default as Core Foundation reads each format (binary: the first value; text:
    /// the last).
    public var duplicateKeys: DuplicateKeyPolicy = .coreFoundation
    /// Reject dates that are NaN or infinite (only binary can spell one) with an `.invalidValue` error. On by default:
    /// no text format can hold such a date (Core Foundation writes `<date>2030437302-06-07T24:60:-2147483648Z</date>`
    /// for each, which nothing reads back). Set to false to keep them (binary output writes them back unchanged).
    public var strictDates: Bool = true
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

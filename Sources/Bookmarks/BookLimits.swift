/// Caps for reading untrusted `book` blobs, so a hostile blob costs bounded time and memory; callers may change them.
public struct BookLimits: Sendable, Equatable {
    /// Largest accepted input (4 MiB: Apple blobs with icons exceed 1 MB).
    public var maxInputSize: Int = 4 << 20
    /// Most TOCs followed through `next_toc`.
    public var maxTOCs: Int = 16
    /// Most item decodes (including repeated references) in one blob.
    public var maxItemVisits: Int = 65_536
    /// Deepest array/dictionary/relative-URL nesting.
    public var maxDepth: Int = 8
    /// Largest blob our writer produces.
    public var maxOutputSize: Int = 64 << 10

    public init() {}
}

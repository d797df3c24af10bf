import PlistKit

/// How domain files are read and written. Defaults follow the issue: binary files, 4 MiB cap, fsync of the directory.
public struct StoreOptions: Sendable {
    /// The format new writes use (`.binary` by default; `.xml` for hand-editable files). Either is read.
    public var writeFormat: PlistFormat = .binary
    /// Largest encoded domain a write may produce; larger writes fail with `.sizeLimitExceeded`. Default 4 MiB
    /// (Apple's limit).
    public var sizeLimit: Int = 4 << 20
    /// Largest domain file read; a larger file is reported and treated as unreadable (not moved aside). Default 64 MiB.
    public var readLimit: Int = 64 << 20
    /// How long after a change the background flush runs, in seconds. Default 0.25 s.
    public var flushDelay: Double = 0.25
    /// A cached domain re-checks its file's stamp at most this often, in seconds (0 = on every read). Default 0.1 s.
    /// `synchronize()` always re-checks.
    public var recheckInterval: Double = 0.1
    /// fsync the directory after the rename (closes the window in which a power loss forgets the rename).
    public var syncDirectory: Bool = true
    /// Mode of newly created files (existing files keep theirs).
    public var newFileMode: UInt32 = 0o600
    /// The codec that parses and serialises domain files.
    public var codec: any PreferencesCodec = PlistKitCodec()

    public init() {}
}

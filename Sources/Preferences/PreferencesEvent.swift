import PlistKit

/// Something the store reports without failing the call that caused it (a setter cannot throw, a background flush
/// has no caller). Observe with `PreferencesEnvironment.addEventHandler`.
public enum PreferencesEvent: Sendable, Equatable {
    /// A domain file did not parse (or its root was not a dictionary) and was renamed to `movedTo`; the domain
    /// started empty.
    case corruptFileMovedAside(domain: String, path: String, movedTo: String, reason: String)
    /// A managed (administrator's) domain file did not parse, or its root was not a dictionary, for `reason`. It is
    /// left exactly as it is (the store never moves or writes managed files) and the managed layer reads as empty.
    case managedFileIgnored(domain: String, path: String, reason: String)
    /// A write was refused because the encoded domain would be `size` bytes, over `limit`.
    case sizeLimitExceeded(domain: String, size: Int, limit: Int)
    /// A write to a managed (forced) key was refused.
    case notWritable(domain: String, key: String)
    /// A value that no property list can hold was passed to a setter and ignored.
    case unsupportedValue(key: String, typeName: String)
    /// A background or exit-time flush failed.
    case flushFailed(domain: String, error: PreferencesError)
    /// The domain file exists but cannot be read (permissions, a directory, over `StoreOptions.readLimit`, a format
    /// this build cannot decode; for a file named by path, as `defaults read /some/file` does, also one that is not a
    /// dictionary, kind `.corruptFile`). It is left in place, the domain reads as empty, and writes to it are refused
    /// so its values are never replaced. Posted when the failure starts (or its reason changes), not at every re-read.
    case readFailed(domain: String, error: PreferencesError)
    /// Values in the domain changed: `keys` in this process, or the file was replaced by another process (`keys`
    /// then lists the keys whose value differs).
    case didChange(domain: String, keys: [String], external: Bool)
}

/// Limits and choices for reading and decoding `NSKeyedArchiver` archives. Every cap can be raised or lowered.
///
/// The caps bound time and memory on hostile input: an archive is a flat table, but its objects point at each other,
/// so a small file can describe a deep chain or a graph whose plain (tree) form is exponentially large.
public struct KeyedArchiveOptions: Sendable, Hashable {
    /// What plain decoding does with an `NSDictionary` key that is not a string.
    public enum NonStringKeys: Sendable, Hashable {
        /// A `PlistError` of kind `.nonStringKey` naming the UID and key path (the default).
        case reject
        /// The key's plain value written as text (an integer `7` becomes `"7"`), as `nska-deserialize` does.
        case describe
    }

    /// Limits for the property-list reader underneath (input size, nesting, object count, duplicate keys).
    public var plist: PlistReadOptions = PlistReadOptions()
    /// Most entries in `$objects`. Default 16 Mi.
    public var maxObjectCount: Int = 16 << 20
    /// Most fields over all objects of one archive (`$class` included). Default 64 Mi.
    public var maxFieldCount: Int = 64 << 20
    /// Deepest chain of objects plain decoding follows (an array in an array in … counts one per object), as Core
    /// Foundation caps property-list nesting. Default 512.
    public var maxDepth: Int = 512
    /// Most values in one plain decoding, counting a shared object once per place it appears (a graph that shares
    /// sub-objects can describe a tree exponentially larger than the file). Default 8 Mi.
    public var maxPlainNodes: Int = 8 << 20
    /// Non-string dictionary keys in plain decoding.
    public var nonStringKeys: NonStringKeys = .reject

    public init() {}
}

/// Choices for `KeyedArchiver`.
public struct KeyedArchiverOptions: Sendable, Hashable {
    /// Which values share one `$objects` entry.
    public enum Uniquing: Sendable, Hashable {
        /// As Foundation on Linux: values it finds equal share the first one's entry, so `1`, `1.0` and `true` become
        /// one number and `-0.0` becomes `0.0` (its object map is keyed by `AnyHashable`). Needed for Foundation's
        /// bytes; the default.
        case foundation
        /// Only identical values share (same type, same bits, same scalars), so decoding gives back exactly the value
        /// archived.
        case exact
    }

    /// Default `.foundation`.
    public var uniquing: Uniquing = .foundation

    public init(uniquing: Uniquing = .foundation) { self.uniquing = uniquing }
}

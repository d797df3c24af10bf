import FoundationEssentials

/// Why a resolved bookmark is stale (Apple only says *that* it is; callers asked for *why*).
public enum StaleReason: String, Sendable, Equatable {
    /// Same identity, found at another path (rename, move, renamed ancestor, privileged handle lookup).
    case moved
    /// The volume is mounted at another mount point; paths were rebased onto it.
    case volumeMoved
    /// The stored path holds a different object of the same type (atomic save, replace, inode reuse).
    case replaced
    /// Found through the `relativeTo` path in a copied tree, without an identity match.
    case relocatedTree
    /// The data was not written by this library (e.g. a macOS blob); resolved by path only.
    case foreignFormat
    /// The data uses an older version of this library's layout.
    case formatUpgraded
}

/// Which wins when the stored path and the stored identity disagree.
public enum ResolutionPolicy: Sendable, Equatable {
    /// The object at the stored path wins (Apple's default, and what users expect after a save-by-rename).
    case pathFirst
    /// The object with the stored identity wins wherever it is (Apple's deprecated `preferFileIDResolution`).
    case preferIdentity
}

/// The caller's limits for the identity search. The blob never sets these.
public struct SearchBudget: Sendable, Equatable {
    /// Most directory entries read in total.
    public var maxEntries: Int = 20_000
    /// Wall-clock limit for the search, in milliseconds.
    public var maxMilliseconds: Int = 250
    /// How deep below a search root the search descends.
    public var maxDepth: Int = 4
    /// How many levels above the deepest surviving ancestor the search widens (never above the mount root).
    public var maxLevelsUp: Int = 3

    public init(maxEntries: Int = 20_000, maxMilliseconds: Int = 250, maxDepth: Int = 4, maxLevelsUp: Int = 3) {
        self.maxEntries = maxEntries
        self.maxMilliseconds = maxMilliseconds
        self.maxDepth = maxDepth
        self.maxLevelsUp = maxLevelsUp
    }
}

/// Options for `Bookmark.resolve`.
public struct BookmarkResolveOptions: Sendable, Equatable {
    /// Apple's options; accepted, no effect on Linux.
    public var appleOptions: BookmarkResolutionOptions = []
    /// Nil: `.preferIdentity` if the bookmark was created with `.preferFileIDResolution`, else `.pathFirst`.
    public var policy: ResolutionPolicy? = nil
    public var budget = SearchBudget()
    /// Directory to apply the stored relative path to (the document that owns the bookmark moved with its tree).
    public var relativeTo: String? = nil
    /// Use `open_by_handle_at` — only honoured when the process already holds `CAP_DAC_READ_SEARCH`.
    /// Never enable this in a process that resolves on behalf of less privileged clients.
    public var allowPrivilegedHandleLookup = false
    /// Re-create the data when the result is stale.
    public var refreshWhenStale = true
    public var limits = BookLimits()

    public init() {}
}

/// The outcome of resolving bookmark data.
public struct BookmarkResolution: Sendable, Equatable {
    public var pathBytes: [UInt8]
    public var path: String { PathBytes.string(pathBytes) }
    public var url: URL { URL(fileURLWithPath: path) }
    public var isStale: Bool { reason != nil }
    /// Why it is stale; nil when it is not.
    public var reason: StaleReason?
    /// How the identity was confirmed; nil when it was not (replaced, relocated tree, foreign format).
    public var confidence: IdentityConfidence?
    /// New bookmark data for the resolved object, when stale and refreshing was requested and possible.
    public var refreshedData: [UInt8]?
    /// Directory entries the search read (0 when the stored path matched).
    public var entriesSearched: Int
    /// The identity of the object found (used by `resolveAndOpen` to check the descriptor).
    public var identity: FileIdentity?

    /// True when the result lies in a freedesktop.org Trash (`…/Trash/files/…` or `/.Trash-<uid>/files/…`):
    /// moving to the trash is a rename, so bookmarks follow files there.
    public var isInTrash: Bool {
        let parts = PathBytes.split(pathBytes).map { String(decoding: $0, as: UTF8.self) }
        for i in parts.indices.dropLast() where parts[i + 1] == "files" {
            if parts[i] == "Trash" || parts[i].hasPrefix(".Trash-") || parts[i] == ".Trash" { return true }
        }
        return false
    }
}

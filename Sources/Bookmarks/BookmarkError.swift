import PlistKit

/// Every error the Bookmarks library throws.
///
/// Corrupt input carries the byte offset (from the start of the blob) where the problem was found;
/// resolution errors carry the last path the bookmark knew, which is safe to show to the user.
public enum BookmarkError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Why a blob was rejected.
    public enum Corruption: Sendable, Equatable {
        case tooLarge(size: Int, limit: Int)
        case truncated(needed: Int, available: Int)
        case badMagic
        case sizeMismatch(declared: Int, actual: Int)
        case badHeaderSize(Int)
        case misalignedOffset(Int)
        case offsetOutOfRange(Int)
        case badTOCMagic(UInt32)
        case badTOCSize(declared: Int, count: Int)
        case tocNotSorted(key: UInt32)
        case tocLoop
        case tooManyTOCs(limit: Int)
        case tooManyItems(limit: Int)
        case nestingTooDeep(limit: Int)
        case itemLoop
        case badItemLength(type: UInt32, length: Int)
        case invalidUTF8
        case badStringKey
        case missingKey(String)
        case unexpectedType(key: String)
        case badPathComponent(index: Int)
        case unsupportedFormatVersion(Int)
        case notABookmarkFile
    }

    /// The data is not a bookmark, or breaks the layout or a cap.
    case corruptData(Corruption, offset: Int)
    /// Nothing with the bookmarked identity was found; `lastKnownPath` is where it was.
    case fileNotFound(lastKnownPath: String)
    /// The search ran out of the caller's budget before finding the target.
    case searchBudgetExhausted(lastKnownPath: String, entriesVisited: Int)
    /// Walking the stored path hit a directory the caller may not search.
    case permissionDenied(path: String)
    /// The volume the bookmark points into is not mounted anywhere.
    case volumeNotMounted(volume: String, lastKnownPath: String)
    /// A system call failed while creating a bookmark or opening its target.
    case systemCall(name: String, errno: Int32, path: String)
    /// The caller passed something the API cannot use (a non-file URL, a relative path, …).
    case invalidArgument(String)
    /// The bookmark would exceed the writer's size cap.
    case bookmarkTooLarge(size: Int, limit: Int)
    /// The opened descriptor is not the bookmarked object (it changed between resolve and open).
    case identityChanged(path: String)

    /// The last path the bookmark knew, for the not-found family of errors (budget exhaustion is one).
    public var lastKnownPath: String? {
        switch self {
        case .fileNotFound(let p), .searchBudgetExhausted(let p, _), .volumeNotMounted(_, let p): return p
        default: return nil
        }
    }

    /// The matching `NSCocoaErrorDomain` code on Apple platforms.
    public var appleErrorCode: Int {
        switch self {
        case .fileNotFound, .searchBudgetExhausted, .volumeNotMounted, .identityChanged: return 4
        case .permissionDenied: return 257
        case .corruptData: return 259
        case .systemCall, .invalidArgument, .bookmarkTooLarge: return 256
        }
    }

    public var description: String {
        switch self {
        case let .corruptData(reason, offset):
            return "corrupt bookmark data at offset \(offset): \(reason)"
        case let .fileNotFound(path):
            return "file not found (last known path: \(path))"
        case let .searchBudgetExhausted(path, visited):
            return "search budget exhausted after \(visited) directory entries (last known path: \(path))"
        case let .permissionDenied(path):
            return "permission denied: \(path)"
        case let .volumeNotMounted(volume, path):
            return "volume \(volume) is not mounted (last known path: \(path))"
        case let .systemCall(name, errno, path):
            return "\(name) failed for \(path): \(Errno(errno)) (errno \(errno))"
        case let .invalidArgument(message):
            return "invalid argument: \(message)"
        case let .bookmarkTooLarge(size, limit):
            return "bookmark of \(size) bytes exceeds the writer limit of \(limit) bytes"
        case let .identityChanged(path):
            return "the object at \(path) changed before it could be opened"
        }
    }
}

extension BookmarkError {
    /// The system call `name` failed for `path` with `error`.
    static func systemCall(_ name: String, _ error: Errno, path: String) -> BookmarkError {
        .systemCall(name: name, errno: error.rawValue, path: path)
    }

    /// A call on the caller's path failed: a missing file and a denied search are said so, anything else is a
    /// `systemCall` error.
    static func failure(_ name: String, _ error: Errno, path: String) -> BookmarkError {
        switch error {
        case .noSuchFileOrDirectory: return .fileNotFound(lastKnownPath: path)
        case .permissionDenied: return .permissionDenied(path: path)
        default: return .systemCall(name, error, path: path)
        }
    }
}

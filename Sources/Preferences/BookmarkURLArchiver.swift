import Bookmarks
import FoundationEssentials
import PlistKit
import Synchronization

/// The default `URLArchiver` of `Defaults`: file URLs are stored as bookmark data (from the Bookmarks library)
/// together with their location, so `url(forKey:)` follows a file that was renamed or moved.
///
/// Stored layout (a dictionary, so Foundation's `UserDefaults` never mistakes it for an `NSKeyedArchiver` archive):
///
/// | URL | stored value |
/// |---|---|
/// | file URL, file exists | `{ bookmark = <data>; path = "/p"; url = "file:///p"; }` |
/// | file URL, no file at `set` time | `{ path = "/p"; url = "file:///p"; }` (a bookmark needs an existing file) |
/// | any other URL | its absolute string (`"https://example.com/a?b=c"`, unchanged) |
///
/// `path` is the standardized path of the URL as given; `bookmark` is `Bookmark.create(for:)` data. The keys are
/// exactly `LocationURLArchiver`'s plus `bookmark`, so either archiver reads the other's values.
///
/// Reading (`unarchive`/`resolve`): a dictionary with `bookmark`, or bare bookmark data (`book…`), is resolved —
/// stored path first, then the file's identity (a rename or move is followed). A stale bookmark comes back with a
/// replacement value (refreshed data and the new path, in the same form) that `Defaults.url(forKey:)` writes in
/// place. When resolution fails (the file is gone, the data is damaged) the stored `path` is returned, as a
/// location-only value would be, and the failure is remembered for `failureRetryInterval` seconds. Data made on macOS
/// resolves by path and counts as stale (`.foreignFormat`), so it is replaced by Linux bookmark data. Every other
/// form `LocationURLArchiver` reads is accepted: `{path, url}`, a path or URL string (`~` expanded), Apple's
/// `NSKeyedArchiver` `NSURL` archive, UTF-8 URL text in data. Anything else → nil.
public struct BookmarkURLArchiver: URLArchiver {
    /// Options for the bookmarks `archive` creates (`.minimalBookmark` makes them smaller).
    public var creationOptions: BookmarkCreationOptions
    /// Options for resolution (search budget, policy). `refreshWhenStale` is always on for `resolve(_:)`.
    public var resolveOptions: BookmarkResolveOptions

    /// The default resolution options: the Bookmarks defaults with a 100 ms / 10,000-entry search budget, because
    /// `url(forKey:)` is often called on a hot path and a deleted file costs a whole budget (once per
    /// `failureRetryInterval`).
    public static var defaultResolveOptions: BookmarkResolveOptions {
        var options = BookmarkResolveOptions()
        options.budget = SearchBudget(maxEntries: 10_000, maxMilliseconds: 100)
        return options
    }

    /// After a bookmark fails to resolve (file deleted, volume gone), `resolve(_:)` answers with the stored path
    /// without searching again for this many seconds, so a hot `url(forKey:)` does not pay a search budget per call.
    public var failureRetryInterval: Double

    private let failures = ResolutionFailures()

    public init(
        creationOptions: BookmarkCreationOptions = [], resolveOptions: BookmarkResolveOptions = defaultResolveOptions,
        failureRetryInterval: Double = 2
    ) {
        self.creationOptions = creationOptions
        self.resolveOptions = resolveOptions
        self.failureRetryInterval = failureRetryInterval
    }

    /// The dictionary key holding bookmark data.
    public static let bookmarkKey = "bookmark"
    /// The dictionary key holding the file's path.
    public static let pathKey = "path"
    /// The dictionary key holding the file URL's absolute string.
    public static let urlKey = "url"

    /// Non-file URLs: the absolute string. File URLs: `{bookmark, path, url}`, or `{path, url}` when no bookmark can be
    /// made (the file does not exist, a directory on the way is not searchable, …).
    public func archive(_ url: URL) -> PlistValue {
        guard url.isFileURL else { return .string(url.absoluteString) }
        let file = url.standardizedFileURL
        let bytes = try? Bookmark.create(for: file, options: creationOptions)
        return Self.stored(path: file.path, bookmark: bytes.map { Data($0) })
    }

    public func unarchive(_ value: PlistValue) -> URL? {
        resolve(value)?.url
    }

    /// The URL, plus a replacement for `value` when its bookmark was stale (refreshed data, new path).
    public func resolve(_ value: PlistValue) -> UnarchivedURL? {
        switch value {
        case .dictionary(let d):
            guard case .data(let data)? = d[Self.bookmarkKey] else { return LocationURLArchiver.read(value) }
            let storedPath: String? = if case .string(let p)? = d[Self.pathKey], !p.isEmpty { p } else { nil }
            // Unresolvable now (file gone, volume unmounted, damaged data): the last known location, read as a
            // location-only value (which ignores the bookmark).
            guard let r = resolveBookmark(data) else { return LocationURLArchiver.read(value) }
            guard r.isStale else {
                // Keep the path as the caller gave it (the bookmark's is canonical: symlinked ancestors resolved).
                return UnarchivedURL(url: storedPath.map { URL(fileURLWithPath: $0) } ?? r.url)
            }
            let refreshed = r.refreshedData.map { Data($0) } ?? data
            let replacement = Self.stored(path: r.path, bookmark: refreshed)
            return UnarchivedURL(url: r.url, replacement: replacement == value ? nil : replacement)
        case .data(let data) where Self.looksLikeBookmark(data):
            if let r = resolveBookmark(data) {
                let replacement = r.isStale ? r.refreshedData.map { PlistValue.data(Data($0)) } : nil
                return UnarchivedURL(url: r.url, replacement: replacement == value ? nil : replacement)
            }
            if let path = try? Self.storedPath(ofBookmark: data) { return UnarchivedURL(url: URL(fileURLWithPath: path)) }
            return LocationURLArchiver.read(value)
        default:
            return LocationURLArchiver.read(value)
        }
    }

    private func resolveBookmark(_ data: Data) -> BookmarkResolution? {
        let now = SystemClock.monotonicNanoseconds()
        // Capped (and NaN-safe) so that any interval the caller sets converts to nanoseconds without trapping.
        let retry = failureRetryInterval > 0 ? UInt64(min(failureRetryInterval, 1e9) * 1e9) : 0
        if retry > 0, failures.failedRecently(data, now: now, within: retry) { return nil }
        var options = resolveOptions
        options.refreshWhenStale = true
        guard let r = try? Bookmark.resolve(Array(data), options: options) else {
            if retry > 0 { failures.record(data, now: now) }
            return nil
        }
        return r
    }

    /// The stored form of a file location with optional bookmark data.
    static func stored(path: String, bookmark: Data?) -> PlistValue {
        var d: PlistDictionary = [pathKey: .string(path), urlKey: .string(URL(fileURLWithPath: path).absoluteString)]
        if let bookmark { d[bookmarkKey] = .data(bookmark) }
        return .dictionary(d)
    }

    /// Bookmark data held by a stored value: the `bookmark` entry of the dictionary layout, or bare data that parses
    /// as a bookmark. Never touches the file system.
    static func bookmarkData(in value: PlistValue) -> Data? {
        switch value {
        case .dictionary(let d):
            guard case .data(let data)? = d[bookmarkKey], parses(data) else { return nil }
            return data
        case .data(let data):
            guard looksLikeBookmark(data), parses(data) else { return nil }
            return data
        default: return nil
        }
    }

    /// The path stored inside bookmark data (no file-system access): nil when it records no absolute path; throws
    /// the container's error when the data does not parse.
    static func storedPath(ofBookmark data: Data) throws(BookmarkError) -> String? {
        let values = try Bookmark.resourceValues(forKeys: [Bookmark.ResourceKey.path], fromBookmarkData: Array(data))
        guard case .string(let path)? = values[Bookmark.ResourceKey.path], path.hasPrefix("/") else { return nil }
        return path
    }

    static func parses(_ data: Data) -> Bool {
        (try? Bookmark.allKeys(fromBookmarkData: Array(data))) != nil
    }

    /// `book` magic: bookmark data and alias files both start with it.
    static func looksLikeBookmark(_ data: Data) -> Bool {
        data.starts(with: [0x62, 0x6F, 0x6F, 0x6B])
    }
}

/// Bookmark data that recently failed to resolve, with the time of the failure (at most 64 entries).
final class ResolutionFailures: Sendable {
    private let entries = Mutex<[Data: UInt64]>([:])

    func failedRecently(_ data: Data, now: UInt64, within interval: UInt64) -> Bool {
        entries.withLock { e in
            guard let at = e[data] else { return false }
            if now &- at < interval { return true }
            e[data] = nil
            return false
        }
    }

    func record(_ data: Data, now: UInt64) {
        entries.withLock { e in
            if e.count >= 64 { e.removeAll(keepingCapacity: true) }
            e[data] = now
        }
    }
}

/// A URL read back from a stored value, with the value to store in its place when the stored one is out of date.
public struct UnarchivedURL: Sendable, Equatable {
    public var url: URL
    /// Non-nil when the stored value should be rewritten (a stale bookmark: refreshed data and the new path).
    public var replacement: PlistValue?

    public init(url: URL, replacement: PlistValue? = nil) {
        self.url = url
        self.replacement = replacement
    }
}

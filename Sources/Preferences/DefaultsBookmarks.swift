import Bookmarks
import FoundationEssentials
import PlistKit

/// Explicit bookmark and location storage, for apps that want to choose *when* resolution (file-system I/O) happens.
/// Values use `BookmarkURLArchiver`'s layout whatever archiver the instance has, so `url(forKey:)` reads them.
extension Defaults {
    /// Creates bookmark data for the file at `url` and stores it as `{bookmark, path, url}`. Unlike `set(_: URL,
    /// forKey:)`, which silently stores only the path when no bookmark can be made, this throws: a `BookmarkError`
    /// (`.fileNotFound`, `.invalidArgument` for a non-file URL, …) or `PreferencesError` `.notWritable` for a
    /// managed key. Returns the bookmark data stored.
    @discardableResult
    public func setBookmark(for url: URL, options: BookmarkCreationOptions = [], forKey key: String) throws -> Data {
        let file = url.isFileURL ? url.standardizedFileURL : url
        let data = Data(try Bookmark.create(for: file, options: options))
        try trySet(BookmarkURLArchiver.stored(path: file.path, bookmark: data), forKey: key)
        return data
    }

    /// Stores bookmark data as given (for example `refreshedData` from `resolveBookmark(forKey:)`, or data made with
    /// custom options), with the path it records. Throws `BookmarkError.corruptData` when `data` is not bookmark data.
    public func setBookmarkData(_ data: Data, forKey key: String) throws {
        guard let path = try BookmarkURLArchiver.storedPath(ofBookmark: data) else {
            throw BookmarkError.corruptData(.missingKey("path (0x1004)"), offset: 0)
        }
        try trySet(BookmarkURLArchiver.stored(path: path, bookmark: data), forKey: key)
    }

    /// The bookmark data stored for `key`, byte for byte, without resolving it or touching the file system; nil when
    /// the value holds no bookmark (a location-only value, a string, another type).
    public func bookmark(forKey key: String) -> Data? {
        plistValue(forKey: key).flatMap(BookmarkURLArchiver.bookmarkData(in:))
    }

    /// Resolves the bookmark stored for `key` and reports whether (and why) it is stale — `reason` is `.moved` after a
    /// rename or move — without rewriting the stored value. When stale, `refreshedData` holds new data the caller may
    /// store with `setBookmarkData(_:forKey:)`. Returns nil when the key holds no bookmark; throws when resolution
    /// fails (`.fileNotFound` with the last known path, `.searchBudgetExhausted`, …).
    public func resolveBookmark(forKey key: String, options: BookmarkResolveOptions = BookmarkResolveOptions()) throws(BookmarkError) -> BookmarkResolution? {
        guard let data = bookmark(forKey: key) else { return nil }
        return try Bookmark.resolve(Array(data), options: options)
    }

    /// Location-only storage: a file URL is stored as its bare path string (no bookmark, no I/O; Foundation's
    /// `url(forKey:)` reads it too), any other URL as its absolute string. nil removes the key.
    public func setLocation(_ url: URL?, forKey key: String) {
        guard let url else { removeObject(forKey: key); return }
        _ = try? trySet(LocationURLArchiver(pathOnly: true).archive(url), forKey: key)
    }
}

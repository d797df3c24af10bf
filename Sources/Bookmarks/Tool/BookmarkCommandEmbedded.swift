import PlistKit

/// `bookmark inspect` and `bookmark resolve --key-path` on a property list or keyed archive (an `.sfl2` file, a
/// preferences file): the bookmark data inside it, found by `EmbeddedBookmarks`.
extension BookmarkCommandLine {
    /// The bookmarks in `bytes` when they are a property list, or nil when they are for the bookmark reader (see
    /// `EmbeddedBookmarks.find(inFile:)`); a damaged property list is `file`'s failure.
    func embeddedBookmarks(in bytes: [UInt8], file: [UInt8]) throws(BookmarkCommandFailure) -> [EmbeddedBookmark]? {
        do {
            return try EmbeddedBookmarks.find(inFile: bytes)
        } catch {
            throw Self.failure(error, file: file)
        }
    }

    /// The bookmark data at `keyPath` in the property list `bytes` (bare, out of an alias file's layout), to resolve.
    /// Data that is no bookmark is `file`'s failure, naming the key path; a legacy alias record is refused with that
    /// reason: it has no `book` layout to resolve (`inspect` shows what it holds).
    func embeddedData(at keyPath: String, in bytes: [UInt8], file: [UInt8]) throws(BookmarkCommandFailure) -> [UInt8] {
        let data: [UInt8]
        do {
            data = try EmbeddedBookmarks.data(atKeyPath: KeyPath(keyPath), inPropertyList: bytes)
        } catch {
            throw Self.failure(error, file: file)
        }
        let shown = String(decoding: file, as: UTF8.self)
        if !EmbeddedBookmarks.startsWith(data, "book"), AliasRecord(data) != nil {
            throw BookmarkCommandFailure(message: "\(shown): the data at \(KeyPath(keyPath)) is a legacy alias record, which cannot be resolved")
        }
        do {
            return try AliasFile.unwrap(data)
        } catch {
            throw BookmarkCommandFailure(message: "\(shown): the data at \(KeyPath(keyPath)) is not bookmark data: \(error)")
        }
    }

    /// `file: explanation`: a key-path miss by its message (which names the path), a reading error in full (format,
    /// position).
    private static func failure(_ error: any Error, file: [UInt8]) -> BookmarkCommandFailure {
        let shown = String(decoding: file, as: UTF8.self)
        if let error = error as? PlistError, error.kind == .keyPath {
            return BookmarkCommandFailure(message: "\(shown): \(error.message)")
        }
        return BookmarkCommandFailure(message: "\(shown): \(error)")
    }
}

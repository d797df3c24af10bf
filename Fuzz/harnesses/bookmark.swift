// libFuzzer harness: the strict `book` container parser and everything built on it (resource values, key listing,
// inspection, alias-file unwrapping) must return or throw BookmarkError — typed throws make anything else a crash.
import Bookmarks

private let keys: Set<String> = [
    Bookmark.ResourceKey.path, Bookmark.ResourceKey.name, Bookmark.ResourceKey.localizedName,
    Bookmark.ResourceKey.volumeURL, Bookmark.ResourceKey.volumeName, Bookmark.ResourceKey.volumeUUID,
    Bookmark.ResourceKey.creationDate, Bookmark.ResourceKey.isDirectory, Bookmark.ResourceKey.isRegularFile,
    Bookmark.ResourceKey.isSymbolicLink, "org.plistkit.linux.rel",
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBookmark(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    _ = try? BookContainer.read(bytes)
    _ = try? Bookmark.resourceValues(forKeys: keys, fromBookmarkData: bytes)
    _ = try? Bookmark.allKeys(fromBookmarkData: bytes)
    _ = try? BookmarkInspection.text(bytes)
    _ = try? BookmarkInspection.json(bytes)
    if let inner = try? AliasFile.unwrap(bytes) { _ = try? BookContainer.read(inner) }
    return 0
}

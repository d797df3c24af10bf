import Bookmarks
import Foundation
import PlistKit
import Testing
@testable import Preferences

/// The explicit bookmark API (`setBookmark`, `bookmark`, `resolveBookmark`, `setBookmarkData`) and location-only
/// storage (`setLocation`), on the real file system. Oracles: the bytes `Bookmark.create` returned, the file system
/// (where the file was moved), the domain file re-read with `PropertyList.read`.
@Suite struct DefaultsBookmarksTests {
    func makeFile(_ dir: TempDirectory, _ name: String = "photo.jpg") throws -> String {
        let path = dir.path + "/pictures/" + name
        try FileManager.default.createDirectory(atPath: dir.path + "/pictures", withIntermediateDirectories: true)
        try Data([0xFF, 0xD8, 0xFF]).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func bookmarkIsHandedOverUntouchedAndResolveReportsMovedWithoutRewriting() throws {
        let dir = TempDirectory("prefs-bm")
        let file = try makeFile(dir)
        let d = try #require(Defaults(suiteName: nil, environment: dir.environment()))
        let data = try d.setBookmark(for: URL(fileURLWithPath: file), forKey: "photo")
        #expect(d.bookmark(forKey: "photo") == data)
        #expect(d.synchronize())
        #expect(try dir.storedValue("photo") == ["bookmark": .data(data), "path": .string(file), "url": .string(URL(fileURLWithPath: file).absoluteString)])

        let moved = dir.path + "/pictures/holiday/photo-renamed.jpg"
        try FileManager.default.createDirectory(atPath: dir.path + "/pictures/holiday", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: file, toPath: moved)

        let resolution = try #require(try d.resolveBookmark(forKey: "photo"))
        #expect(resolution.path == moved)
        #expect(resolution.isStale)
        #expect(resolution.reason == .moved)
        let refreshed = try #require(resolution.refreshedData)
        // Nothing was rewritten: same bytes in memory and, after a flush, on disk.
        #expect(d.bookmark(forKey: "photo") == data)
        #expect(d.synchronize())
        #expect(try dir.storedValue("photo")?["bookmark"] == .data(data))
        #expect(try dir.storedValue("photo")?["path"] == .string(file))

        // The caller decides to store the refreshed data.
        try d.setBookmarkData(Data(refreshed), forKey: "photo")
        #expect(d.bookmark(forKey: "photo") == Data(refreshed))
        #expect(d.plistValue(forKey: "photo")?["path"] == .string(moved))
        let again = try #require(try d.resolveBookmark(forKey: "photo"))
        #expect(!again.isStale)
        #expect(again.path == moved)
    }

    @Test func setBookmarkThrowsWhereSetFallsBack() throws {
        let dir = TempDirectory("prefs-bm")
        let d = try #require(Defaults(suiteName: nil, environment: dir.environment()))
        let missing = dir.path + "/nope.txt"
        #expect(throws: BookmarkError.fileNotFound(lastKnownPath: missing)) {
            try d.setBookmark(for: URL(fileURLWithPath: missing), forKey: "k")
        }
        #expect(throws: BookmarkError.self) { try d.setBookmark(for: URL(string: "https://example.com/")!, forKey: "k") }
        #expect(throws: BookmarkError.self) { try d.setBookmarkData(Data("not a bookmark".utf8), forKey: "k") }
        #expect(d.plistValue(forKey: "k") == nil)
    }

    @Test func managedKeyRefusesBookmark() throws {
        let dir = TempDirectory("prefs-bm")
        let file = try makeFile(dir)
        try dir.writePlist(["locked": "/etc/hosts"], to: dir.locations.managedPath(domain: "com.example.app"))
        let d = try #require(Defaults(suiteName: nil, environment: dir.environment()))
        #expect(throws: PreferencesError.self) { try d.setBookmark(for: URL(fileURLWithPath: file), forKey: "locked") }
        #expect(d.url(forKey: "locked")?.path == "/etc/hosts")
    }

    @Test func locationOnlyStoresJustThePath() throws {
        let dir = TempDirectory("prefs-bm")
        let file = try makeFile(dir)
        let d = try #require(Defaults(suiteName: nil, environment: dir.environment()))
        d.setLocation(URL(fileURLWithPath: file), forKey: "where")
        d.setLocation(URL(string: "https://example.com/a?b=c"), forKey: "web")
        #expect(d.synchronize())
        #expect(try dir.storedValue("where") == .string(file))
        #expect(try dir.storedValue("web") == "https://example.com/a?b=c")
        #expect(d.bookmark(forKey: "where") == nil)
        #expect(try d.resolveBookmark(forKey: "where") == nil)
        #expect(d.url(forKey: "where") == URL(fileURLWithPath: file))
        // A location does not follow the file (that is what the bookmark forms are for).
        try FileManager.default.moveItem(atPath: file, toPath: file + ".moved")
        #expect(d.url(forKey: "where")?.path == file)
        d.setLocation(nil, forKey: "where")
        #expect(d.plistValue(forKey: "where") == nil)
    }

    @Test func urlsInsideAnyValuesUseTheArchiver() throws {
        let dir = TempDirectory("prefs-bm")
        let file = try makeFile(dir)
        let d = try #require(Defaults(suiteName: nil, environment: dir.environment()))
        d.set(URL(fileURLWithPath: file) as Any, forKey: "any")
        d.set(["recent": [URL(fileURLWithPath: file)]] as [String: Any], forKey: "nested")
        #expect(d.bookmark(forKey: "any") != nil)
        let element = try #require(d.plistValue(forKey: "nested")?["recent"]?[0])
        #expect(element["path"] == .string(file))
        #expect(element["bookmark"]?.dataValue != nil)
    }

    @Test func locationArchiverInstanceNeverBookmarks() throws {
        let dir = TempDirectory("prefs-bm")
        let file = try makeFile(dir)
        let d = try #require(Defaults(suiteName: nil, environment: dir.environment(), urlArchiver: LocationURLArchiver(pathOnly: true)))
        d.set(URL(fileURLWithPath: file), forKey: "k")
        #expect(d.plistValue(forKey: "k") == .string(file))
    }
}

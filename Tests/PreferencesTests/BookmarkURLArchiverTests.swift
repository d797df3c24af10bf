import Bookmarks
import Foundation
import PlistKit
import Synchronization
import Testing
@testable import Preferences
import TestSupport

/// URL storage through `Defaults` with the default `BookmarkURLArchiver`, on the real file system (temp directories;
/// preference roots isolated by `TempDirectory.environment()`). Oracles: the file system itself (where `mv` put the
/// file), the domain file re-read with `PropertyList.read` and with Foundation's `PropertyListSerialization`, and
/// the Bookmarks library's own resolution of the stored data.
@Suite struct BookmarkURLArchiverTests {
    /// A temp directory holding a small file to bookmark (the directory lives as long as this value).
    struct Files {
        let dir: TempDirectory
        let root: String
        let file: String

        init(_ dir: TempDirectory, name: String = "report.txt") throws {
            self.dir = dir
            root = dir.path + "/files"
            try FileManager.default.createDirectory(atPath: root + "/inbox", withIntermediateDirectories: true)
            file = root + "/inbox/" + name
            try Data("contents".utf8).write(to: URL(fileURLWithPath: file))
        }

        func move(to relative: String) throws -> String {
            let target = root + "/" + relative
            try FileManager.default.createDirectory(
                atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.moveItem(atPath: file, toPath: target)
            return target
        }
    }

    /// A fresh directory with a file to bookmark and application-domain defaults isolated in it; the file's URL is
    /// stored under `key` unless it is nil.
    func fixture(storingURLForKey key: String? = "doc") throws -> (files: Files, d: Defaults) {
        let files = try Files(TempDirectory("prefs-url"))
        let d = try #require(Defaults(suiteName: nil, environment: files.dir.environment()))
        if let key { d.set(URL(fileURLWithPath: files.file), forKey: key) }
        return (files, d)
    }

    @Test func fileURLIsStoredAsBookmarkWithPath() throws {
        let (files, d) = try fixture()
        let dir = files.dir
        #expect(d.synchronize())
        let stored = try #require(try dir.storedValue("doc")?.dictionaryValue)
        #expect(stored["path"] == .string(files.file))
        #expect(stored["url"] == .string(URL(fileURLWithPath: files.file).absoluteString))
        let bookmark = try #require(stored["bookmark"]?.dataValue)
        // The stored bookmark is real: the Bookmarks library resolves it to the file, not stale.
        let resolution = try Bookmark.resolve(Array(bookmark))
        #expect(resolution.path == files.file)
        #expect(!resolution.isStale)
        // Foundation parses the file and sees the location as a plain string entry.
        let viaFoundation = try dir.readPlistWithFoundation(dir.locations.path(domain: "com.example.app"))
        #expect(viaFoundation["doc"]?["path"] == .string(files.file))
        #expect(d.url(forKey: "doc") == URL(fileURLWithPath: files.file))
    }

    @Test func movedFileIsFollowedAndStaleBookmarkRewritten() throws {
        let (files, d) = try fixture()
        let dir = files.dir
        #expect(d.synchronize())
        let before = try #require(try dir.storedValue("doc")?.dictionaryValue?["bookmark"]?.dataValue)

        let moved = try files.move(to: "archive/2026/renamed.txt")
        // A fresh environment reads the file as another process would.
        let fresh = try #require(Defaults(suiteName: nil, environment: dir.environment()))
        #expect(fresh.url(forKey: "doc")?.path == moved)
        // The rewrite is in memory at once and marked for flushing: synchronize writes it.
        #expect(fresh.synchronize())
        let after = try #require(try dir.storedValue("doc")?.dictionaryValue)
        #expect(after["path"] == .string(moved))
        #expect(after["url"] == .string(URL(fileURLWithPath: moved).absoluteString))
        let refreshed = try #require(after["bookmark"]?.dataValue)
        #expect(refreshed != before)
        let check = try Bookmark.resolve(Array(refreshed))
        #expect(check.path == moved)
        #expect(!check.isStale)
        // Reading again does not rewrite (nothing stale), and still gives the new place.
        let settled = fresh.plistValue(forKey: "doc")
        #expect(fresh.url(forKey: "doc")?.path == moved)
        #expect(fresh.plistValue(forKey: "doc") == settled)
    }

    @Test func rewriteIsFlushedInTheBackground() throws {
        let (files, d) = try fixture()
        let dir = files.dir
        #expect(d.synchronize())
        let moved = try files.move(to: "elsewhere.txt")
        let env = dir.environment { $0.flushDelay = 0.05 }
        let fresh = try #require(Defaults(suiteName: nil, environment: env))
        #expect(fresh.url(forKey: "doc")?.path == moved)
        var onDisk: PlistValue?
        for _ in 0..<100 {
            onDisk = try dir.storedValue("doc")?.dictionaryValue?["path"]
            if onDisk == .string(moved) { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        #expect(onDisk == .string(moved))
    }

    @Test func replacedFileKeepsPathAndGetsAFreshBookmark() throws {
        let (files, d) = try fixture()
        let before = try #require(d.bookmark(forKey: "doc"))
        // An atomic save: a new file renamed over the old one (another inode at the same path).
        try Data("new contents".utf8).write(to: URL(fileURLWithPath: files.file), options: .atomic)
        #expect(try d.resolveBookmark(forKey: "doc")?.reason == .replaced)
        #expect(d.url(forKey: "doc")?.path == files.file)
        let after = try #require(d.bookmark(forKey: "doc"))
        #expect(after != before)
        #expect(try Bookmark.resolve(Array(after)).isStale == false)
    }

    @Test func valueFromAnotherDomainIsFollowedButNotCopiedIntoOurs() throws {
        let dir = TempDirectory("prefs-url")
        let files = try Files(dir)
        let env = dir.environment()
        let global = Defaults(validatedDomain: Defaults.globalDomain, environment: env)
        global.set(URL(fileURLWithPath: files.file), forKey: "shared")
        #expect(global.synchronize())
        let moved = try files.move(to: "moved.txt")
        let d = try #require(Defaults(suiteName: nil, environment: env))
        #expect(d.url(forKey: "shared")?.path == moved)
        #expect(d.synchronize())
        #expect(d.persistentPlistDomain(forName: "com.example.app")?["shared"] == nil)
        // The owner of the value rewrites it.
        #expect(global.url(forKey: "shared")?.path == moved)
        #expect(global.synchronize())
        #expect(try dir.storedValue("shared", domain: ".GlobalPreferences")?["path"] == .string(moved))
    }

    @Test func missingFileFallsBackToPathOnlyStorage() throws {
        let dir = TempDirectory("prefs-url")
        let d = try #require(Defaults(suiteName: nil, environment: dir.environment()))
        let missing = dir.path + "/not yet/created.txt"
        d.set(URL(fileURLWithPath: missing), forKey: "later")
        #expect(d.plistValue(forKey: "later") == ["path": .string(missing), "url": .string(URL(fileURLWithPath: missing).absoluteString)])
        #expect(d.url(forKey: "later")?.path == missing)
        #expect(d.bookmark(forKey: "later") == nil)
    }

    @Test func deletedFileGivesTheLastKnownPath() throws {
        let (files, d) = try fixture()
        let stored = d.plistValue(forKey: "doc")
        try FileManager.default.removeItem(atPath: files.file)
        #expect(d.url(forKey: "doc")?.path == files.file)
        #expect(d.plistValue(forKey: "doc") == stored)
        // Not found, or the search gave up (it widens into the shared temp directory): either way the last path.
        do {
            _ = try d.resolveBookmark(forKey: "doc")
            Issue.record("resolved a deleted file")
        } catch {
            #expect(error.lastKnownPath == files.file)
        }
    }

    /// Whatever retry interval the caller sets (infinite, NaN, huge, negative), a failed resolution gives the stored
    /// path, the first time and when asked again (the second answer may come from the failure memory).
    @Test func anyFailureRetryIntervalIsAccepted() throws {
        let (files, _) = try fixture(storingURLForKey: nil)
        let stored = BookmarkURLArchiver().archive(URL(fileURLWithPath: files.file))
        #expect(BookmarkURLArchiver.bookmarkData(in: stored) != nil)
        try FileManager.default.removeItem(atPath: files.file)
        for interval in [Double.infinity, .nan, 1e30, -1] {
            let archiver = BookmarkURLArchiver(failureRetryInterval: interval)
            #expect(archiver.unarchive(stored)?.path == files.file, "\(interval)")
            #expect(archiver.unarchive(stored)?.path == files.file, "\(interval), again")
        }
    }

    @Test func nonFileURLsRoundTripExactly() throws {
        let dir = TempDirectory("prefs-url")
        let d = try #require(Defaults(suiteName: nil, environment: dir.environment()))
        let texts = [
            "https://example.com/a?b=c", "https://user@example.com:8443/p%20q/r?x=1&y=%2F#frag", "mailto:a@example.com",
            "ftp://example.org/", "urn:isbn:0451450523",
        ]
        for (i, text) in texts.enumerated() {
            let url: URL = try #require(URL(string: text))
            d.set(url, forKey: "u\(i)")
        }
        #expect(d.synchronize())
        let fresh = try #require(Defaults(suiteName: nil, environment: dir.environment()))
        for (i, text) in texts.enumerated() {
            #expect(try dir.storedValue("u\(i)") == .string(text))
            #expect(fresh.url(forKey: "u\(i)")?.absoluteString == text)
            #expect(fresh.url(forKey: "u\(i)") == URL(string: text))
        }
    }

    @Test func plainPathAndURLStringsAreRead() throws {
        let (files, d) = try fixture(storingURLForKey: nil)
        d.set(files.file, forKey: "path")
        d.set(URL(fileURLWithPath: files.file).absoluteString, forKey: "fileURL")
        d.set("https://example.com/a?b=c", forKey: "web")
        d.set("~/notes.txt", forKey: "tilde")
        #expect(d.url(forKey: "path") == URL(fileURLWithPath: files.file))
        #expect(d.url(forKey: "fileURL")?.path == files.file)
        #expect(d.url(forKey: "web")?.absoluteString == "https://example.com/a?b=c")
        #expect(d.url(forKey: "tilde")?.path == PreferencesLocations.homeDirectory() + "/notes.txt")
        // Plain strings are not bookmarks: nothing to hand over, nothing rewritten.
        #expect(d.bookmark(forKey: "path") == nil)
        #expect(try d.resolveBookmark(forKey: "path") == nil)
        #expect(d.plistValue(forKey: "path") == .string(files.file))
    }

    @Test func legacyLayoutsStillRead() throws {
        let dir = TempDirectory("prefs-url")
        let d = try #require(Defaults(suiteName: nil, environment: dir.environment()))
        // What LocationURLArchiver wrote, both forms.
        d.setPlistValue(LocationURLArchiver().archive(URL(fileURLWithPath: "/srv/a b.txt")), forKey: "location")
        d.setPlistValue(LocationURLArchiver(pathOnly: true).archive(URL(fileURLWithPath: "/srv/c.txt")), forKey: "bare")
        #expect(d.url(forKey: "location")?.path == "/srv/a b.txt")
        #expect(d.url(forKey: "bare")?.path == "/srv/c.txt")
        // Apple's keyed archive of an NSURL, made by Foundation's NSKeyedArchiver (the oracle).
        let web = try #require(URL(string: "https://example.com/x?y=1"))
        let archive = try NSKeyedArchiver.archivedData(withRootObject: web as NSURL, requiringSecureCoding: false)
        d.set(archive, forKey: "keyed")
        #expect(d.url(forKey: "keyed") == web)
    }

    @Test func garbageGivesNilNeverACrash() throws {
        let (files, d) = try fixture(storingURLForKey: "good")
        defer { withExtendedLifetime(files) {} }  // the directory holds the bookmarked file and the domain
        let real = try #require(d.bookmark(forKey: "good"))
        let junk: [(String, PlistValue)] = [
            ("random", .data(Data([0xff, 0x00, 0x13, 0x37]))),
            ("bookJunk", .data(Data("book".utf8) + Data(repeating: 0xAB, count: 60))),
            ("truncated", .data(real.prefix(real.count / 2))),
            ("emptyData", .data(Data())),
            ("number", 12), ("bool", true), ("array", ["/etc/hosts"]), ("emptyDict", [:]),
            ("dictJunkBookmark", ["bookmark": .data(Data([1, 2, 3]))]),
            ("dictWrongTypes", ["bookmark": "x", "path": 5, "url": true]),
            ("date", .date(PlistDate(Date(timeIntervalSince1970: 0)))),
        ]
        for (key, value) in junk {
            d.setPlistValue(value, forKey: key)
            #expect(d.url(forKey: key) == nil, "\(key)")
            #expect(d.bookmark(forKey: key) == nil, "\(key)")
            #expect(d.plistValue(forKey: key) == value, "\(key) must not be rewritten")
        }
        // Damaged bookmark data beside a path: the path is the answer.
        d.setPlistValue(["bookmark": .data(Data("book".utf8) + Data(repeating: 0, count: 60)), "path": "/srv/x"], forKey: "damaged")
        #expect(d.url(forKey: "damaged")?.path == "/srv/x")
        // Seeded byte flips of real bookmark data, raw and in the dictionary layout: any answer, no crash.
        var rng = SeededGenerator(seed: 0xB00C)
        for trial in 0..<300 {
            var bytes = Array(real)
            for _ in 0...(trial % 4) {
                let i = rng.below(bytes.count)
                bytes[i] ^= UInt8(truncatingIfNeeded: rng.next() | 1)
            }
            d.setPlistValue(trial % 2 == 0 ? .data(Data(bytes)) : ["bookmark": .data(Data(bytes))], forKey: "fuzz")
            _ = d.url(forKey: "fuzz")
            _ = try? d.resolveBookmark(forKey: "fuzz")
        }
    }

    @Test func rewriteNeverUndoesAConcurrentSet() throws {
        let (files, d) = try fixture()
        let read = try #require(d.plistValue(forKey: "doc"))
        let moved = try files.move(to: "m.txt")
        let resolved = try #require(BookmarkURLArchiver().resolve(read))
        #expect(resolved.url.path == moved)
        let replacement = try #require(resolved.replacement)
        // Another thread stores a new value between the read and the rewrite: the rewrite must not clobber it.
        d.set("https://example.com/new", forKey: "doc")
        d.rewrite("doc", from: read, to: replacement)
        #expect(d.plistValue(forKey: "doc") == "https://example.com/new")
        // Without the interference the rewrite lands.
        d.setPlistValue(read, forKey: "doc")
        d.rewrite("doc", from: read, to: replacement)
        #expect(d.plistValue(forKey: "doc") == replacement)
    }

    @Test func rewriteIsReportedToObservers() throws {
        let (files, d) = try fixture()
        let seen = Mutex<[PreferenceChange]>([])
        let token = d.observe("doc") { change in seen.withLock { $0.append(change) } }
        defer { token.cancel() }
        let moved = try files.move(to: "observed.txt")
        #expect(d.url(forKey: "doc")?.path == moved)
        let changes = seen.withLock { $0 }
        #expect(changes.count == 1)
        #expect(changes.first?.newValue?["path"] == .string(moved))
        #expect(changes.first?.oldValue?["path"] == .string(files.file))
    }

    @Test func bareBookmarkDataIsResolvedAndRewrittenInItsOwnForm() throws {
        let (files, d) = try fixture(storingURLForKey: nil)
        let original = Data(try Bookmark.create(for: URL(fileURLWithPath: files.file)))
        d.set(original, forKey: "raw")
        #expect(d.bookmark(forKey: "raw") == original)
        let moved = try files.move(to: "raw-moved.txt")
        #expect(d.url(forKey: "raw")?.path == moved)
        let rewritten = try #require(d.plistValue(forKey: "raw")?.dataValue)
        #expect(rewritten != original)
        #expect(try Bookmark.resolve(Array(rewritten)).path == moved)
    }
}

/// What Foundation's own `UserDefaults.url(forKey:)` makes of our stored forms (the oracle is Foundation itself;
/// values go through its registration domain, so no file and no environment variable is touched).
@Suite struct BookmarkURLFoundationInteropTests {
    @Test func foundationReadsLocationsAndIgnoresTheBookmarkDictionary() throws {
        let dir = TempDirectory("prefs-url-fdn")
        let file = dir.path + "/f.txt"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        let ours = try #require(Defaults(suiteName: nil, environment: dir.environment()))
        ours.set(URL(fileURLWithPath: file), forKey: "bookmarked")
        ours.setLocation(URL(fileURLWithPath: file), forKey: "location")
        let bookmarked = try FoundationBridge.toFoundation(try #require(ours.plistValue(forKey: "bookmarked")))
        let location = try FoundationBridge.toFoundation(try #require(ours.plistValue(forKey: "location")))
        let ud = try #require(UserDefaults(suiteName: "com.example.prefurl.\(UUID().uuidString)"))
        let prefix = "prefurl-\(UUID().uuidString)-"
        ud.register(defaults: [prefix + "bookmarked": bookmarked, prefix + "location": location])
        #expect(ud.url(forKey: prefix + "bookmarked") == nil)
        #expect(ud.url(forKey: prefix + "location")?.path == file)
        #expect((ud.dictionary(forKey: prefix + "bookmarked")?["path"] as? String) == file)
    }
}

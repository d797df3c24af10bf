import Foundation
import PlistKit
import Testing
@testable import Bookmarks
import TestSupport

/// `bookmark inspect` and `bookmark resolve --key-path` on property lists and keyed archives that hold bookmark data,
/// in-process and as the built binary. The archives are written by Foundation's `NSKeyedArchiver` and the plain
/// property lists by `PropertyListSerialization`, in the shapes macOS uses (a shared file list's items, Finder's
/// recent folders).
@Suite struct BookmarkCommandEmbeddedTests {
    static func run(_ arguments: [String], input: [UInt8] = []) -> (status: Int32, io: RecordingIO) {
        BookmarkCommandTests.run(arguments, input: input)
    }

    /// An `.sfl2`-shaped archive: `items` → `Bookmark` (the second item has none), and empty `properties`.
    static func sharedFileList(_ bookmark: [UInt8], extra: [String: Any] = [:]) throws -> Data {
        let first = NSMutableDictionary(dictionary: ["Name": "first", "Bookmark": NSData(bytes: bookmark, length: bookmark.count)])
        for (k, v) in extra { first[k] = v }
        let items = NSArray(array: [first, NSDictionary(dictionary: ["Name": "AirDrop"])])
        return try NSKeyedArchiver.archivedData(withRootObject: NSDictionary(dictionary: ["items": items, "properties": NSDictionary()]),
                                                requiringSecureCoding: false)
    }

    /// A version-3 Alias Manager record with no tags, laid out as Python's `mac_alias` reads it: u32 application info,
    /// u16 size (the length), u16 version 3, a 46-byte fixed part, then the end tag 0xFFFF.
    static let aliasRecord: [UInt8] = {
        var b = [UInt8](repeating: 0, count: 56)
        b[5] = 56
        b[7] = 3
        b[54] = 0xFF
        b[55] = 0xFF
        return b
    }()

    @Test func inspectListsTheBookmarksInsideAnArchive() throws {
        let s = Scratch()
        let target = s.file("notes.txt")
        let blob = try Bookmark.create(path: target)
        let list = s.p("list.sfl2")
        try Self.sharedFileList(blob).write(to: URL(fileURLWithPath: list))
        let text = Self.run(["inspect", list])
        #expect(text.status == 0 && text.io.errorText.isEmpty, "\(text.io.errorText)")
        #expect(text.io.outputText == "items.0.Bookmark: bookmark, \(blob.count) bytes\n  path: \(target)\n  format: linux v1\n")

        let json = Self.run(["inspect", list, "--json"])
        #expect(json.status == 0 && json.io.outputText.hasSuffix("]\n"))
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.io.output)) as? [[String: Any]])
        #expect(parsed.count == 1)
        #expect(parsed.first?["keyPath"] as? String == "items.0.Bookmark")
        #expect(parsed.first?["kind"] as? String == "bookmark")
        #expect(parsed.first?["size"] as? Int == blob.count)
        #expect(parsed.first?["fields"] as? [String: String] == ["path": target, "format": "linux v1"])
    }

    /// A macOS blob in Finder's recent folders (an XML property list), an alias record and data that only starts like a
    /// bookmark: each listed with its key path.
    @Test(.enabled(if: Fixtures.directory != nil, "../shared/fixtures/apple-bookmarks is absent"))
    func inspectListsMacOSBookmarksAndAliasRecordsInAPropertyList() throws {
        let s = Scratch()
        let downloads = try #require(Fixtures.bytes("downloads.bookmark"))
        let finder: NSDictionary = [
            "FXRecentFolders": [["name": "Downloads", "file-bookmark": Data(downloads)] as NSDictionary] as NSArray,
            "Alias": Data(Self.aliasRecord), "Broken": Data("book and then some text".utf8),
        ]
        let path = s.p("com.apple.finder.plist")
        try PropertyListSerialization.data(fromPropertyList: finder, format: .xml, options: 0).write(to: URL(fileURLWithPath: path))
        let r = Self.run(["inspect", path])
        #expect(r.status == 0, "\(r.io.errorText)")
        // The fixture's path, as macOS stored it (apple-bookmarks' downloads.bookmark).
        #expect(r.io.outputText.contains("FXRecentFolders.0.file-bookmark: bookmark, \(downloads.count) bytes\n"
            + "  path: /Users/puffycid/Downloads/powershell-7.2.4-osx-x64.pkg\n  format: foreign\n"), "\(r.io.outputText)")
        #expect(r.io.outputText.contains("Alias: alias record, 56 bytes\n  version: 3\n  kind: file\n"), "\(r.io.outputText)")
        #expect(r.io.outputText.contains("Broken: invalid bookmark (corrupt bookmark data at offset 4: sizeMismatch"), "\(r.io.outputText)")
    }

    @Test func inspectOfAPropertyListWithoutBookmarks() throws {
        let plist = try PropertyListSerialization.data(fromPropertyList: ["a": [1, 2], "b": Data([1, 2, 3])] as NSDictionary,
                                                       format: .binary, options: 0)
        let text = Self.run(["inspect", "-"], input: Array(plist))
        #expect(text.status == 0 && text.io.outputText == "no bookmark data found\n")
        let json = Self.run(["inspect", "-", "--json"], input: Array(plist))
        #expect(json.status == 0 && json.io.outputText == "[]\n")
    }

    /// Bookmark data, alias files and text that is no property list keep today's handling.
    @Test func bookmarkDataAndOtherFilesAreInspectedAsBefore() throws {
        let s = Scratch()
        let blob = try Bookmark.create(path: s.file("f"))
        for bytes in [blob, try AliasFile.wrap(blob)] {
            let r = Self.run(["inspect", "-"], input: bytes)
            #expect(r.status == 0 && r.io.outputText.hasPrefix("book: \(blob.count) bytes, version 0x10040000"), "\(r.io.outputText)")
            #expect(r.io.outputText.contains("path: \(s.p("f"))\n"))
        }
        for text in ["hello\n", "not a bookmark", "(1, 2"] {
            let r = Self.run(["inspect", "-"], input: Array(text.utf8))
            #expect(r.status == 1 && r.io.errorText.hasPrefix("bookmark: corrupt bookmark data at offset 0"), "\(text): \(r.io.errorText)")
        }
    }

    /// A file with a binary, XML or JSON signature that does not read is reported as the damaged property list it is.
    @Test func aDamagedPropertyListIsReportedAsOne() throws {
        let s = Scratch()
        let path = s.file("broken.plist", "<?xml version=\"1.0\"?><plist><dict><key>a</key></dict></plist>")
        let r = Self.run(["inspect", path])
        #expect(r.status == 1 && r.io.output.isEmpty)
        #expect(r.io.errorText == "bookmark: \(path): XML: line 1:54 (offset 53): value missing for key inside <dict> (at key path a)\n")
        let truncated = Self.run(["inspect", "-"], input: Array("bplist00".utf8))
        #expect(truncated.status == 1 && truncated.io.errorText.hasPrefix("bookmark: -: binary: "), "\(truncated.io.errorText)")
    }

    /// `resolve --key-path` resolves the bookmark inside an archive as `resolve` resolves bare data: the file was moved,
    /// so the new path and `stale: moved`.
    @Test func resolveAtAKeyPathFollowsAMovedFile() throws {
        let s = Scratch()
        let blob = try Bookmark.create(path: s.file("before.txt", "content"))
        let list = s.p("list.sfl2")
        try Self.sharedFileList(blob).write(to: URL(fileURLWithPath: list))
        try s.move("before.txt", "after.txt")
        let r = Self.run(["resolve", "--key-path", "items.0.Bookmark", list])
        #expect(r.status == 0, "\(r.io.errorText)")
        #expect(r.io.outputText.hasPrefix(s.p("after.txt") + "\nstale: moved\n"))
        let json = Self.run(["resolve", list, "--json", "--key-path", "items.0.Bookmark"])
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(json.io.output)) as? [String: Any])
        #expect(parsed["path"] as? String == s.p("after.txt") && parsed["reason"] as? String == "moved")
        // An alias file's layout inside the data is unwrapped as `resolve FILE` unwraps it.
        try Self.sharedFileList(try AliasFile.wrap(blob)).write(to: URL(fileURLWithPath: list))
        #expect(Self.run(["resolve", "--key-path", "items.0.Bookmark", list]).io.outputText.hasPrefix(s.p("after.txt") + "\n"))
    }

    @Test func resolveAtAKeyPathThatHoldsNoBookmark() throws {
        let s = Scratch()
        let blob = try Bookmark.create(path: s.file("f"))
        let list = s.p("list.sfl2")
        try Self.sharedFileList(blob, extra: ["junk": Data("not bookmark data".utf8), "alias": Data(Self.aliasRecord)])
            .write(to: URL(fileURLWithPath: list))
        let cases: [(String, String)] = [
            ("items.1.Bookmark", "nothing at items.1.Bookmark (no Bookmark)"),
            ("items.5", "nothing at items.5 (no 5)"),
            ("items.0.Name", "the value at items.0.Name is a string, not data"),
            ("properties", "the value at properties is a dictionary, not data"),
            ("items.0.alias", "the data at items.0.alias is a legacy alias record, which cannot be resolved"),
        ]
        for (keyPath, message) in cases {
            let r = Self.run(["resolve", "--key-path", keyPath, list])
            #expect(r.status == 1 && r.io.output.isEmpty, "\(keyPath)")
            #expect(r.io.errorText == "bookmark: \(list): \(message)\n", "\(keyPath)")
        }
        let junk = Self.run(["resolve", "--key-path", "items.0.junk", list])
        #expect(junk.status == 1)
        #expect(junk.io.errorText.hasPrefix("bookmark: \(list): the data at items.0.junk is not bookmark data: corrupt bookmark data at offset 0"))
        // Bare bookmark data has no key paths: it is not a property list.
        let bare = s.p("bare.bm")
        try Data(blob).write(to: URL(fileURLWithPath: bare))
        let notPlist = Self.run(["resolve", "--key-path", "a", bare])
        #expect(notPlist.status == 1 && notPlist.io.errorText.hasPrefix("bookmark: \(bare): "), "\(notPlist.io.errorText)")
        let missingValue = Self.run(["resolve", list, "--key-path"])
        #expect(missingValue.status == 64 && missingValue.io.errorText == "bookmark: --key-path needs a value\n")
    }

    @Test func usageDescribesTheNewUses() {
        #expect(BookmarkCommand.usage.contains("bookmark resolve FILE [--key-path P]"))
        #expect(BookmarkCommand.usage.contains("--key-path P resolves the bookmark data at key path P of a property list or keyed archive"))
        #expect(BookmarkCommand.usage.contains("Given a property list or\n         keyed archive"))
    }

    @Test(.enabled(if: Shell.bookmarkTool != nil, "the bookmark executable is not built next to the tests"))
    func givesWhatTheBinaryGives() throws {
        let bookmark = try #require(Shell.bookmarkTool)
        let s = Scratch()
        let blob = try Bookmark.create(path: s.file("f"))
        let list = s.p("list.sfl2")
        try Self.sharedFileList(blob, extra: ["alias": Data(Self.aliasRecord)]).write(to: URL(fileURLWithPath: list))
        let broken = s.file("broken.plist", "<plist><dict><key>a</key></dict></plist>")
        for arguments in [["inspect", list], ["inspect", list, "--json"], ["inspect", broken],
                          ["resolve", "--key-path", "items.0.Bookmark", list], ["resolve", "--key-path", "items.0.alias", list],
                          ["resolve", "--key-path", "nowhere", list]] {
            let here = Self.run(arguments)
            let binary = try Shell.run(bookmark, arguments)
            #expect(here.status == binary.status, "\(arguments)")
            #expect(here.io.outputText == binary.stdout, "\(arguments)")
            #expect(here.io.errorText == binary.stderr, "\(arguments)")
        }
    }
}

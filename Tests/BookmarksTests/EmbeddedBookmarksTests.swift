import Foundation
import Testing
import PlistKit
import TestSupport
@testable import Bookmarks

/// Bookmarks found inside property lists and keyed archives (shapes from the format reference's table of where macOS
/// keeps them); the archives are written by Foundation's own `NSKeyedArchiver`.
@Suite struct EmbeddedBookmarksTests {
    static let haveFixtures = Fixtures.directory != nil

    static func foundationArchive(_ root: NSObject) throws -> [UInt8] {
        Array(try NSKeyedArchiver.archivedData(withRootObject: root, requiringSecureCoding: false))
    }

    /// An `.sfl2`-shaped archive: root dictionary → items → Bookmark, as plain data and as NSMutableData.
    @Test(.enabled(if: haveFixtures, "../shared/fixtures/apple-bookmarks is absent"))
    func sharedFileListItems() throws {
        let downloads = try #require(Fixtures.bytes("downloads.bookmark"))
        let login = try #require(Fixtures.bytes("loginitem.bookmark"))
        let items = NSArray(array: [
            NSDictionary(dictionary: ["Bookmark": NSData(bytes: downloads, length: downloads.count), "Name": "pkg"]),
            NSDictionary(dictionary: ["Name": "AirDrop"]),
            NSDictionary(dictionary: ["Bookmark": NSMutableData(bytes: login, length: login.count), "uuid": NSUUID()]),
        ])
        let archive = try Self.foundationArchive(NSDictionary(dictionary: ["items": items, "properties": NSDictionary()]))
        let found = try EmbeddedBookmarks.find(inPropertyList: archive)
        #expect(found.map(\.keyPath.description) == ["items.0.Bookmark", "items.2.Bookmark"])
        #expect(found.allSatisfy { $0.kind == .bookmark })
        #expect(found[0].fields.first { $0.name == "path" }?.value == "/Users/puffycid/Downloads/powershell-7.2.4-osx-x64.pkg")
        #expect(found[1].bytes == login)
        #expect(try EmbeddedBookmarks.data(atKeyPath: "items.2.Bookmark", inPropertyList: archive) == login)
    }

    @Test(.enabled(if: haveFixtures, "../shared/fixtures/apple-bookmarks is absent"))
    func plainPropertyLists() throws {
        let blob = try #require(Fixtures.bytes("downloads.bookmark"))
        let finder: PlistValue = ["FXRecentFolders": [["name": "Downloads", "file-bookmark": .data(Data(blob))]],
                                  "RecentDocuments": ["CustomListItems": [["Name": "a", "Bookmark": .data(Data(blob))]]]]
        let found = EmbeddedBookmarks.find(in: finder)
        #expect(Set(found.map(\.keyPath.description)) == ["FXRecentFolders.0.file-bookmark", "RecentDocuments.CustomListItems.0.Bookmark"])
    }

    @Test(.enabled(if: haveFixtures, "../shared/fixtures/apple-bookmarks is absent"))
    func brokenBookmarksAreReportedNotDropped() throws {
        let good = try #require(Fixtures.bytes("downloads.bookmark"))
        var sizePlusOne = good
        sizePlusOne[4] &+= 1
        let blobs: [[UInt8]] = [
            try #require(Fixtures.bytes("bad_header.bookmark")), try #require(Fixtures.bytes("bad_content.bookmark")),
            Array(good.prefix(100)), sizePlusOne, Array("book and then some text".utf8),
        ]
        let found = EmbeddedBookmarks.find(in: .array(blobs.map { .data(Data($0)) }))
        #expect(found.count == blobs.count, "\(found.map { ($0.keyPath.description, $0.kind) })")
        for f in found {
            guard case .invalidBookmark = f.kind else { Issue.record("\(f.keyPath): \(f.kind)"); continue }
        }
    }

    /// Alias records written by Python's mac_alias (an independent implementation), versions 2 and 3.
    @Test(.enabled(if: BookContainerTests.haveMacAlias, "python3 module mac_alias is not installed (pip install mac-alias)"))
    func aliasRecordsFromMacAlias() throws {
        for version in [2, 3] {
            let script = """
            import sys, datetime, mac_alias
            from mac_alias import Alias, VolumeInfo, TargetInfo
            utc = datetime.timezone.utc
            a = Alias()
            a.version = \(version)
            a.volume = VolumeInfo('Macintosh HD', datetime.datetime(2020, 1, 1, tzinfo=utc), b'H+', 0, 0, b'\\0\\0')
            a.volume.posix_path = '/'
            a.target = TargetInfo(0, 'report.txt', 2, 3, datetime.datetime(2020, 1, 1, tzinfo=utc), b'TEXT', b'ttxt')
            a.target.posix_path = '/Users/x/report.txt'
            sys.stdout.buffer.write(a.to_bytes())
            """
            let r = try ExternalTool.run(try #require(Shell.find("python3")), ["-c", script])
            #expect(r.status == 0, "\(String(decoding: r.stderr, as: UTF8.self))")
            let found = EmbeddedBookmarks.find(in: ["SessionItems": ["CustomListItems": [["Alias": .data(r.stdout)]]]])
            #expect(found.map(\.keyPath.description) == ["SessionItems.CustomListItems.0.Alias"])
            #expect(found.first?.kind == .aliasRecord, "version \(version)")
            let fields = Dictionary(found.first?.fields.map { ($0.name, $0.value) } ?? [], uniquingKeysWith: { a, _ in a })
            #expect(fields["path"] == "/Users/x/report.txt" && fields["mount point"] == "/" && fields["version"] == String(version))
            if version == 2 { #expect(fields["name"] == "report.txt" && fields["volume"] == "Macintosh HD") }
        }
    }

    @Test func coincidentalAliasHeaderIsOnlyPossible() {
        // Size field = length (12), version 2, but far too short for a version-2 record.
        let blob: [UInt8] = [0, 0, 0, 0, 0, 12, 0, 2, 9, 9, 9, 9]
        let found = EmbeddedBookmarks.find(in: ["x": .data(Data(blob))])
        #expect(found.map(\.kind) == [.possibleAliasRecord])
    }

    /// An archive in a data value inside an archive: found through both, and the nesting cap holds.
    @Test(.enabled(if: haveFixtures, "../shared/fixtures/apple-bookmarks is absent"))
    func nestedArchives() throws {
        let blob = try #require(Fixtures.bytes("loginitem.bookmark"))
        var inner: [UInt8] = try KeyedArchiver.archivedData(["Bookmark": .data(Data(blob))], format: .binary)
        let outer = try KeyedArchiver.archivedData(["state": .data(Data(inner))], format: .xml)
        let found = try EmbeddedBookmarks.find(inPropertyList: outer)
        #expect(found.map(\.keyPath.description) == ["state.Bookmark"])
        #expect(try EmbeddedBookmarks.data(atKeyPath: "state.Bookmark", inPropertyList: outer) == blob)
        for _ in 0..<6 { inner = try KeyedArchiver.archivedData(["d": .data(Data(inner))], format: .binary) }
        var limits = EmbeddedBookmarks.Limits()
        limits.maxNesting = 4
        #expect(try EmbeddedBookmarks.find(inPropertyList: inner, limits: limits).isEmpty)
        limits.maxNesting = 8
        #expect(try EmbeddedBookmarks.find(inPropertyList: inner, limits: limits).count == 1)
    }

    @Test func keyPathErrors() throws {
        let plist = try PropertyList.writeBytes(["a": 1], format: .binary)
        #expect(throws: PlistError.self) { try EmbeddedBookmarks.data(atKeyPath: "a", inPropertyList: plist) }
        #expect(throws: PlistError.self) { try EmbeddedBookmarks.data(atKeyPath: "b", inPropertyList: plist) }
    }

    /// Our own bookmarks, embedded in a Foundation archive, are found and their path read.
    @Test func ourBookmarkInsideAnArchive() throws {
        let s = Scratch()
        let target = s.file("notes.txt")
        let blob = try Bookmark.create(path: target)
        let archive = try Self.foundationArchive(NSDictionary(dictionary: ["file": NSData(bytes: blob, length: blob.count)]))
        let found = try EmbeddedBookmarks.find(inPropertyList: archive)
        #expect(found.first?.fields.first { $0.name == "path" }?.value == target)
        #expect(EmbeddedBookmarks.listing(found).contains("file: bookmark"))
    }
}

import Foundation
import Testing
@testable import Bookmarks

/// The `book` layout against real macOS blobs (expected values read from the blobs by a separate strict reader and
/// by mac_alias, a Python library) and against the layout rules: header, items, TOC.
@Suite struct BookContainerTests {
    static let haveFixtures = Fixtures.directory != nil

    @Test(.enabled(if: haveFixtures, "../shared/fixtures/apple-bookmarks is absent"))
    func downloadsBlobDecodes() throws {
        let c = try BookContainer.read(try #require(Fixtures.bytes("downloads.bookmark")))
        #expect(c.version == 0x1004_0000)
        #expect(c.headerSize == 48)
        #expect(c.reserved.count == 32 && c.reserved.contains { $0 != 0 })   // security-scoped: non-zero, preserved
        #expect(c[0x1004] == .array(["Users", "puffycid", "Downloads", "powershell-7.2.4-osx-x64.pkg"].map { .string($0) }))
        #expect(c[0x1005] == .array([21327, 360459, 360510, 37602008].map { .int64($0) }))
        #expect(c[0x2011] == .string("96FB41C0-6CE9-4DA2-8435-35BC19C735A3"))
        #expect(c[0x2012]?.integerValue == 2_000_662_327_296)
        #expect(c[0xC012]?.integerValue == 501)
        #expect(c[0xD010]?.integerValue == 0x2800_1800)
        #expect(c[0x2030] == .bool(true))
        #expect(BookmarkInspection.isoDate(try #require(c[0x1040]?.doubleValue)).hasPrefix("2022-06-20T03:21:40.0747"))
    }

    @Test(.enabled(if: haveFixtures, "../shared/fixtures/apple-bookmarks is absent"))
    func everyAppleFixtureDecodesWithTheDocumentedPath() throws {
        let expected: [String: [String]] = [
            "downloads": ["Users", "puffycid", "Downloads", "powershell-7.2.4-osx-x64.pkg"],
            "loginitem": ["Applications", "Syncthing.app"],
            "macAlias": ["..", "..", "..", "Users", "puffycid", "Downloads", "powershell-7.2.5-osx-arm64.pkg"],
            "poisonapple": ["Users", "sur", "Library", "Python", "3.8", "lib", "python", "site-packages", "poisonapple", "auxiliary", "testing.app"],
            "systemevents": ["System", "Library", "CoreServices", "System Events.app"],
            "ventura": ["Applications", "Syncthing.app"],
        ]
        for name in Fixtures.names {
            let bytes = try #require(Fixtures.bytes(name + ".bookmark"))
            let record = try BookmarkRecord(container: try BookContainer.read(bytes))
            #expect(record.components.map { String(decoding: $0, as: UTF8.self) } == expected[name], "\(name)")
            #expect(record.formatVersion == nil, "\(name) is foreign")
            #expect(record.inodes.count == record.components.count, "\(name)")
            #expect(try !BookmarkInspection.text(bytes).isEmpty)
            let json = try BookmarkInspection.json(bytes)
            #expect((try? JSONSerialization.jsonObject(with: Data(json.utf8))) != nil, "\(name): inspect --json is valid JSON")
        }
    }

    @Test(.enabled(if: haveFixtures, "../shared/fixtures/apple-bookmarks is absent"))
    func corruptFixturesGiveClearErrors() throws {
        #expect(throws: BookmarkError.corruptData(.sizeMismatch(declared: 716, actual: 377), offset: 4)) {
            try BookContainer.read(try #require(Fixtures.bytes("bad_content.bookmark")))
        }
        #expect(throws: BookmarkError.corruptData(.badMagic, offset: 0)) {
            try BookContainer.read(try #require(Fixtures.bytes("bad_header.bookmark")))
        }
    }

    @Test(.enabled(if: haveFixtures, "../shared/fixtures/apple-bookmarks is absent"))
    func resourceValuesReadAppleBlobsWithoutTheFileSystem() throws {
        let bytes = try #require(Fixtures.bytes("loginitem.bookmark"))
        let v = try Bookmark.resourceValues(forKeys: [Bookmark.ResourceKey.path, Bookmark.ResourceKey.localizedName,
                                                      Bookmark.ResourceKey.volumeName, Bookmark.ResourceKey.isDirectory], fromBookmarkData: bytes)
        #expect(v[Bookmark.ResourceKey.path] == .string("/Applications/Syncthing.app"))
        #expect(v[Bookmark.ResourceKey.localizedName] == .string("Syncthing"))
        #expect(v[Bookmark.ResourceKey.volumeName] == .string("Macintosh HD"))
        #expect(v[Bookmark.ResourceKey.isDirectory] == .bool(true))
        #expect(try Bookmark.allKeys(fromBookmarkData: bytes).contains(.numeric(0xF080)))
    }

    /// Layout rules checked by an independent byte-level walk in the test: size field, header 48,
    /// TOC last with size 12 + 12·count, magic 0xFFFFFFFE, keys strictly increasing, items 4-aligned.
    @Test func writerFollowsTheLayoutSpec() throws {
        let container = BookContainer(tocs: [.init(id: 1, entries: [
            .init(key: .numeric(0x2002), value: .string("/")),
            .init(key: .string("zeta"), value: .int32(-7)),
            .init(key: .numeric(0x1004), value: .array([.string("a"), .data([0xFF, 0xFE])])),
            .init(key: .numeric(0x1040), value: .date(6.5e8)),
            .init(key: .string("alpha"), value: .dictionary([BookPair(key: .string("k"), value: .bool(false))])),
            .init(key: .numeric(0x1010), value: .uuid(Array(0..<16))),
            .init(key: .numeric(0x2005), value: .relativeURL(base: .url("file:///"), relative: .string("x"))),
            .init(key: .numeric(0xF030), value: .real(1.25, subtype: 6)),
            .init(key: .numeric(0xF031), value: .null),
        ])])
        let bytes = try container.write()
        func u32(_ i: Int) -> UInt32 { UInt32(bytes[i]) | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2]) << 16 | UInt32(bytes[i + 3]) << 24 }
        #expect(Array(bytes[0..<4]) == Array("book".utf8))
        #expect(Int(u32(4)) == bytes.count)
        #expect(u32(8) == 0x1004_0000)
        #expect(u32(12) == 48)
        let toc = 48 + Int(u32(48))
        let count = Int(u32(toc + 16))
        #expect(count == 9)
        #expect(Int(u32(toc)) == 12 + 12 * count)
        #expect(u32(toc + 4) == 0xFFFF_FFFE)
        #expect(u32(toc + 8) == 1 && u32(toc + 12) == 0)
        #expect(toc + 20 + 12 * count == bytes.count, "TOC is last")
        var keys: [UInt32] = []
        for i in 0..<count {
            keys.append(u32(toc + 20 + 12 * i))
            #expect(u32(toc + 28 + 12 * i) == 0)
            #expect(u32(toc + 24 + 12 * i) % 4 == 0)
        }
        #expect(keys == keys.sorted() && Set(keys).count == keys.count)
        // The date item is big-endian (unlike every other number in the layout): find it by key 0x1040.
        let dateAt = 48 + Int(u32(toc + 24 + 12 * keys.firstIndex(of: 0x1040)!))
        #expect(u32(dateAt + 4) == 0x0400)
        #expect(Array(bytes[(dateAt + 8)..<(dateAt + 16)]) == withUnsafeBytes(of: (6.5e8).bitPattern.bigEndian, Array.init))
        // And our reader gives back the same entries.
        let back = try BookContainer.read(bytes)
        for e in container.tocs[0].entries { #expect(back.value(for: e.key) == e.value, "\(e.key)") }
    }

    static let haveMacAlias: Bool = {
        guard let py = Shell.find("python3"), let r = try? Shell.run(py, ["-c", "import mac_alias"]) else { return false }
        return r.status == 0
    }()

    /// mac_alias (an independent Python implementation) parses what our writer produces, with the same values.
    @Test(.enabled(if: haveMacAlias, "python3 module mac_alias is not installed (pip install mac-alias)"))
    func macAliasReadsOurBlobs() throws {
        let s = Scratch()
        let target = s.file("dir/doc.txt")
        let blob = try Bookmark.create(path: target)
        let file = s.p("b.bookmark")
        _ = FileManager.default.createFile(atPath: file, contents: Data(blob))
        let script = """
        import sys, mac_alias
        b = mac_alias.Bookmark.from_bytes(open(sys.argv[1], 'rb').read())
        print('/'.join(b.get(0x1004)))
        print(b.get(0x1005)[-1])
        print(b.get('org.plistkit.linux.format'))
        """
        let r = try Shell.run(try #require(Shell.find("python3")), ["-c", script, file])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        let record = try BookmarkRecord(container: try BookContainer.read(blob))
        #expect(lines.first.map { "/" + $0 } == record.path)
        var st = stat()
        lstat(target, &st)
        #expect(lines.dropFirst().first == String(st.st_ino))
        #expect(lines.last == "1")
    }

    @Test func selfReferencingArrayIsRejected() throws {
        // header | first_toc | array item at 4 whose element points at itself | TOC.
        var b = Array("book".utf8) + [0, 0, 0, 0] + [0, 0, 4, 0x10] + [48, 0, 0, 0] + [UInt8](repeating: 0, count: 32)
        func put(_ v: UInt32) { b += withUnsafeBytes(of: v.littleEndian, Array.init) }
        put(16)                          // first TOC at data offset 16
        put(4); put(0x0601); put(4)      // array (offset 4) -> [offset 4]
        put(24); put(0xFFFF_FFFE); put(1); put(0); put(1)
        put(0x1004); put(4); put(0)
        let n = UInt32(b.count)
        b.replaceSubrange(4..<8, with: withUnsafeBytes(of: n.littleEndian, Array.init))
        #expect(throws: BookmarkError.corruptData(.itemLoop, offset: 60)) { try BookContainer.read(b) }
    }

    /// Four arrays of 100 references to the next (1.7 KB) decode cheaply, each shared item once, but written out they
    /// expand to 10^8 items: `inspect` refuses past `maxItemVisits` instead of printing 500 MB.
    @Test func inspectingSharedItemsIsBoundedLikeReading() throws {
        var b = Array("book".utf8) + [0, 0, 0, 0] + [0, 0, 4, 0x10] + [48, 0, 0, 0] + [UInt8](repeating: 0, count: 32)
        func put(_ v: UInt32) { b += withUnsafeBytes(of: v.littleEndian, Array.init) }
        put(0)                                   // first TOC offset, patched below
        put(1); put(0x0101); put(0x78)           // string "x" at data offset 4 (padded to 4 bytes)
        var previous: UInt32 = 4
        for _ in 0..<4 {
            let here = UInt32(b.count - 48)
            put(400); put(0x0601)
            for _ in 0..<100 { put(previous) }
            previous = here
        }
        let toc = UInt32(b.count - 48)
        put(24); put(0xFFFF_FFFE); put(1); put(0); put(1)
        put(0x2000); put(previous); put(0)
        b.replaceSubrange(48..<52, with: withUnsafeBytes(of: toc.littleEndian, Array.init))
        let n = UInt32(b.count)
        b.replaceSubrange(4..<8, with: withUnsafeBytes(of: n.littleEndian, Array.init))
        #expect(b.count < 2000)
        _ = try BookContainer.read(b)            // decoding is fine: 405 distinct items
        #expect(throws: BookmarkError.corruptData(.tooManyItems(limit: 65_536), offset: 0)) { try BookmarkInspection.text(b) }
        #expect(throws: BookmarkError.corruptData(.tooManyItems(limit: 65_536), offset: 0)) { try BookmarkInspection.json(b) }
    }

    @Test func tocChainLoopIsRejected() throws {
        var b = Array("book".utf8) + [0, 0, 0, 0] + [0, 0, 4, 0x10] + [48, 0, 0, 0] + [UInt8](repeating: 0, count: 32)
        func put(_ v: UInt32) { b += withUnsafeBytes(of: v.littleEndian, Array.init) }
        put(4)
        put(12); put(0xFFFF_FFFE); put(1); put(4); put(0)   // TOC at 4 whose next is itself
        let n = UInt32(b.count)
        b.replaceSubrange(4..<8, with: withUnsafeBytes(of: n.littleEndian, Array.init))
        #expect(throws: BookmarkError.corruptData(.tocLoop, offset: 64)) { try BookContainer.read(b) }
    }

    @Test func unsortedTOCAndOversizeInputAreRejected() throws {
        var bytes = try BookContainer(tocs: [.init(id: 1, entries: [.init(key: .numeric(1), value: .bool(true)),
                                                                     .init(key: .numeric(2), value: .bool(false))])]).write()
        let toc = bytes.count - 24 - 20
        bytes.swapAt(toc + 20, toc + 32)     // swap the low bytes of the two keys
        #expect(throws: BookmarkError.corruptData(.tocNotSorted(key: 1), offset: toc + 32)) { try BookContainer.read(bytes) }
        var limits = BookLimits()
        limits.maxInputSize = 16
        #expect(throws: BookmarkError.corruptData(.tooLarge(size: bytes.count, limit: 16), offset: 0)) { try BookContainer.read(bytes, limits: limits) }
    }

    @Test func writerRefusesOversizeBookmarks() {
        let big = BookContainer(tocs: [.init(id: 1, entries: [.init(key: .numeric(0xF020), value: .data([UInt8](repeating: 1, count: 70_000)))])])
        #expect(throws: BookmarkError.self) { try big.write() }
    }
}

import Foundation
import Testing
@testable import Bookmarks

/// Resolution on the real filesystem under the system temp directory: real renames, no mocks.
/// Each scenario asserts the resolved path, `isStale` and the reason (the table in README's "Resolution").
@Suite struct ResolverTests {
    func resolve(_ data: [UInt8], _ configure: (inout BookmarkResolveOptions) -> Void = { _ in }) throws -> BookmarkResolution {
        var o = BookmarkResolveOptions()
        configure(&o)
        return try Bookmark.resolve(data, options: o)
    }

    @Test func unchangedIsNotStale() throws {
        let s = Scratch()
        let data = try Bookmark.create(path: s.file("deep/target.txt"))
        let r = try resolve(data)
        #expect(r.path == s.p("deep/target.txt"))
        #expect(!r.isStale && r.reason == nil)
        #expect(r.confidence == .strong)
        #expect(r.refreshedData == nil)
    }

    @Test func renameInSameDirectory() throws {
        let s = Scratch()
        let data = try Bookmark.create(path: s.file("deep/target.txt"))
        try s.move("deep/target.txt", "deep/renamed.txt")
        let r = try resolve(data)
        #expect(r.path == s.p("deep/renamed.txt") && r.isStale && r.reason == .moved)
        // The refreshed data resolves in place.
        let again = try resolve(try #require(r.refreshedData))
        #expect(again.path == s.p("deep/renamed.txt") && !again.isStale)
    }

    @Test func moveAcrossDirectories() throws {
        let s = Scratch()
        let data = try Bookmark.create(path: s.file("src/deep/target.txt"))
        s.dir("other/x/y")
        try s.move("src/deep/target.txt", "other/x/y/target.txt")
        let r = try resolve(data)
        #expect(r.path == s.p("other/x/y/target.txt") && r.isStale && r.reason == .moved)
    }

    @Test func renamedAncestor() throws {
        let s = Scratch()
        let data = try Bookmark.create(path: s.file("source/deep/target.txt"))
        try s.move("source", "SOURCE2")
        let r = try resolve(data)
        #expect(r.path == s.p("SOURCE2/deep/target.txt") && r.isStale && r.reason == .moved)
    }

    @Test func movedSubtree() throws {
        let s = Scratch()
        let data = try Bookmark.create(path: s.file("a/tree/sub/target.txt"))
        s.dir("b/c")
        try s.move("a/tree", "b/c/tree-moved")
        let r = try resolve(data)
        #expect(r.path == s.p("b/c/tree-moved/sub/target.txt") && r.isStale && r.reason == .moved)
    }

    @Test func movedToTheTrashIsReported() throws {
        let s = Scratch()
        let data = try Bookmark.create(path: s.file("home/doc.txt"))
        try s.move("home/doc.txt", ".local/share/Trash/files/doc.txt")
        let r = try resolve(data)
        #expect(r.path == s.p(".local/share/Trash/files/doc.txt") && r.reason == .moved && r.isInTrash)
        #expect(!(try resolve(try #require(r.refreshedData))).isStale)
    }

    @Test func directoryBookmarkFollowsRename() throws {
        let s = Scratch()
        let data = try Bookmark.create(path: s.dir("docs/project"))
        try s.move("docs/project", "docs/project-2024")
        let r = try resolve(data)
        #expect(r.path == s.p("docs/project-2024") && r.reason == .moved)
    }

    @Test func atomicSaveIsReplacedWithPathFirst() throws {
        let s = Scratch()
        let data = try Bookmark.create(path: s.file("doc.txt", "v1"))
        s.file(".doc.txt.tmp", "v2")
        try s.move(".doc.txt.tmp", "doc.txt")
        let r = try resolve(data)
        #expect(r.path == s.p("doc.txt") && r.isStale && r.reason == .replaced && r.confidence == nil)
    }

    @Test func backupByRenameFollowsIdentityOnlyWhenAsked() throws {
        let s = Scratch()
        let data = try Bookmark.create(path: s.file("notes.txt", "old"))
        try s.move("notes.txt", "notes.txt~")        // Emacs: original renamed to the backup name…
        s.file("notes.txt", "new")                     // …and a new file written
        let pathFirst = try resolve(data)
        #expect(pathFirst.path == s.p("notes.txt") && pathFirst.reason == .replaced)
        let identity = try resolve(data) { $0.policy = .preferIdentity }
        #expect(identity.path == s.p("notes.txt~") && identity.reason == .moved && identity.confidence == .strong)
        // The creation option maps to the same policy.
        let legacy = try Bookmark.create(path: s.p("notes.txt"), options: [.preferFileIDResolution])
        try s.move("notes.txt", "notes.txt.bak")
        s.file("notes.txt", "newer")
        #expect(try resolve(legacy).path == s.p("notes.txt.bak"))
    }

    @Test func deletedIsNotFoundWithLastKnownPath() throws {
        let s = Scratch()
        let path = s.file("deep/target.txt")
        let data = try Bookmark.create(path: path)
        unlink(path)
        // Searching only inside the scratch tree finishes: plain not found.
        #expect(throws: BookmarkError.fileNotFound(lastKnownPath: path)) { try resolve(data) { $0.budget.maxLevelsUp = 1 } }
        // With the default budget the widening search may reach the shared temp dir and run out of budget
        // first; either way the error is of the not-found family and carries the last known path.
        do {
            _ = try resolve(data)
            Issue.record("a deleted file resolved")
        } catch {
            let e = error as? BookmarkError
            #expect(e?.lastKnownPath == path && e?.appleErrorCode == 4)
        }
        // Inspection still works without the file.
        let v = try Bookmark.resourceValues(forKeys: [Bookmark.ResourceKey.path], fromBookmarkData: data)
        #expect(v[Bookmark.ResourceKey.path] == .string(path))
    }

    @Test func deleteAndRecreateIsReplacedEvenWhenTheInodeIsReused() throws {
        let s = Scratch()
        let path = s.file("target.txt", "one")
        var st = stat()
        lstat(path, &st)
        let oldInode = st.st_ino
        let data = try Bookmark.create(path: path)
        unlink(path)
        s.file("target.txt", "two")
        lstat(path, &st)
        let r = try resolve(data)
        #expect(r.path == path && r.isStale && r.reason == .replaced, "inode reused: \(st.st_ino == oldInode)")
    }

    @Test func hardLinkSurvivesWhenTheOriginalNameIsDeleted() throws {
        let s = Scratch()
        let original = s.file("work/deep/target.txt")
        s.dir("docs")
        #expect(link(original, s.p("docs/hardlink.txt")) == 0)
        let data = try Bookmark.create(path: original)
        unlink(original)
        let r = try resolve(data)
        #expect(r.path == s.p("docs/hardlink.txt") && r.isStale && r.reason == .moved)
    }

    @Test func symlinkedDirectoryIsStoredCanonicallyAndNeverFollowedBySearch() throws {
        let s = Scratch()
        s.file("real/dir/target.txt")
        #expect(symlink(s.p("real"), s.p("alias")) == 0)
        let data = try Bookmark.create(path: s.p("alias/dir/target.txt"))
        let r = try resolve(data)
        #expect(r.path == s.p("real/dir/target.txt") && !r.isStale)
        // Move the target somewhere reachable from the search area only through a symlink: not found.
        s.dir("outside/hidden")
        #expect(symlink(s.p("outside"), s.p("real/dir/link-to-outside")) == 0)
        #expect(symlink(s.p("real"), s.p("real/dir/loop")) == 0)   // a loop must not hang the search
        let target = s.p("real/dir/target.txt")
        #expect(rename(target, s.p("outside/hidden/target.txt")) == 0)
        var o = BookmarkResolveOptions()
        o.budget.maxLevelsUp = 0
        #expect(throws: BookmarkError.fileNotFound(lastKnownPath: target)) { try Bookmark.resolve(data, options: o) }
    }

    @Test func searchBudgetIsTheCallers() throws {
        let s = Scratch()
        let path = s.file("a/target.txt")
        for i in 0..<50 { s.file("a/filler\(i)") }
        let data = try Bookmark.create(path: path)
        // Out of a/ (51 entries), so the search must read past the budget whatever the readdir order.
        try s.move("a/target.txt", "b/c/renamed.txt")
        #expect(throws: BookmarkError.searchBudgetExhausted(lastKnownPath: path, entriesVisited: 5)) {
            try resolve(data) { $0.budget.maxEntries = 5 }
        }
        #expect(try resolve(data).path == s.p("b/c/renamed.txt"))
    }

    /// The budget is a ceiling on entries read, however many directories the search has queued when it runs out.
    @Test func searchBudgetHoldsAcrossManyDirectories() throws {
        let s = Scratch()
        let path = s.file("top/target.txt")
        for i in 0..<30 { s.file("top/d\(i)/e/f") }
        let data = try Bookmark.create(path: path)
        unlink(path)
        for budget in [1, 7, 31, 64, 100] {
            #expect(throws: BookmarkError.searchBudgetExhausted(lastKnownPath: path, entriesVisited: budget)) {
                try resolve(data) { $0.budget.maxEntries = budget }
            }
        }
    }

    /// Apple's flags have no bit for special files; the type is recorded so that a FIFO replaced by a socket is gone,
    /// not "replaced by an object of the same type".
    @Test func specialFilesKeepTheirType() throws {
        let s = Scratch()
        let fifo = s.p("pipe")
        #expect(mkfifo(fifo, 0o644) == 0)
        let data = try Bookmark.create(path: fifo)
        #expect(try BookmarkRecord(container: BookContainer.read(data)).kind == .fifo)
        unlink(fifo)
        #expect(mkfifo(fifo, 0o644) == 0)
        #expect(try resolve(data).reason == .replaced)
        unlink(fifo)
        try Self.bindSocket(at: fifo)
        #expect(throws: BookmarkError.self) { try resolve(data) { $0.budget.maxEntries = 100 } }

        // A record written before the type was kept (no `type` key) says only "special": any special file may be it.
        let fresh = s.p("pipe2")
        #expect(mkfifo(fresh, 0o644) == 0)
        let full = try BookContainer.read(try Bookmark.create(path: fresh))
        let withoutType = BookContainer(tocs: full.tocs.map { toc in
            .init(id: toc.id, entries: toc.entries.filter { $0.key != .string(BookmarkKey.fileType) })
        })
        #expect(withoutType.tocs[0].entries.count == full.tocs[0].entries.count - 1)
        let old = try withoutType.write()
        #expect(try BookmarkRecord(container: BookContainer.read(old)).kind == .other)
        #expect(try resolve(old).reason == nil)
        unlink(fresh)
        try Self.bindSocket(at: fresh)
        #expect(try resolve(old).reason == .replaced)
    }

    /// Creates a Unix-domain socket file at `path`.
    static func bindSocket(at path: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        try #require(bytes.count < MemoryLayout.size(ofValue: address.sun_path))
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0, "bind: \(String(cString: strerror(errno)))")
        var st = stat()
        try #require(lstat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFSOCK)
    }

    /// POSIX: a trailing slash names a directory, through a final symbolic link.
    @Test func trailingSlashNamesADirectory() throws {
        let s = Scratch()
        let file = s.file("f")
        s.dir("d")
        #expect(symlink("d", s.p("l")) == 0)
        #expect(throws: BookmarkError.systemCall(name: "realpath", errno: ENOTDIR, path: file + "/")) {
            try Bookmark.create(path: file + "/")
        }
        let viaLink = try Bookmark.create(path: s.p("l/"))
        let record = try BookmarkRecord(container: BookContainer.read(viaLink))
        // Foundation resolves the scratch directory's own links (/tmp may be one) for the expected path.
        #expect(record.path == URL(fileURLWithPath: s.p("d")).resolvingSymlinksInPath().path)
        #expect(record.kind == .directory)
        #expect(try BookmarkRecord(container: BookContainer.read(Bookmark.create(path: s.p("l")))).kind == .symlink)
    }

    @Test func relativeToFindsACopiedTreeAndAMovedOne() throws {
        let s = Scratch()
        s.dir("project/doc")
        let data = try Bookmark.create(path: s.file("project/assets/image.png"), relativeTo: s.p("project/doc"))
        // A copy of the tree: no identity match, found relative to the new document location.
        s.file("copy/assets/image.png")
        s.dir("copy/doc")
        unlink(s.p("project/assets/image.png"))
        let r = try resolve(data) { $0.relativeTo = s.p("copy/doc") }
        #expect(r.path == s.p("copy/assets/image.png") && r.isStale && r.reason == .relocatedTree && r.confidence == nil)
        // The whole tree moved (document and asset together): identity matches at the relative path.
        let t = Scratch()
        t.dir("project/doc")
        let moved = try Bookmark.create(path: t.file("project/assets/image.png"), relativeTo: t.p("project/doc"))
        try t.move("project", "renamed-project")
        let m = try resolve(moved) { $0.relativeTo = t.p("renamed-project/doc"); $0.budget.maxEntries = 0 }
        #expect(m.path == t.p("renamed-project/assets/image.png") && m.reason == .moved && m.confidence == .strong)
    }

    @Test func foreignAndOlderFormats() throws {
        let s = Scratch()
        let path = s.file("f.txt")
        let data = try Bookmark.create(path: path)
        // An Apple-style blob (no Linux keys) for an existing path: resolved by path only, stale foreignFormat.
        let record = try BookmarkRecord(container: try BookContainer.read(data))
        let apple = BookContainer(tocs: [.init(id: 1, entries: [
            .init(key: .numeric(0x1004), value: .array(record.components.map { .string(String(decoding: $0, as: UTF8.self)) })),
        ])])
        let foreign = try resolve(try apple.write())
        #expect(foreign.path == path && foreign.isStale && foreign.reason == .foreignFormat)
        #expect(try resolve(try #require(foreign.refreshedData)).reason == nil)
        // Format version 0 (older than current): stale formatUpgraded.
        var old = record
        old.formatVersion = 0
        let upgraded = try resolve(try old.container().write())
        #expect(upgraded.path == path && upgraded.reason == .formatUpgraded)
        // A newer format is refused with the offset of the version item.
        var newer = record
        newer.formatVersion = 99
        #expect(throws: BookmarkError.self) { try resolve(try newer.container().write()) }
    }

    @Test(.enabled(if: Fixtures.directory != nil, "../shared/fixtures/apple-bookmarks is absent"))
    func appleBlobForAMissingPathIsNotFound() throws {
        let bytes = try #require(Fixtures.bytes("downloads.bookmark"))
        #expect(throws: BookmarkError.fileNotFound(lastKnownPath: "/Users/puffycid/Downloads/powershell-7.2.4-osx-x64.pkg")) { try resolve(bytes) }
    }

    @Test func resolveAndOpenChecksTheDescriptor() throws {
        let s = Scratch()
        let data = try Bookmark.create(path: s.file("doc.txt", "hello"))
        try s.move("doc.txt", "renamed.txt")
        let (fd, r) = try Bookmark.resolveAndOpen(data, flags: O_RDONLY)
        defer { close(fd) }
        #expect(r.path == s.p("renamed.txt") && r.reason == .moved)
        var buf = [UInt8](repeating: 0, count: 16)
        let n = read(fd, &buf, 16)
        #expect(String(decoding: buf[0..<max(0, n)], as: UTF8.self) == "hello")
    }

    @Test func storedResourceValuesAndCustomValuesComeBackWithoutTheFile() throws {
        let s = Scratch()
        let path = s.file("r.txt", "12345")
        var st = stat()
        lstat(path, &st)
        let data = try Bookmark.create(path: path, includingResourceValuesForKeys: ["NSURLFileSizeKey", "NSURLIsDirectoryKey", "NSURLContentModificationDateKey"],
                                       customValues: ["com.example.tag": "blue"])
        unlink(path)
        let v = try Bookmark.resourceValues(forKeys: ["NSURLFileSizeKey", "NSURLIsDirectoryKey", "NSURLContentModificationDateKey", "com.example.tag"],
                                            fromBookmarkData: data)
        #expect(v["NSURLFileSizeKey"]?.integerValue == 5)
        #expect(v["NSURLIsDirectoryKey"] == .bool(false))
        let mtime = Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9 - 978_307_200
        #expect(abs((v["NSURLContentModificationDateKey"]?.doubleValue ?? 0) - mtime) < 1e-5)
        #expect(v["com.example.tag"] == .string("blue"))
    }

    /// `open_by_handle_at` is used only on request and only with CAP_DAC_READ_SEARCH (root here): it finds a
    /// file the search budget could not reach, and the result is re-verified by path.
    @Test(.enabled(if: Shell.isRoot, "needs CAP_DAC_READ_SEARCH (run as root)"))
    func privilegedHandleLookupOnlyWhenAsked() throws {
        let s = Scratch()
        let path = s.file("a/b/c/target.txt")
        let data = try Bookmark.create(path: path)
        try s.move("a/b/c/target.txt", "far/away/t.txt")
        #expect(throws: BookmarkError.self) { try resolve(data) { $0.budget.maxEntries = 0 } }
        let r = try resolve(data) { $0.budget.maxEntries = 0; $0.allowPrivilegedHandleLookup = true }
        #expect(r.path == s.p("far/away/t.txt") && r.reason == .moved && r.confidence == .strong && r.entriesSearched == 0)
    }

    @Test func urlFormOfTheAPI() throws {
        let s = Scratch()
        let url = URL(fileURLWithPath: s.file("u/doc.txt"))
        let data = try Bookmark.create(for: url, options: [.withSecurityScope])
        try s.move("u/doc.txt", "u/doc2.txt")
        let r = try Bookmark.resolve(data)
        #expect(r.url == URL(fileURLWithPath: s.p("u/doc2.txt")) && r.reason == .moved)
        #expect(throws: BookmarkError.self) { try Bookmark.create(for: URL(string: "https://example.com/x")!) }
    }

    @Test func minimalBookmarkOmitsOptionalFields() throws {
        let s = Scratch()
        let data = try Bookmark.create(path: s.file("a/b.txt"), options: [.minimalBookmark])
        let keys = try Bookmark.allKeys(fromBookmarkData: data)
        #expect(!keys.contains(.string(BookmarkKey.ancestorHandles)))
        #expect(!keys.contains(.numeric(BookmarkKey.userName)) && !keys.contains(.numeric(BookmarkKey.displayName)))
        let c = try BookContainer.read(data)
        #expect(c[BookmarkKey.creationOptions]?.integerValue == 512)   // Apple's raw minimalBookmark value
        try s.move("a/b.txt", "a/c.txt")
        #expect(try resolve(data).path == s.p("a/c.txt"))
    }

    @Test func creationOptionRawValuesAreApples() {
        #expect(BookmarkCreationOptions.preferFileIDResolution.rawValue == 0x100)
        #expect(BookmarkCreationOptions.minimalBookmark.rawValue == 0x200)
        #expect(BookmarkCreationOptions.suitableForBookmarkFile.rawValue == 0x400)
        #expect(BookmarkCreationOptions.withSecurityScope.rawValue == 0x800)
        #expect(BookmarkCreationOptions.securityScopeAllowOnlyReadAccess.rawValue == 0x1000)
        #expect(BookmarkCreationOptions.withoutImplicitSecurityScope.rawValue == 0x2000_0000)
        #expect(BookmarkResolutionOptions.withoutUI.rawValue == 0x100)
        #expect(BookmarkResolutionOptions.withoutMounting.rawValue == 0x200)
        #expect(BookmarkResolutionOptions.withSecurityScope.rawValue == 0x400)
        #expect(BookmarkResolutionOptions.withoutImplicitStartAccessing.rawValue == 0x8000)
    }

    /// Foreign blobs may show `.` and `..`, but a component that is empty or holds `/` or NUL would
    /// change which path is looked up.
    @Test func foreignComponentsThatChangeThePathAreRejected() throws {
        for (bad, index) in [(["tmp", "x/y"], 1), (["tmp", "", "x"], 1), (["tmp", "x.app\u{0}junk"], 1)] {
            let c = try BookContainer.read(BookContainer(tocs: [.init(id: 1, entries: [
                .init(key: .numeric(0x1004), value: .array(bad.map { .string($0) })),
            ])]).write())
            // The error points at the path-components array.
            let at = try #require(c.tocs.first?.entries.first?.offset)
            #expect(throws: BookmarkError.corruptData(.badPathComponent(index: index), offset: at)) { try BookmarkRecord(container: c) }
        }
        let shown = BookContainer(tocs: [.init(id: 1, entries: [.init(key: .numeric(0x1004), value: .array(["tmp", "..", "x"].map { .string($0) }))])])
        #expect(try BookmarkRecord(container: BookContainer.read(shown.write())).path == "/tmp/../x")
    }

    @Test func nonUTF8NamesAreStoredAsData() throws {
        let s = Scratch()
        let name: [UInt8] = Array(s.path.utf8) + Array("/caf".utf8) + [0xE9]    // Latin-1 é: not UTF-8
        let fd = Sys.withCPath(name) { open($0, O_CREAT | O_WRONLY, 0o644) }
        #expect(fd >= 0)
        close(fd)
        let record = try Bookmark.record(path: name, options: [], relativeTo: nil)
        let c = try BookContainer.read(try record.container().write())
        #expect(c[0x1004]?.arrayValue?.last == .data(Array("caf".utf8) + [0xE9]))
        #expect(try BookmarkRecord(container: c).pathBytes == name)
    }
}

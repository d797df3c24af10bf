import Foundation
import Testing
@testable import Bookmarks
import TestSupport

/// Alias files: 56-byte header, same data area; read back and resolvable.
@Suite struct AliasFileTests {
    @Test func writeReadAndResolveAnAliasFile() throws {
        let s = Scratch()
        let target = s.file("docs/report.txt")
        let data = try Bookmark.create(path: target, options: [.suitableForBookmarkFile])
        let written = try Bookmark.writeBookmarkData(data, to: URL(fileURLWithPath: s.dir("aliases")))
        #expect(written.path == s.p("aliases/report.txt.alias"))
        var st = stat()
        lstat(written.path, &st)
        #expect(st.st_mode & 0o400 != 0, "created readable (0666 before umask), not mode 0")
        let raw = try #require(FileManager.default.contents(atPath: written.path)).map { $0 }
        // Header fields the spec documents.
        #expect(Array(raw[0..<16]) == Array("book".utf8) + [0, 0, 0, 0] + Array("mark".utf8) + [0, 0, 0, 0])
        #expect(raw[16] == 0x38 && raw[20] == 0x38)
        #expect(Array(raw[28..<32]) == [0, 0, 4, 0x10])
        #expect(Array(raw[56...]) == Array(data[48...]), "same data area behind the longer header")
        let back = try Bookmark.bookmarkData(withContentsOf: written)
        #expect(try BookContainer.read(back).tocs == (try BookContainer.read(data)).tocs)
        try s.move("docs/report.txt", "docs/report-final.txt")
        #expect(try Bookmark.resolve(back).path == s.p("docs/report-final.txt"))
        // A bare blob in a file is read too.
        let bare = s.p("bare.bookmark")
        _ = FileManager.default.createFile(atPath: bare, contents: Data(data))
        #expect(try Bookmark.bookmarkData(withContentsOf: URL(fileURLWithPath: bare)) == data)
    }

    @Test func aliasWritingNeedsSuitableForBookmarkFile() throws {
        let s = Scratch()
        let data = try Bookmark.create(path: s.file("x"))
        #expect(throws: BookmarkError.self) { try Bookmark.writeBookmarkData(data, to: URL(fileURLWithPath: s.p("x-link"))) }
        #expect(throws: BookmarkError.self) { try Bookmark.bookmarkData(withContentsOf: URL(fileURLWithPath: s.path)) }
    }

    @Test func corruptAliasFileReportsOffsetsInTheFile() throws {
        let s = Scratch()
        let data = try Bookmark.create(path: s.file("x"), options: [.suitableForBookmarkFile])
        var alias = try AliasFile.wrap(data)
        alias[56] = 0x03                      // first-TOC offset, now misaligned
        do {
            _ = try AliasFile.unwrap(alias)
            Issue.record("accepted a misaligned TOC offset")
        } catch {
            if case .corruptData(_, let offset) = error { #expect(offset == 56) } else { Issue.record("\(error)") }
        }
    }

    @Test(.enabled(if: TinyFilesystem.isAvailable, "needs root and permission to mount a tmpfs"))
    func replacingAnAliasOnAFullDiskKeepsTheOldOne() throws {
        let s = Scratch()
        let fs = try TinyFilesystem()
        let first = try Bookmark.create(path: s.file("a"), options: [.suitableForBookmarkFile])
        let alias = try Bookmark.writeBookmarkData(first, to: URL(fileURLWithPath: fs.p("link.alias")))
        let before = try #require(FileManager.default.contents(atPath: alias.path))
        fs.fill()
        let second = try Bookmark.create(path: s.file(String(repeating: "long-name-", count: 20)), options: [.suitableForBookmarkFile])
        do {
            try Bookmark.writeBookmarkData(second, to: alias)
            Issue.record("writing an alias to a full filesystem succeeded")
        } catch {
            guard case .systemCall(_, let code, _) = error else { Issue.record("unexpected \(error)"); return }
            #expect(code == ENOSPC)
        }
        #expect(FileManager.default.contents(atPath: alias.path) == before, "the old alias is whole")
        #expect(fs.entries() == ["link.alias"], "no temporary file left behind")
        #expect(try Bookmark.resolve(Bookmark.bookmarkData(withContentsOf: alias)).path == s.p("a"))
    }
}

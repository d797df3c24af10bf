import Foundation
import Testing
@testable import Bookmarks
import TestSupport

/// The built `bookmark` executable, run as a real process.
@Suite struct BookmarkToolTests {
    static let tool = Shell.bookmarkTool

    @Test(.enabled(if: tool != nil, "the bookmark executable is not built next to the tests"))
    func createMoveResolvePrintsTheNewPathAndStaleMoved() throws {
        let bookmark = try #require(Self.tool)
        let s = Scratch()
        let f = s.file("f", "content")
        let b = s.p("b")
        #expect(try Shell.run(bookmark, ["create", f, "-o", b]).status == 0)
        try s.move("f", "g")
        let r = try Shell.run(bookmark, ["resolve", b])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == s.p("g"))
        #expect(lines.contains("stale: moved"))
        let j = try Shell.run(bookmark, ["resolve", b, "--json"])
        let obj = try #require(try JSONSerialization.jsonObject(with: Data(j.stdout.utf8)) as? [String: Any])
        #expect(obj["path"] as? String == s.p("g") && obj["reason"] as? String == "moved" && obj["stale"] as? Bool == true)
    }

    @Test(.enabled(if: tool != nil && Fixtures.directory != nil, "needs the bookmark executable and ../shared fixtures"))
    func inspectDecodesEveryAppleFixture() throws {
        let bookmark = try #require(Self.tool)
        for name in Fixtures.names {
            let file = try #require(Fixtures.directory) + "/\(name).bookmark"
            let r = try Shell.run(bookmark, ["inspect", file])
            #expect(r.status == 0 && r.stdout.contains("0x1004 (path components)"), "\(name): \(r.stderr)")
            let j = try Shell.run(bookmark, ["inspect", file, "--json"])
            #expect((try? JSONSerialization.jsonObject(with: Data(j.stdout.utf8))) != nil, "\(name)")
        }
        let bad = try Shell.run(bookmark, ["inspect", try #require(Fixtures.directory) + "/bad_content.bookmark"])
        #expect(bad.status != 0 && bad.stderr.contains("offset 4"))
    }

    /// An unprivileged caller learns nothing about a 0700 directory through a bookmark root made: every lookup runs with the caller's credentials.
    @Test(.enabled(if: tool != nil && Shell.isRoot && Shell.find("setpriv") != nil, "needs root, setpriv and the bookmark executable"))
    func unprivilegedCallerLearnsNothingAboutAPrivateDirectory() throws {
        let bookmark = try #require(Self.tool)
        let s = Scratch(mode: 0o755)
        s.dir("secret")
        chmod(s.p("secret"), 0o700)
        let target = s.file("secret/target.txt")
        let b = s.p("b")
        #expect(try Shell.run(bookmark, ["create", target, "-o", b]).status == 0)
        chmod(b, 0o644)
        try s.move("secret/target.txt", "secret/hidden-new-name.txt")
        // Root finds it.
        let asRoot = try Shell.run(bookmark, ["resolve", b])
        #expect(asRoot.stdout.hasPrefix(s.p("secret/hidden-new-name.txt")))
        // nobody does not, and the output does not mention the new name.
        let setpriv = try #require(Shell.find("setpriv"))
        let asNobody = try Shell.run(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", bookmark, "resolve", b])
        #expect(asNobody.status != 0)
        #expect(!asNobody.stdout.contains("hidden-new-name") && !asNobody.stderr.contains("hidden-new-name"))
        #expect(asNobody.stderr.contains("permission denied") || asNobody.stderr.contains("not found"), "\(asNobody.stderr)")
        // Asking for the privileged handle lookup without the capability changes nothing.
        let asking = try Shell.run(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", bookmark, "resolve", b, "--allow-handle-lookup"])
        #expect(asking.status != 0 && !asking.stdout.contains("hidden-new-name") && !asking.stderr.contains("hidden-new-name"))
        // An unprivileged search still works where nobody may look (skipping the unreadable directory).
        s.dir("public/sub")
        let pub = s.file("public/doc.txt")
        let pb = s.p("pb")
        #expect(try Shell.run(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", bookmark, "create", pub]).status == 0)
        #expect(try Shell.run(bookmark, ["create", pub, "-o", pb]).status == 0)
        chmod(pb, 0o644)
        // Moved out of public/: the widened search passes the unreadable secret/ (skipped) and finds it.
        try s.move("public/doc.txt", "zz-elsewhere/doc-moved.txt")
        let found = try Shell.run(setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", bookmark, "resolve", pb])
        #expect(found.status == 0, "\(found.stderr)")
        #expect(found.stdout.hasPrefix(s.p("zz-elsewhere/doc-moved.txt")) && found.stdout.contains("stale: moved"))
    }

    @Test(.enabled(if: tool != nil, "the bookmark executable is not built next to the tests"))
    func outputThatCannotBeWrittenIsAnError() throws {
        let bookmark = try #require(Self.tool)
        let s = Scratch()
        let f = s.file("f", "content")
        // /dev/full answers every write with ENOSPC.
        let toStdout = try Shell.run("/bin/sh", ["-c", "exec \"$0\" create \"$1\" > /dev/full", bookmark, f])
        #expect(toStdout.status == 1 && toStdout.stderr.contains("No space left on device"), "\(toStdout)")
        let b = s.p("b")
        #expect(try Shell.run(bookmark, ["create", f, "-o", b]).status == 0)
        let inspect = try Shell.run("/bin/sh", ["-c", "exec \"$0\" inspect \"$1\" > /dev/full", bookmark, b])
        #expect(inspect.status == 1 && inspect.stderr.contains("No space left on device"), "\(inspect)")
    }

    @Test(.enabled(if: tool != nil && TinyFilesystem.isAvailable, "needs the bookmark executable, root and tmpfs"))
    func createOnAFullDiskKeepsTheOldBookmarkFile() throws {
        let bookmark = try #require(Self.tool)
        let s = Scratch()
        let fs = try TinyFilesystem()
        let out = fs.p("b")
        #expect(try Shell.run(bookmark, ["create", s.file("f"), "-o", out]).status == 0)
        let before = try #require(FileManager.default.contents(atPath: out))
        fs.fill()
        let r = try Shell.run(bookmark, ["create", s.file(String(repeating: "deeper/", count: 30) + "g"), "-o", out])
        #expect(r.status == 1 && r.stderr.contains("No space left on device"), "\(r)")
        #expect(FileManager.default.contents(atPath: out) == before)
        #expect(fs.entries() == ["b"])
    }

    /// Linux file names are bytes: a name that is not UTF-8 is bookmarked and printed as it is, not as U+FFFD.
    @Test(.enabled(if: tool != nil, "the bookmark executable is not built next to the tests"))
    func namesThatAreNotUTF8() throws {
        let bookmark = try #require(Self.tool)
        let s = Scratch()
        let script = """
            cd "$1" && old=$(printf 'bad\\377') && new=$(printf 'ren\\377\\376') && printf x > "$old" \\
              && "$0" create "$old" -o b.bm && mv "$old" "$new" && exec "$0" resolve b.bm
            """
        let r = try ExternalTool.run("/bin/sh", ["-c", script, bookmark, s.path])
        #expect(r.status == 0, "\(String(decoding: r.stderr, as: UTF8.self))")
        let firstLine = Array(r.stdout.prefix { $0 != 0x0A })
        #expect(firstLine == Array(s.path.utf8) + Array("/ren".utf8) + [0xFF, 0xFE])
        #expect(String(decoding: r.stdout, as: UTF8.self).contains("\nstale: moved\n"))
    }

    /// A name with a newline is printed once, then the status lines.
    @Test(.enabled(if: tool != nil, "the bookmark executable is not built next to the tests"))
    func aNameWithANewline() throws {
        let bookmark = try #require(Self.tool)
        let s = Scratch()
        let name = s.file("a\nb")
        #expect(try Shell.run(bookmark, ["create", name, "-o", s.p("nl.bm")]).status == 0)
        let r = try Shell.run(bookmark, ["resolve", s.p("nl.bm")])
        #expect(r.stdout == name + "\nstale: no\nconfidence: strong\n", "\(r)")
    }

    /// `--relative-to` with a relative directory is taken from the working directory, at creation and resolution.
    @Test(.enabled(if: tool != nil, "the bookmark executable is not built next to the tests"))
    func relativeToARelativeDirectory() throws {
        let bookmark = try #require(Self.tool)
        let s = Scratch()
        s.file("proj/a/b/doc")
        let script = """
            cd "$1" && "$0" create proj/a/b/doc -o r.bm --relative-to proj && cp -r proj copy && rm -r proj \\
              && exec "$0" resolve r.bm --relative-to copy
            """
        let r = try ExternalTool.run("/bin/sh", ["-c", script, bookmark, s.path])
        let out = String(decoding: r.stdout, as: UTF8.self)
        #expect(r.status == 0, "\(String(decoding: r.stderr, as: UTF8.self))")
        #expect(out.hasSuffix("/copy/a/b/doc\nstale: relocatedTree\n"), "\(out)")
    }

    /// `bookmark bench` is run by plistbench (`plistbench bookmark`), found beside the executable: a scratch
    /// directory that does not exist fails as the benchmark always did.
    @Test(.enabled(if: tool != nil, "the bookmark executable is not built next to the tests"))
    func benchIsForwardedToPlistbench() throws {
        let bookmark = try #require(Self.tool)
        let plistbench = URL(fileURLWithPath: bookmark).deletingLastPathComponent().appendingPathComponent("plistbench").path
        try #require(FileManager.default.isExecutableFile(atPath: plistbench), "plistbench is built beside bookmark")
        let r = try Shell.run(bookmark, ["bench", "/nonexistent-scratch"])
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("bookmark: file not found (last known path: /nonexistent-scratch/bookmark-bench-"), "\(r)")
        let direct = try Shell.run(plistbench, ["bookmark", "/nonexistent-scratch"])
        #expect(direct.status == 1 && direct.stderr.hasPrefix("bookmark: file not found"), "\(direct)")
    }
}

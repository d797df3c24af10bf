import Foundation
import PlistKit
import Testing
@testable import Bookmarks
import TestSupport

/// `BookmarkCommand` called in this process, as the `bookmark` executable calls it.
@Suite struct BookmarkCommandTests {
    static func run(_ arguments: [String], input: [UInt8] = [], outputFailure: Errno? = nil) -> (status: Int32, io: RecordingIO) {
        let recording = RecordingIO(input: input, outputFailure: outputFailure)
        let status = BookmarkCommand.run(arguments.map { Array($0.utf8) }, io: recording.io)
        return (status, recording)
    }

    @Test func createWritesDataThatResolveReadsFromStandardInput() throws {
        let s = Scratch()
        let f = s.file("f", "content")
        let created = Self.run(["create", f])
        #expect(created.status == 0 && created.io.errorText.isEmpty)
        #expect(try Bookmark.resolve(created.io.output).path == f)
        try s.move("f", "g")
        let resolved = Self.run(["resolve", "-"], input: created.io.output)
        #expect(resolved.status == 0, "\(resolved.io.errorText)")
        #expect(resolved.io.outputText.hasPrefix(s.p("g") + "\nstale: moved\n"))
    }

    @Test func badCommandLinesGiveTheUsageAndStatus64() {
        for arguments in [[], ["frob"], ["create"], ["inspect", "a", "b"]] {
            let run = Self.run(arguments)
            #expect(run.status == 64, "\(arguments)")
            #expect(run.io.errorText == "bookmark: " + BookmarkCommand.usage + "\n", "\(arguments)")
        }
        let budget = Self.run(["resolve", "x", "--budget", "many"])
        #expect(budget.status == 64 && budget.io.errorText == "bookmark: --budget takes a number of directory entries\n")
        let value = Self.run(["create", "x", "-o"])
        #expect(value.status == 64 && value.io.errorText == "bookmark: -o needs a value\n")
        #expect(Self.run(["--help"]).io.outputText == BookmarkCommand.usage + "\n")
    }

    @Test func failuresAreMessagesWithStatusOne() {
        let s = Scratch()
        let missing = Self.run(["inspect", s.p("missing")])
        #expect(missing.status == 1)
        #expect(missing.io.errorText == "bookmark: cannot open \(s.p("missing")): \(Errno.noSuchFileOrDirectory)\n")
        let notBookmark = Self.run(["inspect", "-"], input: Array("not a bookmark".utf8))
        #expect(notBookmark.status == 1 && notBookmark.io.errorText.hasPrefix("bookmark: corrupt bookmark data at offset 0"))
        let full = Self.run(["create", s.file("f")], outputFailure: Errno(ENOSPC))
        #expect(full.status == 1)
        #expect(full.io.errorText == "bookmark: cannot write to standard output: \(Errno(ENOSPC))\n")
    }

    @Test(.enabled(if: Shell.bookmarkTool != nil, "the bookmark executable is not built next to the tests"))
    func givesWhatTheBinaryGives() throws {
        let bookmark = try #require(Shell.bookmarkTool)
        let s = Scratch()
        let data = try Bookmark.create(path: s.file("f"))
        let b = s.p("b")
        try Data(data).write(to: URL(fileURLWithPath: b))
        for arguments in [["inspect", b], ["inspect", b, "--json"], ["resolve", b, "--json"], ["resolve", s.p("none")]] {
            let here = Self.run(arguments)
            let binary = try Shell.run(bookmark, arguments)
            #expect(here.status == binary.status, "\(arguments)")
            #expect(here.io.outputText == binary.stdout, "\(arguments)")
            #expect(here.io.errorText == binary.stderr, "\(arguments)")
        }
    }
}

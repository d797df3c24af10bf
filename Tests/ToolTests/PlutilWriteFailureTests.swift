import Foundation
import Testing
import TestSupport

/// `plutil` when the output cannot be written: a full tmpfs (the kernel's `ENOSPC`) for files, `/dev/full` for
/// standard output. The tool must say so and exit 1, and a file it was converting in place must stay as it was.
@Suite(.enabled(if: ToolRunner.ours != nil, ToolRunner.oursMissing)) struct PlutilWriteFailureTests {
    /// Runs `tool` with stdout redirected to /dev/full (every write fails with ENOSPC).
    private func runIntoFullOutput(_ tool: String, _ arguments: [String]) throws -> ToolRunner.Result {
        try ToolRunner.run("/bin/sh", ["-c", "exec \"$0\" \"$@\" > /dev/full", tool] + arguments, input: Data(), in: nil)
    }

    static let outputCases: [[String]] = [
        ["-p"], ["-lint"], ["-convert", "xml1", "-o", "-"], ["-convert", "json", "-o", "-"],
        ["-extract", "k", "raw", "-o", "-"], ["-type", "k"],
    ]

    @Test(arguments: outputCases)
    func aFullStandardOutputIsAnError(_ arguments: [String]) throws {
        let dir = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.plist")
        try ToolRunner.writeXML(["k": "value"] as NSDictionary, to: input)
        let r = try runIntoFullOutput(try #require(ToolRunner.ours), arguments + [input.path])
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains("No space left on device"), "\(r)")
    }

    @Test(.enabled(if: TinyFilesystem.isAvailable, "needs root and permission to mount a tmpfs"))
    func convertingInPlaceOnAFullDiskKeepsTheFile() throws {
        let fs = try TinyFilesystem()
        let input = URL(fileURLWithPath: fs.p("in.plist"))
        // Binary is compact; its XML conversion needs more room than the disk will have.
        let big = NSDictionary(dictionary: Dictionary(uniqueKeysWithValues: (0..<2000).map { ("key\($0)", $0) }))
        try PropertyListSerialization.data(fromPropertyList: big, format: .binary, options: 0).write(to: input)
        let before = try Data(contentsOf: input)
        fs.fill()
        let tool = try #require(ToolRunner.ours)
        var r = try ToolRunner.run(tool, ["-convert", "xml1", input.path], input: Data(), in: nil)
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains("No space left on device"), "\(r)")
        #expect(try Data(contentsOf: input) == before)
        #expect(fs.entries() == ["in.plist"], "no temporary file left behind")

        // A new output file is not created at all.
        r = try ToolRunner.run(tool, ["-convert", "xml1", "-o", fs.p("out.plist"), input.path], input: Data(), in: nil)
        #expect(r.status == 1, "\(r)")
        #expect(fs.entries() == ["in.plist"])

        fs.release()
        r = try ToolRunner.run(tool, ["-convert", "xml1", input.path], input: Data(), in: nil)
        #expect(r.status == 0, "\(r)")
        let converted = try PropertyListSerialization.propertyList(from: try Data(contentsOf: input), format: nil)
        #expect((converted as? NSDictionary) == big)
    }

    @Test func aConversionKeepsTheFilesModeAndWritesNewFilesWithTheUmasksMode() throws {
        let dir = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.plist")
        try ToolRunner.writeXML(["k": 1] as NSDictionary, to: input)
        chmod(input.path, 0o604)
        let tool = try #require(ToolRunner.ours)
        #expect(try ToolRunner.run(tool, ["-convert", "binary1", input.path], input: Data(), in: nil).status == 0)
        var st = stat()
        stat(input.path, &st)
        #expect(st.st_mode & 0o7777 == 0o604)
        // A new file: 0666 less the umask, as Foundation's atomic write (and so Apple's plutil) creates it.
        let out = dir.appendingPathComponent("out.plist").path
        let r = try ToolRunner.run("/bin/sh", ["-c", "umask 027 && exec \"$0\" -convert xml1 -o \"$1\" \"$2\"", tool, out, input.path],
                                   input: Data(), in: nil)
        #expect(r.status == 0, "\(r)")
        stat(out, &st)
        #expect(st.st_mode & 0o7777 == 0o640)
    }
}

/// Input larger than `PlistReadOptions.maxInputSize` is refused before it is read into memory.
@Suite(.enabled(if: ToolRunner.ours != nil, ToolRunner.oursMissing)) struct PlutilInputLimitTests {
    @Test func aFileOverTheInputLimitIsRefusedWithoutReadingIt() throws {
        let dir = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // Sparse: 1 GiB + 1 byte of size, no blocks; reading it would take a gigabyte of memory.
        let path = dir.appendingPathComponent("huge.plist").path
        let fd = open(path, O_WRONLY | O_CREAT, 0o644)
        #expect(ftruncate(fd, (1 << 30) + 1) == 0)
        close(fd)
        let r = try ToolRunner.runOurs(["-lint", path])
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains("larger than the limit of 1073741824 bytes"), "\(r)")
    }
}

/// Where `-o` and in-place conversions write: through symbolic links and into devices and FIFOs, as Apple's tool
/// does (checked against it where it runs), and atomically into regular files.
@Suite(.enabled(if: ToolRunner.ours != nil, ToolRunner.oursMissing)) struct PlutilOutputDestinationTests {
    private func kind(_ path: String) -> mode_t {
        var st = stat()
        return lstat(path, &st) == 0 ? st.st_mode & S_IFMT : 0
    }

    @Test func aLinkIsWrittenThroughAndKept() throws {
        var results: [String: Data] = [:]
        let tools = [("ours", ToolRunner.ours), ("apple", ToolRunner.apple)].compactMap { n, t in t.map { (n, $0) } }
        for (name, tool) in tools {
            let dir = try ToolRunner.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: dir) }
            let real = dir.appendingPathComponent("real.plist").path
            try PropertyListSerialization.data(fromPropertyList: ["k": [1, "two"]] as NSDictionary, format: .binary, options: 0)
                .write(to: URL(fileURLWithPath: real))
            symlink("real.plist", dir.appendingPathComponent("link.plist").path)
            symlink("/dev/null", dir.appendingPathComponent("null").path)
            var r = try ToolRunner.run(tool, ["-convert", "xml1", "link.plist"], input: Data(), in: dir)
            #expect(r.status == 0, "\(name): \(r)")
            #expect(kind(dir.appendingPathComponent("link.plist").path) == S_IFLNK, "\(name) kept the link")
            results[name] = try Data(contentsOf: URL(fileURLWithPath: real))
            r = try ToolRunner.run(tool, ["-convert", "xml1", "-o", "null", "real.plist"], input: Data(), in: dir)
            #expect(r.status == 0, "\(name): \(r)")
            #expect(kind(dir.appendingPathComponent("null").path) == S_IFLNK, "\(name) kept the link to /dev/null")
        }
        #expect(kind("/dev/null") == S_IFCHR, "/dev/null is still the device")
        #expect(String(decoding: results["ours"] ?? Data(), as: UTF8.self).hasPrefix("<?xml"), "the target was converted")
        if let apple = results["apple"] { #expect(results["ours"] == apple) }
    }

    @Test(.enabled(if: access("/dev/shm", W_OK) == 0, "needs a writable /dev/shm"))
    func aRegularFileUnderDevIsReplacedLikeAnyOther() throws {
        let path = "/dev/shm/plutil-\(getpid())-\(UUID().uuidString).plist"
        defer { unlink(path) }
        try ToolRunner.writeXML(["k": "v"] as NSDictionary, to: URL(fileURLWithPath: path))
        let r = try ToolRunner.runOurs(["-convert", "binary1", path])
        #expect(r.status == 0, "\(r)")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.starts(with: Array("bplist00".utf8)), "replaced, not appended to")
        #expect(try PropertyListSerialization.propertyList(from: bytes, format: nil) as? NSDictionary == ["k": "v"])
    }

    @Test func aFIFOAndDevStdoutReceiveTheOutput() throws {
        let tool = try #require(ToolRunner.ours)
        let dir = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.plist")
        try ToolRunner.writeXML(["k": "v"] as NSDictionary, to: input)
        let expected = try ToolRunner.runOurs(["-convert", "xml1", "-o", "-", input.path]).stdout
        #expect(!expected.isEmpty)

        // stdout a pipe: `-o /dev/stdout` is `-o -`.
        let piped = try ToolRunner.runOurs(["-convert", "xml1", "-o", "/dev/stdout", input.path])
        #expect(piped.status == 0 && piped.stdout == expected, "\(piped)")

        // stdout a file opened for appending: the output is appended, as `>>` asks.
        let log = dir.appendingPathComponent("log").path
        try Data("before\n".utf8).write(to: URL(fileURLWithPath: log))
        let appended = try ToolRunner.run(
            "/bin/sh", ["-c", "exec \"$0\" -convert xml1 -o /dev/stdout \"$1\" >> \"$2\"", tool, input.path, log],
            input: Data(), in: nil)
        #expect(appended.status == 0, "\(appended)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: log)) == Data("before\n".utf8) + expected)

        // `/dev/fd/1` is the same descriptor as `/dev/stdout`.
        let grouped = try ToolRunner.run(
            "/bin/sh", ["-c", "{ \"$0\" -convert xml1 -o /dev/fd/1 \"$1\"; echo after; } >> \"$2\"", tool, input.path, log],
            input: Data(), in: nil)
        #expect(grouped.status == 0, "\(grouped)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: log)) == Data("before\n".utf8) + expected + expected + Data("after\n".utf8))

        // `/dev/stdin` converted in place: truncated and rewritten, as Apple's tool does, not appended to.
        let copy = dir.appendingPathComponent("copy.plist").path
        try FileManager.default.copyItem(atPath: input.path, toPath: copy)
        let inPlace = try ToolRunner.run(
            "/bin/sh", ["-c", "exec \"$0\" -convert binary1 /dev/stdin < \"$1\"", tool, copy], input: Data(), in: nil)
        #expect(inPlace.status == 0, "\(inPlace)")
        let converted = try Data(contentsOf: URL(fileURLWithPath: copy))
        #expect(converted.starts(with: Array("bplist00".utf8)))
        #expect(try PropertyListSerialization.propertyList(from: converted, format: nil) as? NSDictionary == ["k": "v"])

        // A FIFO stays a FIFO, and its reader gets the bytes.
        let fifo = dir.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let reader = try ToolRunner.run(
            "/bin/sh", ["-c", "timeout 10 cat \"$1\" & \"$0\" -convert xml1 -o \"$1\" \"$2\"; wait", tool, fifo, input.path],
            input: Data(), in: nil)
        #expect(reader.status == 0, "\(reader)")
        #expect(reader.stdout == expected)
        #expect(kind(fifo) == S_IFIFO)
    }
}

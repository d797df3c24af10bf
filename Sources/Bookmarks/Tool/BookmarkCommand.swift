import CSystem
import PlistKit

/// The `bookmark` command line over the Bookmarks library: `create`, `resolve` and `inspect`, their options,
/// messages and exit statuses (0 success, 1 failure, 64 a bad command line). The `bookmark` executable passes its
/// arguments and the process's standard streams (and forwards `bench` to `plistbench bookmark`).
public enum BookmarkCommand {
    /// The `--help` text (also printed, after `bookmark: `, for a command line it cannot run).
    public static let usage = """
        usage: bookmark create PATH [-o FILE] [--minimal] [--relative-to DIR]
               bookmark resolve FILE [--key-path P] [--prefer-identity] [--budget N] [--relative-to DIR] [--allow-handle-lookup] [--json]
               bookmark inspect FILE [--json]
               bookmark bench [DIR]
               bookmark --version

        create   writes bookmark data for PATH to FILE (default: stdout).
        resolve  prints the resolved path, then "stale: no" or "stale: <reason>" (moved, volumeMoved, replaced,
                 relocatedTree, foreignFormat, formatUpgraded) and the identity confidence. Exit 1 on failure.
                 --allow-handle-lookup uses open_by_handle_at, only if the process already has CAP_DAC_READ_SEARCH.
                 --key-path P resolves the bookmark data at key path P of a property list or keyed archive FILE
                 (as inspect lists them).
        inspect  lists every TOC entry (Apple and Linux keys); works on macOS blobs too. Given a property list or
                 keyed archive (an .sfl2 file, preferences), lists the bookmark data and alias records inside it,
                 each with its key path and what could be read.
        resolve and inspect accept bare bookmark data and alias files.
        bench    times create / resolve in a scratch directory (default /tmp).
        --version prints the version.
        """

    /// The most bytes a bookmark file given to `resolve` or `inspect` may hold.
    static let inputLimit = 16 << 20

    /// Runs one command line: the arguments after the program name, as the bytes the kernel passed (file names need
    /// not be UTF-8). Returns the exit status.
    public static func run(_ arguments: [[UInt8]], io: CommandIO = .standard) -> Int32 {
        var command = BookmarkCommandLine(arguments: arguments, io: io)
        do {
            try command.run()
            return 0
        } catch {
            io.writeError("bookmark: \(error.message)\n")
            return error.status
        }
    }
}

/// A message for standard error (after `bookmark: `) and the exit status that goes with it.
struct BookmarkCommandFailure: Error {
    var message: String
    var status: Int32 = 1
}

/// One run of the command: the arguments not yet consumed, and the streams.
struct BookmarkCommandLine {
    var arguments: [[UInt8]]
    let io: CommandIO

    private func usageError() -> BookmarkCommandFailure { BookmarkCommandFailure(message: BookmarkCommand.usage, status: 64) }

    mutating func run() throws(BookmarkCommandFailure) {
        guard let verb = arguments.first.map({ String(decoding: $0, as: UTF8.self) }) else { throw usageError() }
        arguments.removeFirst()
        do {
            switch verb {
            case "create": try create()
            case "resolve": try resolve()
            case "inspect": try inspect()
            case "-h", "--help", "help": try printOut(BookmarkCommand.usage)
            case "--version": try printOut(versionLine(tool: "bookmark"), newline: false)
            default: throw usageError()
            }
        } catch let error as BookmarkCommandFailure {
            throw error
        } catch {
            throw BookmarkCommandFailure(message: "\(error)")
        }
    }

    private mutating func create() throws {
        let out = try option("-o")
        let relative = try optionBytes("--relative-to")
        let minimal = flag("--minimal")
        guard arguments.count == 1 else { throw usageError() }
        let data = try Bookmark.create(pathBytes: arguments[0], options: minimal ? [.minimalBookmark] : [], relativeToBytes: relative)
        try writeAll(data, to: out)
    }

    private mutating func resolve() throws {
        var options = BookmarkResolveOptions()
        if let budget = try option("--budget") {
            guard let entries = Int(budget), entries >= 0 else {
                throw BookmarkCommandFailure(message: "--budget takes a number of directory entries", status: 64)
            }
            options.budget.maxEntries = entries
        }
        options.relativeTo = try option("--relative-to")
        if flag("--prefer-identity") { options.policy = .preferIdentity }
        if flag("--allow-handle-lookup") { options.allowPrivilegedHandleLookup = true }
        let keyPath = try option("--key-path")
        let json = flag("--json")
        guard arguments.count == 1 else { throw usageError() }
        var bytes = try readAll(arguments[0])
        if let keyPath { bytes = try embeddedData(at: keyPath, in: bytes, file: arguments[0]) }
        let result = try Bookmark.resolve(AliasFile.unwrap(bytes), options: options)
        if json {
            try printOut(BookmarkInspection.describe(result, json: true))
        } else {
            // The path as the bytes it is (a name need not be UTF-8), then the status lines.
            try writeAll(result.pathBytes + [0x0A] + Array(BookmarkInspection.status(result).utf8), to: nil)
        }
    }

    private mutating func inspect() throws {
        let json = flag("--json")
        guard arguments.count == 1 else { throw usageError() }
        let bytes = try readAll(arguments[0])
        if let found = try embeddedBookmarks(in: bytes, file: arguments[0]) {
            try printOut(json ? EmbeddedBookmarks.json(found) : found.isEmpty ? "no bookmark data found\n" : EmbeddedBookmarks.listing(found),
                         newline: json)
            return
        }
        let data = try AliasFile.unwrap(bytes)
        try printOut(json ? try BookmarkInspection.json(data) : try BookmarkInspection.text(data), newline: json)
    }

    // MARK: Arguments

    /// The value after option `name`, removing both; nil when the option is absent.
    private mutating func optionBytes(_ name: String) throws(BookmarkCommandFailure) -> [UInt8]? {
        guard let index = arguments.firstIndex(of: Array(name.utf8)) else { return nil }
        guard index + 1 < arguments.count else { throw BookmarkCommandFailure(message: "\(name) needs a value", status: 64) }
        let value = arguments[index + 1]
        arguments.removeSubrange(index...(index + 1))
        return value
    }

    private mutating func option(_ name: String) throws(BookmarkCommandFailure) -> String? {
        try optionBytes(name).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether flag `name` is given, removing it.
    private mutating func flag(_ name: String) -> Bool {
        guard let index = arguments.firstIndex(of: Array(name.utf8)) else { return false }
        arguments.remove(at: index)
        return true
    }

    // MARK: Files

    /// The bytes of the file at `path` (`-`: standard input), at most `BookmarkCommand.inputLimit`.
    private func readAll(_ path: [UInt8]) throws(BookmarkCommandFailure) -> [UInt8] {
        let shown = String(decoding: path, as: UTF8.self)
        let bytes: [UInt8]
        if path == [UInt8(ascii: "-")] {
            do { bytes = try io.readInput(BookmarkCommand.inputLimit) } catch {
                throw BookmarkCommandFailure(message: "cannot read \(shown): \(error)")
            }
        } else {
            let fd: Int32
            switch Sys.openAt(CSYSTEM_AT_FDCWD, path, CSYSTEM_O_RDONLY) {
            case .success(let opened): fd = opened
            case .failure(let error): throw BookmarkCommandFailure(message: "cannot open \(shown): \(error)")
            }
            defer { Sys.close(fd) }
            do { bytes = try FileInput.readAll(fd, limit: BookmarkCommand.inputLimit) } catch {
                throw BookmarkCommandFailure(message: "cannot read \(shown): \(error)")
            }
        }
        guard bytes.count <= BookmarkCommand.inputLimit else {
            throw BookmarkCommandFailure(message: "\(shown) is too large for bookmark data")
        }
        return bytes
    }

    /// Writes `bytes` to stdout, or to `path` (through links, into devices; atomically into a regular file, so a full
    /// disk leaves an existing one whole); any failure, stdout's included, is reported.
    private func writeAll(_ bytes: [UInt8], to path: String?) throws(BookmarkCommandFailure) {
        if let path {
            do { try AtomicFile.writeFollowingLinks(path, with: bytes) } catch {
                throw BookmarkCommandFailure(message: "cannot write \(path): \(error.reason)")
            }
            return
        }
        do { try io.writeOutput(bytes) } catch {
            throw BookmarkCommandFailure(message: "cannot write to standard output: \(error)")
        }
    }

    /// Prints a line (or `text` as is) through `writeAll`, so a failed write is an error.
    private func printOut(_ text: String, newline: Bool = true) throws(BookmarkCommandFailure) {
        try writeAll(Array((newline ? text + "\n" : text).utf8), to: nil)
    }
}

// bookmark — create, resolve and inspect bookmark data (thin front end over the Bookmarks library).
import Bookmarks
import PlistKit
#if canImport(Glibc)
import Glibc
#endif

let usage = """
usage: bookmark create PATH [-o FILE] [--minimal] [--relative-to DIR]
       bookmark resolve FILE [--prefer-identity] [--budget N] [--relative-to DIR] [--allow-handle-lookup] [--json]
       bookmark inspect FILE [--json]
       bookmark bench [DIR]

create   writes bookmark data for PATH to FILE (default: stdout).
resolve  prints the resolved path, then "stale: no" or "stale: <reason>" (moved, volumeMoved, replaced,
         relocatedTree, foreignFormat, formatUpgraded) and the identity confidence. Exit 1 on failure.
         --allow-handle-lookup uses open_by_handle_at, only if the process already has CAP_DAC_READ_SEARCH.
inspect  lists every TOC entry (Apple and Linux keys); works on macOS blobs too.
resolve and inspect accept bare bookmark data and alias files.
bench    times create / resolve in a scratch directory (default /tmp).
"""

func fail(_ message: String, code: Int32 = 1) -> Never {
    let bytes = Array("bookmark: \(message)\n".utf8)
    _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
    exit(code)
}

/// The text of the last system error.
func systemError() -> String { String(cString: strerror(errno)) }

func readAll(_ path: [UInt8]) -> [UInt8] {
    let shown = String(decoding: path, as: UTF8.self)
    let fd = path == [UInt8(ascii: "-")] ? 0 : (path + [0]).withUnsafeBufferPointer { p in
        p.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_RDONLY | O_CLOEXEC) }
    }
    guard fd >= 0 else { fail("cannot open \(shown): \(systemError())") }
    var out: [UInt8] = []
    var buf = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = buf.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n < 0 {
            if errno == EINTR { continue }
            fail("cannot read \(shown): \(systemError())")
        }
        if n == 0 { break }
        out += buf[0..<n]
        if out.count > 16 << 20 { fail("\(shown) is too large for bookmark data") }
    }
    return out
}

/// Writes `bytes` to stdout, or to `path` (through links, into devices; atomically into a regular file, so a full
/// disk leaves an existing one whole); any failure, stdout's included, is reported and exits 1.
func writeAll(_ bytes: [UInt8], to path: String?) {
    if let path {
        do { try AtomicFile.writeFollowingLinks(path, with: bytes) } catch { fail("cannot write \(path): \(error.reason)") }
        return
    }
    do { try FileOutput.writeAll(bytes, to: STDOUT_FILENO, path: "-") } catch {
        fail("cannot write to standard output: \(error.reason)")
    }
}

/// Prints a line (or `text` as is) through `writeAll`, so a failed write is an error.
func printOut(_ text: String, newline: Bool = true) {
    writeAll(Array((newline ? text + "\n" : text).utf8), to: nil)
}

// The arguments as the kernel passed them: file names are bytes, and `CommandLine.arguments` would turn one that is
// not UTF-8 into another name.
var args: [[UInt8]] = (1..<max(1, Int(CommandLine.argc))).map { i in
    CommandLine.unsafeArgv[i].map { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) } ?? []
}
guard let verb = args.first.map({ String(decoding: $0, as: UTF8.self) }) else { fail(usage, code: 64) }
args.removeFirst()

@MainActor func optionBytes(_ name: String) -> [UInt8]? {
    guard let i = args.firstIndex(of: Array(name.utf8)) else { return nil }
    guard i + 1 < args.count else { fail("\(name) needs a value", code: 64) }
    let v = args[i + 1]
    args.removeSubrange(i...(i + 1))
    return v
}
@MainActor func option(_ name: String) -> String? {
    optionBytes(name).map { String(decoding: $0, as: UTF8.self) }
}
@MainActor func flag(_ name: String) -> Bool {
    guard let i = args.firstIndex(of: Array(name.utf8)) else { return false }
    args.remove(at: i)
    return true
}

do {
    switch verb {
    case "create":
        let out = option("-o")
        let relative = optionBytes("--relative-to")
        let minimal = flag("--minimal")
        guard args.count == 1 else { fail(usage, code: 64) }
        let data = try Bookmark.create(pathBytes: args[0], options: minimal ? [.minimalBookmark] : [], relativeToBytes: relative)
        writeAll(data, to: out)
    case "resolve":
        var opts = BookmarkResolveOptions()
        if let b = option("--budget") {
            guard let n = Int(b), n >= 0 else { fail("--budget takes a number of directory entries", code: 64) }
            opts.budget.maxEntries = n
        }
        opts.relativeTo = option("--relative-to")
        if flag("--prefer-identity") { opts.policy = .preferIdentity }
        if flag("--allow-handle-lookup") { opts.allowPrivilegedHandleLookup = true }
        let json = flag("--json")
        guard args.count == 1 else { fail(usage, code: 64) }
        let result = try Bookmark.resolve(AliasFile.unwrap(readAll(args[0])), options: opts)
        if json {
            printOut(BookmarkInspection.describe(result, json: true))
        } else {
            // The path as the bytes it is (a name need not be UTF-8), then the status lines.
            writeAll(result.pathBytes + [0x0A] + Array(BookmarkInspection.status(result).utf8), to: nil)
        }
    case "inspect":
        let json = flag("--json")
        guard args.count == 1 else { fail(usage, code: 64) }
        let data = try AliasFile.unwrap(readAll(args[0]))
        printOut(json ? try BookmarkInspection.json(data) : try BookmarkInspection.text(data), newline: json)
    case "bench":
        let dir = args.first.map { String(decoding: $0, as: UTF8.self) } ?? "/tmp"
        printOut(try BookmarkBenchmark.run(scratch: dir).report)
    case "-h", "--help", "help":
        printOut(usage)
    default:
        fail(usage, code: 64)
    }
} catch {
    fail("\(error)")
}

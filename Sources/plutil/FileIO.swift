import Glibc
import PlistKit

/// A failed read or write, with the system's explanation.
struct IOFailure: Error {
    let message: String
    init(_ message: String) { self.message = message }
    init(errno code: Int32) { self.message = String(cString: strerror(code)) }
}

/// Whole-file reads and writes on file descriptors (`-` is stdin/stdout).
enum FileIO {
    /// Reads all of `path`, or of stdin for `-`, refusing more than `limit` bytes: `/dev/zero` or an endless pipe is
    /// an error, not an allocation that grows until the process dies.
    static func read(_ path: String, limit: Int) throws -> [UInt8] {
        if path == "-" { return try readAll(STDIN_FILENO, limit: limit) }
        guard !path.isEmpty else { throw IOFailure("Empty path specified") }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw IOFailure(errno: errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw IOFailure(errno: errno) }
        if (info.st_mode & S_IFMT) == S_IFDIR { throw IOFailure(errno: EISDIR) }
        if (info.st_mode & S_IFMT) == S_IFREG, info.st_size > limit { throw tooLarge(limit) }
        return try readAll(fd, limit: limit)
    }

    private static func tooLarge(_ limit: Int) -> IOFailure {
        IOFailure("input is larger than the limit of \(limit) bytes")
    }

    private static func readAll(_ fd: Int32, limit: Int) throws -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw IOFailure(errno: errno)
            }
            if n == 0 { return result }
            guard result.count + n <= limit else { throw tooLarge(limit) }
            result.append(contentsOf: chunk[0..<n])
        }
    }

    /// Writes `bytes` to stdout.
    static func writeStandardOutput(_ bytes: [UInt8]) throws {
        try writeAll(STDOUT_FILENO, bytes)
    }

    /// Writes text to stdout; a failed write (a full disk, a closed pipe) is an error, not silently dropped.
    static func printOut(_ text: String) throws {
        try writeAll(STDOUT_FILENO, Array(text.utf8))
    }

    /// Writes a line to stderr.
    static func printError(_ line: String) {
        try? writeAll(STDERR_FILENO, Array((line + "\n").utf8))
    }

    /// Writes `bytes` to `path`: through symbolic links and into devices and FIFOs as Apple's tool does, but
    /// atomically into regular files (`AtomicFile`), so a full disk or a crash leaves the old file whole.
    static func write(_ bytes: [UInt8], to path: String) throws {
        guard !path.isEmpty else { throw IOFailure("Empty path specified") }
        do {
            try AtomicFile.writeFollowingLinks(path, with: bytes)
        } catch {
            throw IOFailure(errno: error.code)
        }
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        do { try FileOutput.writeAll(bytes, to: fd, path: "") } catch { throw IOFailure(errno: error.code) }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Whole-file reads and writes for `plutil` (`-` is standard input or output, through the command's `CommandIO`).
struct PlutilFiles {
    /// A failed read or write, with the system's explanation.
    struct Failure: Error {
        let message: String
        init(_ message: String) { self.message = message }
        init(_ error: Errno) { self.message = error.description }
    }

    let io: CommandIO

    /// Reads all of `path`, or of stdin for `-`, refusing more than `limit` bytes: `/dev/zero` or an endless pipe is
    /// an error, not an allocation that grows until the process dies.
    func read(_ path: String, limit: Int) throws(Failure) -> [UInt8] {
        if path == "-" { return try checked(Result { () throws(Errno) in try io.readInput(limit) }, limit: limit) }
        let fd = try openForReading(path, limit: limit)
        defer { close(fd) }
        return try checked(Result { () throws(Errno) in try FileInput.readAll(fd, limit: limit) }, limit: limit)
    }

    /// The bytes of `path` (stdin for `-`) as `read` gives them, but a regular file mapped rather than read: a
    /// lookup in a large binary file then touches only the pages it needs.
    func map(_ path: String, limit: Int) throws(Failure) -> MappedInput {
        if path == "-" {
            let bytes = try read(path, limit: limit)
            return bytes.withUnsafeBytes { MappedInput(copying: $0) }
        }
        let fd = try openForReading(path, limit: limit)
        defer { close(fd) }
        do {
            return try MappedInput(descriptor: fd, limit: limit)
        } catch {
            throw error == Errno(EFBIG) ? tooLarge(limit) : Failure(error)
        }
    }

    /// Opens `path` for reading (the caller closes it): not a directory, and not a regular file past `limit` bytes.
    private func openForReading(_ path: String, limit: Int) throws(Failure) -> Int32 {
        guard !path.isEmpty else { throw Failure("Empty path specified") }
        let fd: Int32
        switch SystemCall.value({ open(path, O_RDONLY | O_CLOEXEC) }) {
        case .success(let opened): fd = opened
        case .failure(let error): throw Failure(error)
        }
        var info = stat()
        var refusal: Failure?
        if case .failure(let error) = SystemCall.nothing({ fstat(fd, &info) }) {
            refusal = Failure(error)
        } else if (info.st_mode & S_IFMT) == S_IFDIR {
            refusal = Failure(.isDirectory)
        } else if (info.st_mode & S_IFMT) == S_IFREG, info.st_size > limit {
            refusal = tooLarge(limit)
        }
        if let refusal {
            close(fd)
            throw refusal
        }
        return fd
    }

    private func checked(_ read: Result<[UInt8], Errno>, limit: Int) throws(Failure) -> [UInt8] {
        switch read {
        case .success(let bytes) where bytes.count > limit: throw tooLarge(limit)
        case .success(let bytes): return bytes
        case .failure(let error): throw Failure(error)
        }
    }

    private func tooLarge(_ limit: Int) -> Failure {
        Failure("input is larger than the limit of \(limit) bytes")
    }

    /// Writes `bytes` to stdout; a failed write (a full disk, a closed pipe) is an error, not silently dropped.
    func writeStandardOutput(_ bytes: [UInt8]) throws(Failure) {
        do { try io.writeOutput(bytes) } catch { throw Failure(error) }
    }

    /// Writes `bytes` to `path`: through symbolic links and into devices and FIFOs as Apple's tool does, but
    /// atomically into regular files (`AtomicFile`), so a full disk or a crash leaves the old file whole.
    func write(_ bytes: [UInt8], to path: String) throws(Failure) {
        guard !path.isEmpty else { throw Failure("Empty path specified") }
        do {
            try AtomicFile.writeFollowingLinks(path, with: bytes)
        } catch {
            throw Failure(error.systemError)
        }
    }
}

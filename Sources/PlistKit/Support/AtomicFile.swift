#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Replaces a file's contents all at once, so a reader, a crash or a full disk sees either the old file or the new
/// one, never a mix: the bytes go to a new temporary file in the same directory (created with `O_EXCL` under a
/// random name, so nothing planted at a guessable name is followed), which is flushed with `fsync` and then renamed
/// over the target. Any failure removes the temporary file and leaves the target as it was.
///
/// A symbolic link at `path` is replaced by the new file, as Foundation's `Data.write(to:options: .atomic)` does;
/// `writeFollowingLinks` writes through links, FIFOs, devices and `/dev/stdout` instead, as command-line output should.
public enum AtomicFile {
    /// How a file is replaced.
    public struct Options: Sendable {
        /// The permissions of a file that did not exist (less the process umask, unless `appliesUmask` is false). An
        /// existing file keeps its own.
        public var newFileMode: mode_t = 0o666
        /// Whether the umask narrows `newFileMode`, as `open(2)` and Foundation do. Stores whose files must have an
        /// exact mode (all-users preferences readable by everyone) turn it off.
        public var appliesUmask: Bool = true
        /// Give the new file the old file's owner and group when they differ from ours (works only with the
        /// privilege to `chown`; without it the mode is still kept).
        public var keepsOwner: Bool = true
        /// `fsync` the directory after the rename, so a power loss cannot forget the rename itself.
        public var syncsDirectory: Bool = true
        /// Create missing parent directories (mode 0700) first.
        public var createsDirectories: Bool = false

        public init() {}
    }

    /// Writes `bytes` to `path` atomically. Returns the new file's `stat` (taken before the rename, from the file
    /// descriptor, so it describes exactly the file this call wrote).
    @discardableResult
    public static func replace(_ path: String, with bytes: UnsafeRawBufferPointer, options: Options = Options()) throws(FileWriteError) -> stat {
        do {
            return try replace(path, options: options) { write in try write(bytes) }
        } catch let error as FileWriteError {
            throw error
        } catch {
            preconditionFailure("only the file's own writes can fail here: \(error)")
        }
    }

    /// Writes `path` atomically with contents made piece by piece (a document converted as it is read): `produce`
    /// gets a function that writes bytes to the new file. Whatever fails — a write, or `produce` itself, whose error
    /// is thrown as it is — the temporary file is removed and `path` left as it was.
    @discardableResult
    public static func replace(
        _ path: String, options: Options = Options(), producing produce: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws -> stat {
        guard !path.isEmpty else { throw FileWriteError(operation: "open", path: path, systemError: .noSuchFileOrDirectory) }
        let directory = directoryName(path)
        if options.createsDirectories { try makeDirectories(directory) }
        let (fd, temporary) = try createTemporary(in: directory, for: path, mode: options.newFileMode)
        var renamed = false
        defer {
            close(fd)
            if !renamed { unlink(temporary) }
        }
        var old = stat()
        if stat(path, &old) == 0, old.st_mode & S_IFMT == S_IFREG {
            _ = fchmod(fd, old.st_mode & 0o7777)
            if options.keepsOwner, old.st_uid != geteuid() || old.st_gid != getegid() {
                _ = fchown(fd, old.st_uid, old.st_gid)
            }
        } else if !options.appliesUmask {
            _ = fchmod(fd, options.newFileMode & 0o7777)
        }
        try produce { bytes throws(FileWriteError) in try FileOutput.writeAll(bytes, to: fd, path: path) }
        // With delayed allocation, ENOSPC and EIO may surface only here: the rename must wait for this.
        try check("fsync", path, SystemCall.nothing { fsync(fd) })
        var st = stat()
        try check("fstat", path, SystemCall.nothing { fstat(fd, &st) })
        try check("rename", path, SystemCall.nothing { rename(temporary, path) })
        renamed = true
        if options.syncsDirectory, case .success(let directoryDescriptor) = SystemCall.value({
            open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        }) {
            _ = SystemCall.nothing { fsync(directoryDescriptor) }
            close(directoryDescriptor)
        }
        return st
    }

    /// Writes `bytes` to `path` atomically (see `replace(_:with:options:)`).
    @discardableResult
    public static func replace(_ path: String, with bytes: [UInt8], options: Options = Options()) throws(FileWriteError) -> stat {
        // `withUnsafeBytes` rethrows untyped errors; `Result` carries the typed one out.
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(FileWriteError) in try replace(path, with: raw, options: options) }
        }
        return try result.get()
    }

    /// A new, empty file beside `path`, opened for writing: `.<name>.XXXXXX` with random letters, `O_EXCL`, retried on
    /// the rare clash.
    private static func createTemporary(in directory: String, for path: String, mode: mode_t) throws(FileWriteError) -> (Int32, String) {
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".utf8)
        var generator = SystemRandomNumberGenerator()
        // The name shows whose temporary file it is, unless that would push a long one past NAME_MAX (255 bytes).
        let name = lastComponent(path)
        let prefix = (directory == "/" ? "" : directory) + "/." + (name.utf8.count <= 200 ? name : "atomic") + "."
        for _ in 0..<100 {
            var name = Array(prefix.utf8)
            for _ in 0..<8 { name.append(letters[Int(generator.next(upperBound: UInt32(letters.count)))]) }
            let candidate = String(decoding: name, as: UTF8.self)
            switch SystemCall.value({ open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode) }) {
            case .success(let fd): return (fd, candidate)
            case .failure(.fileExists): continue
            case .failure(let error): throw FileWriteError(operation: "open", path: path, systemError: error)
            }
        }
        throw FileWriteError(operation: "open", path: path, systemError: .fileExists)
    }

    /// Creates `path` and any missing parents with `mode`; an existing path is left as it is.
    public static func makeDirectories(_ path: String, mode: mode_t = 0o700) throws(FileWriteError) {
        var st = stat()
        if stat(path, &st) == 0 { return }
        let parent = directoryName(path)
        if parent != path, parent != "/", parent != "." { try makeDirectories(parent, mode: mode) }
        switch SystemCall.nothing({ mkdir(path, mode) }) {
        case .success, .failure(.fileExists): return
        case .failure(let error): throw FileWriteError(operation: "mkdir", path: path, systemError: error)
        }
    }

    /// Throws the failure of the call `operation` for `path`, if it failed.
    package static func check(_ operation: String, _ path: String, _ result: Result<Void, Errno>) throws(FileWriteError) {
        if case .failure(let error) = result { throw FileWriteError(operation: operation, path: path, systemError: error) }
    }

    /// The directory part of `path` (`.` when it has none).
    package static func directoryName(_ path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        if slash == path.utf8.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// The last component of `path`.
    package static func lastComponent(_ path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }
}

/// A file could not be written: the system call that failed, the file it was for, and the error it gave.
public struct FileWriteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The system call that failed (`open`, `write`, `fsync`, `rename`, `mkdir`, …).
    public let operation: String
    /// The file being written.
    public let path: String
    /// The error the call gave (`ENOSPC`, `EACCES`, …).
    public let systemError: Errno

    /// The `errno` value of `systemError`.
    public var code: Int32 { systemError.rawValue }

    /// The failure of the call `operation` for `path`.
    public init(operation: String, path: String, systemError: Errno) {
        self.operation = operation
        self.path = path
        self.systemError = systemError
    }

    /// An error from an `errno` number (by default, the calling thread's `errno` now).
    public init(operation: String, path: String, code: Int32 = errno) {
        self.init(operation: operation, path: path, systemError: Errno(code))
    }

    /// The system's text for the error, e.g. "No space left on device".
    public var reason: String { systemError.description }

    public var description: String { "\(operation) failed for \(path): \(reason)" }
}

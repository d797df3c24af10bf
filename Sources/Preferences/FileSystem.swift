#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import PlistKit

/// Identity and version of a file as `stat` sees it: a change in any field means the file was replaced or edited.
struct FileStamp: Sendable, Hashable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modifiedSeconds: Int
    var modifiedNanoseconds: Int

    init(_ st: stat) {
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        modifiedSeconds = Int(st.st_mtim.tv_sec)
        modifiedNanoseconds = Int(st.st_mtim.tv_nsec)
    }
}

/// Thin POSIX helpers for the domain store. Errors carry the call and `errno` text.
enum FileSystem {
    static func errnoText(_ code: Int32 = errno) -> String {
        String(cString: strerror(code))
    }

    static func ioError(_ call: String, _ path: String, code: Int32 = errno) -> PreferencesError {
        PreferencesError(.io, "\(call) failed: \(errnoText(code))", path: path)
    }

    /// The stamp of `path` (following symlinks), or nil when it does not exist.
    static func stamp(_ path: String) throws -> FileStamp? {
        var st = stat()
        if stat(path, &st) == 0 { return FileStamp(st) }
        if errno == ENOENT || errno == ENOTDIR { return nil }
        throw ioError("stat", path)
    }

    /// The whole file and its stamp, or nil when it does not exist. Refuses files larger than `limit`.
    static func readFile(_ path: String, limit: Int) throws -> (bytes: [UInt8], stamp: FileStamp)? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw ioError("open", path)
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw ioError("fstat", path) }
        let size = Int(st.st_size)
        guard size <= limit else {
            throw PreferencesError(.sizeLimitExceeded, "file is \(size) bytes, more than the read limit of \(limit)", path: path)
        }
        var bytes = [UInt8](repeating: 0, count: size)
        var filled = 0
        while filled < size {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, size - filled) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ioError("read", path)
            }
            if n == 0 { break } // shrank under us (a non-atomic writer); the parse decides
            filled += n
        }
        if filled < size { bytes.removeSubrange(filled...) }
        return (bytes, FileStamp(st))
    }

    /// Creates `path` and its missing parents with `mode`.
    static func makeDirectories(_ path: String, mode: mode_t = 0o700) throws {
        do { try AtomicFile.makeDirectories(path, mode: mode) } catch { throw ioError(error.operation, error.path, code: error.code) }
    }

    /// An exclusive `flock` on `path` (created if needed, and its directory too when `createsDirectory`), held until
    /// `body` returns. Released by the kernel if the process dies, so a crash never leaves a stale lock.
    static func withExclusiveLock<T>(_ path: String, createsDirectory: Bool = true, _ body: () throws -> T) throws -> T {
        if createsDirectory { try makeDirectories(AtomicFile.directoryName(path)) }
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ioError("open lock file", path) }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            if errno != EINTR { throw ioError("flock", path) }
        }
        defer { _ = flock(fd, LOCK_UN) }
        return try body()
    }

    /// Replaces `path` atomically (`AtomicFile`: temp file in the same directory, write, fsync, keep mode and owner of
    /// the old file, rename, fsync the directory when asked; create missing directories when asked). Returns the
    /// stamp of the new file.
    static func atomicReplace(
        _ path: String, with bytes: [UInt8], newFileMode: mode_t, syncDirectory: Bool, createsDirectories: Bool
    ) throws -> FileStamp {
        var options = AtomicFile.Options()
        options.newFileMode = newFileMode
        options.appliesUmask = false
        options.syncsDirectory = syncDirectory
        options.createsDirectories = createsDirectories
        do {
            return FileStamp(try AtomicFile.replace(path, with: bytes, options: options))
        } catch {
            throw ioError(error.operation, path, code: error.code)
        }
    }

    /// Removes `path`; a missing file is not an error.
    static func remove(_ path: String) throws {
        if unlink(path) != 0, errno != ENOENT { throw ioError("unlink", path) }
    }

    /// Renames a damaged file to `<name>.corrupt-<UTC time>-<pid>` and returns the new path.
    static func moveAside(_ path: String) throws -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        var seconds = time_t(now.tv_sec)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let stampText = "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
        let target = "\(path).corrupt-\(stampText)-\(getpid())-\(now.tv_nsec)"
        guard rename(path, target) == 0 else { throw ioError("rename", path) }
        return target
    }

    /// Names of the entries of `directory` (without `.`/`..`); empty when it does not exist.
    static func listDirectory(_ directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// Whether `path` is a regular file (following symlinks).
    static func isRegularFile(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFREG
    }

    /// Whether `path` is a directory (following symlinks).
    static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && st.st_mode & S_IFMT == S_IFDIR
    }

    /// Text of a NUL-terminated `CChar` buffer.
    static func cString(_ buffer: [CChar]) -> String {
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Monotonic nanoseconds, for rate limiting.
    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

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

    /// Resolves symlinks so writes replace the link's target, not the link (dotfile managers rely on this).
    static func resolveSymlinks(_ path: String) -> String {
        var current = path
        for _ in 0..<40 {
            var st = stat()
            guard lstat(current, &st) == 0, (st.st_mode & S_IFMT) == S_IFLNK else { return current }
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(current, &buffer, buffer.count - 1)
            guard n > 0 else { return current }
            let target = buffer[0..<n].withUnsafeBufferPointer { String(decoding: UnsafeRawBufferPointer($0), as: UTF8.self) }
            current = target.hasPrefix("/") ? target : directoryName(current) + "/" + target
        }
        return current
    }

    static func directoryName(_ path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        if slash == path.utf8.startIndex { return "/" }
        return String(path[..<slash])
    }

    static func lastComponent(_ path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }

    /// Creates `path` and its missing parents with `mode`.
    static func makeDirectories(_ path: String, mode: mode_t = 0o700) throws {
        var st = stat()
        if stat(path, &st) == 0 { return }
        let parent = directoryName(path)
        if parent != path, parent != "/", parent != "." { try makeDirectories(parent, mode: mode) }
        if mkdir(path, mode) != 0, errno != EEXIST { throw ioError("mkdir", path) }
    }

    /// An exclusive `flock` on `path` (created if needed), held until `body` returns. Released by the kernel if the
    /// process dies, so a crash never leaves a stale lock.
    static func withExclusiveLock<T>(_ path: String, _ body: () throws -> T) throws -> T {
        try makeDirectories(directoryName(path))
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ioError("open lock file", path) }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            if errno != EINTR { throw ioError("flock", path) }
        }
        defer { _ = flock(fd, LOCK_UN) }
        return try body()
    }

    /// Replaces `path` atomically: temp file in the same directory, write, fsync, keep mode and owner of the old file,
    /// rename, fsync the directory. Returns the stamp of the new file.
    static func atomicReplace(_ path: String, with bytes: [UInt8], newFileMode: mode_t, syncDirectory: Bool) throws -> FileStamp {
        let directory = directoryName(path)
        try makeDirectories(directory)
        var template = Array((directory + "/." + lastComponent(path) + ".tmp-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw ioError("mkstemp", directory) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let tempPath = cString(template)
        var renamed = false
        defer {
            if !renamed { unlink(tempPath) }
        }
        do {
            defer { close(fd) }
            var old = stat()
            if stat(path, &old) == 0 {
                _ = fchmod(fd, old.st_mode & 0o7777)
                if old.st_uid != geteuid() || old.st_gid != getegid() {
                    _ = fchown(fd, old.st_uid, old.st_gid) // may fail without privilege; the mode still holds
                }
            } else {
                _ = fchmod(fd, newFileMode)
            }
            var written = 0
            while written < bytes.count {
                let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + written, bytes.count - written) }
                if n < 0 {
                    if errno == EINTR { continue }
                    throw ioError("write", tempPath)
                }
                written += n
            }
            guard fsync(fd) == 0 else { throw ioError("fsync", tempPath) }
            var st = stat()
            guard fstat(fd, &st) == 0 else { throw ioError("fstat", tempPath) }
            guard rename(tempPath, path) == 0 else { throw ioError("rename", path) }
            renamed = true
            if syncDirectory {
                let dfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
                if dfd >= 0 {
                    _ = fsync(dfd)
                    close(dfd)
                }
            }
            return FileStamp(st)
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

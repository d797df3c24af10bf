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

/// Thin POSIX helpers for the domain store: each call goes through `SystemCall` (failures as `Errno`, `EINTR`
/// retried), and errors name the call and give the system's text.
enum FileSystem {
    static func ioError(_ call: String, _ path: String, _ error: Errno) -> PreferencesError {
        PreferencesError(.io, "\(call) failed: \(error)", path: path, systemError: error)
    }

    /// The stamp of `path` (following symlinks), or nil when it does not exist.
    static func stamp(_ path: String) throws -> FileStamp? {
        var st = stat()
        switch SystemCall.nothing({ stat(path, &st) }) {
        case .success: return FileStamp(st)
        case .failure(.noSuchFileOrDirectory), .failure(.notDirectory): return nil
        case .failure(let error): throw ioError("stat", path, error)
        }
    }

    /// The whole file and its stamp, or nil when it does not exist. Refuses files larger than `limit`.
    static func readFile(_ path: String, limit: Int) throws -> (bytes: [UInt8], stamp: FileStamp)? {
        let fd: Int32
        switch SystemCall.value({ open(path, O_RDONLY | O_CLOEXEC) }) {
        case .success(let opened): fd = opened
        case .failure(.noSuchFileOrDirectory), .failure(.notDirectory): return nil
        case .failure(let error): throw ioError("open", path, error)
        }
        defer { close(fd) }
        var st = stat()
        if case .failure(let error) = SystemCall.nothing({ fstat(fd, &st) }) { throw ioError("fstat", path, error) }
        let size = Int(st.st_size)
        guard size <= limit else {
            throw PreferencesError(.sizeLimitExceeded, "file is \(size) bytes, more than the read limit of \(limit)", path: path)
        }
        // The bytes the stamp describes: a file that grew since (a non-atomic writer) is read to its old size, one
        // that shrank to its end; the parse decides.
        var bytes: [UInt8]
        do { bytes = try FileInput.readAll(fd, limit: size) } catch { throw ioError("read", path, error) }
        if bytes.count > size { bytes.removeSubrange(size...) }
        return (bytes, FileStamp(st))
    }

    /// Creates `path` and its missing parents with `mode`.
    static func makeDirectories(_ path: String, mode: mode_t = 0o700) throws {
        do { try AtomicFile.makeDirectories(path, mode: mode) } catch { throw ioError(error.operation, error.path, error.systemError) }
    }

    /// An exclusive `flock` on `path` (created if needed, and its directory too when `createsDirectory`), held until
    /// `body` returns. Released by the kernel if the process dies, so a crash never leaves a stale lock.
    static func withExclusiveLock<T>(_ path: String, createsDirectory: Bool = true, _ body: () throws -> T) throws -> T {
        if createsDirectory { try makeDirectories(AtomicFile.directoryName(path)) }
        let fd: Int32
        switch SystemCall.value({ open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }) {
        case .success(let opened): fd = opened
        case .failure(let error): throw ioError("open lock file", path, error)
        }
        defer { close(fd) }
        if case .failure(let error) = SystemCall.nothing({ flock(fd, LOCK_EX) }) { throw ioError("flock", path, error) }
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
            throw ioError(error.operation, path, error.systemError)
        }
    }

    /// Removes `path`; a missing file is not an error.
    static func remove(_ path: String) throws {
        switch SystemCall.nothing({ unlink(path) }) {
        case .success, .failure(.noSuchFileOrDirectory): return
        case .failure(let error): throw ioError("unlink", path, error)
        }
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
        if case .failure(let error) = SystemCall.nothing({ rename(path, target) }) { throw ioError("rename", path, error) }
        return target
    }

    /// Names of the entries of `directory` (without `.`/`..`); empty when it does not exist.
    static func listDirectory(_ directory: String) -> [String] {
        guard case .success(let dir) = SystemCall.pointer({ opendir(directory) }) else { return [] }
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
        return (try? SystemCall.nothing({ stat(path, &st) }).get()) != nil && st.st_mode & S_IFMT == S_IFREG
    }

    /// Whether `path` is a directory (following symlinks).
    static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return (try? SystemCall.nothing({ stat(path, &st) }).get()) != nil && st.st_mode & S_IFMT == S_IFDIR
    }

    /// Text of a NUL-terminated `CChar` buffer.
    static func cString(_ buffer: [CChar]) -> String {
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        let text = String(cString: value)
        return text.isEmpty ? nil : text
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Output paths as command-line tools meet them: symbolic links, FIFOs and devices, and names of open descriptors.
extension AtomicFile {
    /// Writes `bytes` where a command's output file should go:
    /// - through symbolic links: the links stay and their final target is replaced atomically, as dotfile managers
    ///   expect (a loop or an over-long chain is `ELOOP`, and no link is ever renamed over);
    /// - into what `/dev/stdout`, `/dev/fd/N` or `/proc/<pid>/fd/N` names, an open descriptor: directly, appending when
    ///   this process holds that descriptor in append mode (a shell's `>>`) and truncating otherwise (`>`, or
    ///   `/dev/stdin` converted in place), as Apple's `plutil` does with its `O_TRUNC`;
    /// - straight into an existing FIFO, device or socket;
    /// - atomically into anything else.
    public static func writeFollowingLinks(_ path: String, with bytes: [UInt8], options: Options = Options()) throws(FileWriteError) {
        do {
            try writeFollowingLinks(path, options: options) { write in try bytes.withUnsafeBytes { try write($0) } }
        } catch let error as FileWriteError {
            throw error
        } catch {
            preconditionFailure("only the file's own writes can fail here: \(error)")
        }
    }

    /// `writeFollowingLinks(_:with:options:)` with contents made piece by piece (see `replace(_:options:producing:)`):
    /// an error of `produce` is thrown as it is, and a regular file is then left as it was.
    public static func writeFollowingLinks(
        _ path: String, options: Options = Options(), producing produce: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws {
        var st = stat()
        let status = SystemCall.nothing { stat(path, &st) }
        if case .failure(.tooManySymbolicLinkLevels) = status {
            throw FileWriteError(operation: "open", path: path, systemError: .tooManySymbolicLinkLevels)
        }
        let exists = (try? status.get()) != nil
        let kind = st.st_mode & S_IFMT
        var flags = O_WRONLY | O_CLOEXEC
        if exists, let appends = descriptorAppends(path) {
            if kind == S_IFREG { flags |= appends ? O_APPEND : O_TRUNC }
        } else if !exists || kind == S_IFREG || kind == S_IFDIR {
            guard let target = followingLinks(path) else {
                throw FileWriteError(operation: "open", path: path, systemError: .tooManySymbolicLinkLevels)
            }
            try replace(target, options: options, producing: produce)
            return
        }
        let fd: Int32
        switch SystemCall.value({ open(path, flags) }) {
        case .success(let opened): fd = opened
        case .failure(let error): throw FileWriteError(operation: "open", path: path, systemError: error)
        }
        defer { close(fd) }
        try produce { bytes throws(FileWriteError) in try FileOutput.writeAll(bytes, to: fd, path: path) }
    }

    /// Whether `writeFollowingLinks` would replace a file at `path` atomically (a regular file, a directory's name or
    /// nothing yet), rather than write into an open descriptor, FIFO or device: only then may the output be made
    /// while its input, possibly the same file, is still being read.
    public static func replacesAtomically(_ path: String) -> Bool {
        var st = stat()
        guard case .success = SystemCall.nothing({ stat(path, &st) }) else { return true }
        let kind = st.st_mode & S_IFMT
        return descriptorAppends(path) == nil && (kind == S_IFREG || kind == S_IFDIR)
    }

    /// `path` with the symbolic links of its last component followed, where a write should go (a dangling link
    /// leads to where it points, so a write creates the target); `path` itself when the links loop.
    public static func resolvingLinks(_ path: String) -> String {
        followingLinks(path) ?? path
    }

    /// Where the links of `path`'s last component lead, or nil when they loop or go on past 40 (the kernel's limit).
    private static func followingLinks(_ path: String) -> String? {
        var current = path
        for _ in 0...40 {
            guard let next = linkTarget(current) else { return current }
            current = next
        }
        return nil
    }

    /// Where the symbolic link `path` points (relative targets taken from its directory), or nil when `path` is no
    /// link.
    private static func linkTarget(_ path: String) -> String? {
        var st = stat()
        guard lstat(path, &st) == 0, st.st_mode & S_IFMT == S_IFLNK else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink(path, &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        let target = buffer[0..<n].withUnsafeBufferPointer { String(decoding: UnsafeRawBufferPointer($0), as: UTF8.self) }
        return target.hasPrefix("/") ? target : directoryName(path) + "/" + target
    }

    /// When `path`, or a link on the way from it, is an entry of a `/proc/<pid>/fd` directory (where `/dev/stdout`
    /// and `/dev/fd/N` lead; the directory is recognised after its own links are resolved): whether that entry is
    /// one of this process's descriptors open for appending. Nil when `path` names no descriptor.
    private static func descriptorAppends(_ path: String) -> Bool? {
        var current = path
        for _ in 0...40 {
            let directory = realDirectory(current)
            let parts = directory.split(separator: "/")
            // /proc/<pid>/fd or /proc/<pid>/task/<tid>/fd
            if parts.first == "proc", parts.last == "fd", parts.count == 3 || (parts.count == 5 && parts[2] == "task") {
                let own = parts[1] == "\(getpid())"
                guard own, let number = Int32(lastComponent(current)) else { return false }
                let status = fcntl(number, F_GETFL)
                return status >= 0 && status & O_APPEND != 0
            }
            guard let next = linkTarget(current) else { return nil }
            current = next
        }
        return nil
    }

    /// The canonical form of `path`'s directory (its own links, `/proc/self` included, resolved), or the directory
    /// as written when it cannot be resolved.
    private static func realDirectory(_ path: String) -> String {
        let directory = directoryName(path)
        guard let resolved = realpath(directory, nil) else { return directory }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

import CSystem
import PlistKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One entry of a directory stream.
struct DirectoryEntry {
    /// `d_ino`.
    var inode: UInt64
    /// `d_type` (`CSYSTEM_DT_DIR`, …; `CSYSTEM_DT_UNKNOWN` where the filesystem does not say).
    var type: UInt8
    /// The name, without `/`.
    var name: [UInt8]
}

/// Descriptors, whole files and directory streams.
extension Sys {
    /// `openat(2)` with close-on-exec; `mode` (before the umask) applies when `flags` create a file.
    static func openAt(_ directory: Int32, _ path: [UInt8], _ flags: Int32, mode: UInt32 = 0o666) -> Result<Int32, Errno> {
        withCPath(path) { cPath in SystemCall.value { csystem_openat(directory, cPath, flags | CSYSTEM_O_CLOEXEC, mode) } }
    }

    /// `close(2)`, not retried: on Linux the descriptor is released even when the call reports `EINTR`.
    static func close(_ fd: Int32) {
        _ = SystemCall.nothing(retryingInterrupts: false) { Glibc.close(fd) }
    }

    /// The whole file at `path`: at most `limit` bytes of it, the rest ignored (for the kernel's own text files).
    static func readFile(_ path: String, limit: Int) -> Result<[UInt8], Errno> {
        openAt(CSYSTEM_AT_FDCWD, Array(path.utf8), CSYSTEM_O_RDONLY).flatMap { fd in
            defer { close(fd) }
            return Result { () throws(Errno) in Array(try FileInput.readAll(fd, limit: limit).prefix(limit)) }
        }
    }

    /// `fdopendir(3)`: a directory stream that owns `fd` from now on (when it fails, the caller still owns `fd`).
    static func openDirectory(_ fd: Int32) -> Result<UnsafeMutableRawPointer, Errno> {
        SystemCall.pointer { csystem_fdopendir(fd) }
    }

    /// `readdir(3)`: the next entry, or nil at the end.
    static func readDirectory(_ stream: UnsafeMutableRawPointer) -> Result<DirectoryEntry?, Errno> {
        var inode: UInt64 = 0
        var type: UInt8 = 0
        var name: UnsafePointer<CChar>? = nil
        return SystemCall.value { csystem_readdir(stream, &inode, &type, &name) }.map { found in
            guard found == 1, let name else { return nil }
            return DirectoryEntry(inode: inode, type: type, name: Array(UnsafeRawBufferPointer(start: name, count: strlen(name))))
        }
    }

    /// `closedir(3)`, which closes the descriptor the stream owns (not retried, as `close`).
    static func closeDirectory(_ stream: UnsafeMutableRawPointer) {
        _ = SystemCall.nothing(retryingInterrupts: false) { csystem_closedir(stream) }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Writing whole buffers to file descriptors, for the tools and `AtomicFile`: a short write is continued, `EINTR`
/// retried, and any other failure (a full disk, a closed pipe) reported rather than dropped.
public enum FileOutput {
    /// Writes all of `bytes` to `fd`; `path` names the file in the error.
    public static func writeAll(_ bytes: UnsafeRawBufferPointer, to fd: Int32, path: String) throws(FileWriteError) {
        var written = 0
        while written < bytes.count {
            let n = write(fd, bytes.baseAddress! + written, bytes.count - written)
            if n < 0 {
                if errno == EINTR { continue }
                throw FileWriteError(operation: "write", path: path)
            }
            written += n
        }
    }

    /// Writes all of `bytes` to `fd` (see the buffer form).
    public static func writeAll(_ bytes: [UInt8], to fd: Int32, path: String) throws(FileWriteError) {
        let result = bytes.withUnsafeBytes { raw in
            Result { () throws(FileWriteError) in try writeAll(raw, to: fd, path: path) }
        }
        try result.get()
    }

    /// Writes `text` to standard output.
    public static func standardOutput(_ text: String) throws(FileWriteError) {
        try writeAll(Array(text.utf8), to: STDOUT_FILENO, path: "standard output")
    }
}

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
        guard let base = bytes.baseAddress else { return }
        var written = 0
        while written < bytes.count {
            switch SystemCall.value({ write(fd, base + written, bytes.count - written) }) {
            case .success(let count): written += count
            case .failure(let error): throw FileWriteError(operation: "write", path: path, systemError: error)
            }
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

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reading whole file descriptors, for the tools and the libraries: short reads are continued, `EINTR` is retried,
/// and any other failure is reported rather than taken for the end of the file.
public enum FileInput {
    /// Reads `fd` to its end, or until more than `limit` bytes have come. The result then holds `limit + 1` bytes, so a
    /// caller refuses an over-long input (`/dev/zero`, an endless pipe) without reading it all, and tells "exactly
    /// the limit" from "more".
    public static func readAll(_ fd: Int32, limit: Int) throws(Errno) -> [UInt8] {
        let wanted = limit < 0 ? 1 : limit == Int.max ? limit : limit + 1
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while result.count < wanted {
            let room = min(chunk.count, wanted - result.count)
            let count = try chunk.withUnsafeMutableBytes { buffer in
                SystemCall.value { read(fd, buffer.baseAddress, room) }
            }.get()
            if count == 0 { break }
            result.append(contentsOf: chunk[0..<count])
        }
        return result
    }
}

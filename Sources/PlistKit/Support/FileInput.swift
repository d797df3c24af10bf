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
        // Read straight into the result, doubling it when full: a large file costs a few reads and no chunk copies.
        var buffer = [UInt8](repeating: 0, count: min(wanted, 1 << 16))
        var filled = 0
        while filled < wanted {
            if filled == buffer.count {
                buffer.append(contentsOf: repeatElement(0, count: min(buffer.count, wanted - buffer.count)))
            }
            let room = buffer.count - filled
            // `wanted` is at least 1, so the buffer has storage.
            let count = try buffer.withUnsafeMutableBytes { raw in
                SystemCall.value { [filled] in read(fd, raw.baseAddress! + filled, room) }
            }.get()
            if count == 0 { break }
            filled += count
        }
        buffer.removeSubrange(filled...)
        return buffer
    }
}

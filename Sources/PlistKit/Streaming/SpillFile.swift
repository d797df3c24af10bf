#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Where a conversion puts what does not fit its memory bounds (`EventLog`'s records, `EntryRuns`' sorted runs): a
/// temporary file made on first write and unlinked at once, so it lives as long as its descriptor and nothing is left
/// behind whatever happens. Reads and writes are positioned and complete (retried until every byte is moved).
final class SpillFile {
    private let directory: String
    private let prefix: String
    private var descriptor: Int32 = -1

    /// A file to be made in `directory` (`TMPDIR`, else `/tmp`, when nil), named `prefix` and random characters.
    init(directory: String?, prefix: String) {
        self.directory = directory ?? Self.temporaryDirectory
        self.prefix = prefix
    }

    deinit {
        if descriptor >= 0 { _ = close(descriptor) }
    }

    static var temporaryDirectory: String {
        if let t = getenv("TMPDIR"), t.pointee != 0 { return String(cString: t) }
        return "/tmp"
    }

    /// Writes all of `bytes` at `offset`.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        let fd = try opened()
        var done = 0
        while done < bytes.count {
            done += try SystemCall.value { [done] in pwrite(fd, base + done, bytes.count - done, off_t(offset + done)) }.get()
        }
    }

    /// Reads up to `count` bytes from `offset` into `out`; fewer only at the end of the file. Returns how many.
    func read(into out: UnsafeMutableRawPointer, count: Int, at offset: Int) throws -> Int {
        guard descriptor >= 0 else { return 0 }
        var filled = 0
        while filled < count {
            let n = try SystemCall.value { [filled] in pread(descriptor, out + filled, count - filled, off_t(offset + filled)) }.get()
            if n == 0 { break }
            filled += n
        }
        return filled
    }

    /// Empties the file (kept for reuse).
    func removeAll() {
        if descriptor >= 0 { _ = ftruncate(descriptor, 0) }
    }

    private func opened() throws -> Int32 {
        if descriptor >= 0 { return descriptor }
        var template = Array((directory + "/" + prefix + "-XXXXXX").utf8CString)
        descriptor = try template.withUnsafeMutableBufferPointer { p in try SystemCall.value { mkstemp(p.baseAddress!) }.get() }
        // Unlinked at once: the file lives as long as the descriptor.
        _ = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }
        return descriptor
    }
}

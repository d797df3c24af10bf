#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A file's bytes without reading them into memory: a regular file is mapped read-only (`mmap(2)`), so only the pages
/// a reader touches are loaded, and the kernel may drop them again under pressure; anything else (a pipe, a device,
/// `-` for standard input) is read whole, up to `limit` bytes. The bytes stay valid as long as the value lives.
public final class MappedInput: @unchecked Sendable {
    private let base: UnsafeRawPointer?
    /// The number of bytes.
    public let count: Int
    private let mapped: Bool

    /// The bytes of `path` (`-`: standard input). More than `limit` bytes is an `EFBIG` error.
    public convenience init(path: String, limit: Int = PlistReadOptions().maxInputSize) throws(Errno) {
        if path == "-" {
            try self.init(readingAll: STDIN_FILENO, limit: limit)
            return
        }
        let fd = try SystemCall.value { open(path, O_RDONLY | O_CLOEXEC) }.get()
        defer { _ = close(fd) }
        try self.init(descriptor: fd, limit: limit)
    }

    /// The bytes of open descriptor `fd` from its start: mapped when it is a regular file, read otherwise. More than
    /// `limit` bytes is an `EFBIG` error, a directory `EISDIR`. The descriptor may be closed afterwards.
    public convenience init(descriptor fd: Int32, limit: Int) throws(Errno) {
        var info = stat()
        try SystemCall.nothing { fstat(fd, &info) }.get()
        if info.st_mode & S_IFMT == S_IFDIR { throw Errno(EISDIR) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            try self.init(readingAll: fd, limit: limit)
            return
        }
        let size = Int(info.st_size)
        guard size <= limit else { throw Errno(EFBIG) }
        guard size > 0 else {
            self.init(base: nil, count: 0, mapped: false)
            return
        }
        let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0)
        guard let address, address != MAP_FAILED else { throw Errno.current }
        self.init(base: UnsafeRawPointer(address), count: size, mapped: true)
    }

    /// The rest of descriptor `fd`, read into memory of its own.
    private convenience init(readingAll fd: Int32, limit: Int) throws(Errno) {
        let bytes = try FileInput.readAll(fd, limit: limit)
        guard bytes.count <= limit else { throw Errno(EFBIG) }
        let copy = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        bytes.withUnsafeBytes { if let b = $0.baseAddress { copy.copyMemory(from: b, byteCount: $0.count) } }
        self.init(base: UnsafeRawPointer(copy), count: bytes.count, mapped: false)
    }

    /// A copy of `bytes` in memory of its own.
    public convenience init(copying bytes: UnsafeRawBufferPointer) {
        let copy = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        if let b = bytes.baseAddress { copy.copyMemory(from: b, byteCount: bytes.count) }
        self.init(base: UnsafeRawPointer(copy), count: bytes.count, mapped: false)
    }

    private init(base: UnsafeRawPointer?, count: Int, mapped: Bool) {
        self.base = base
        self.count = count
        self.mapped = mapped
    }

    deinit {
        guard let base else { return }
        if mapped {
            _ = munmap(UnsafeMutableRawPointer(mutating: base), count)
        } else {
            base.deallocate()
        }
    }

    /// The pages a sequential reader may give back as it passes them: only for a file mapping (memory of its own
    /// would be zeroed by `MADV_DONTNEED`), else nil.
    func releasablePages() -> InputPages? {
        guard mapped, let base else { return nil }
        return InputPages(mapping: base, count: count)
    }

    /// Calls `body` with the bytes.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try withExtendedLifetime(self) { try body(UnsafeRawBufferPointer(start: base, count: count)) }
    }
}

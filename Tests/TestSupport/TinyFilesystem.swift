import Foundation

/// A real, small tmpfs mounted in a fresh directory, for fault injection: `fill()` uses up every free block, so the
/// next write fails with the kernel's own `ENOSPC`. Needs root (CI runs as root); `isAvailable` says whether mounting
/// works here, and tests gate on it so they skip, with that reason, where it does not.
public final class TinyFilesystem: @unchecked Sendable {
    /// The mount point.
    public let path: String
    private var mounted = false

    /// Whether this process can mount a tmpfs (root with CAP_SYS_ADMIN, not in a locked-down container).
    public static let isAvailable: Bool = {
        guard geteuid() == 0 else { return false }
        return (try? TinyFilesystem()) != nil
    }()

    /// Mounts a tmpfs of `size` bytes (rounded up to pages by the kernel).
    public init(size: Int = 256 * 1024) throws {
        path = FileManager.default.temporaryDirectory.path + "/tinyfs-\(getpid())-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard let mount = ExternalTool.find("mount", extraDirectories: ["/usr/sbin", "/sbin", "/bin"]),
              let r = try? ExternalTool.run(mount, ["-t", "tmpfs", "-o", "size=\(size),mode=0755", "tinyfs", path]),
              r.status == 0 else {
            try? FileManager.default.removeItem(atPath: path)
            throw CocoaError(.featureUnsupported)
        }
        mounted = true
    }

    deinit {
        if mounted, let umount = ExternalTool.find("umount", extraDirectories: ["/usr/sbin", "/sbin", "/bin"]) {
            _ = try? ExternalTool.run(umount, ["-l", path])
        }
        try? FileManager.default.removeItem(atPath: path)
    }

    /// `path/relative`.
    public func p(_ relative: String) -> String { path + "/" + relative }

    /// Writes a filler file until the kernel answers `ENOSPC`; returns how many bytes it took.
    @discardableResult
    public func fill() -> Int {
        let fd = open(p(".filler"), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        let block = [UInt8](repeating: 0xA5, count: 4096)
        var total = 0
        while true {
            let n = block.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n > 0 { total += n; continue }
            if n < 0, errno == EINTR { continue }
            break
        }
        // A partial last block may leave a few bytes; take them one at a time.
        while true {
            let n = block.withUnsafeBytes { write(fd, $0.baseAddress, 1) }
            if n <= 0 { break }
            total += n
        }
        return total
    }

    /// Remounts the filesystem read-only: every write then fails with the kernel's `EROFS`.
    public func makeReadOnly() throws {
        guard let mount = ExternalTool.find("mount", extraDirectories: ["/usr/sbin", "/sbin", "/bin"]),
              let r = try? ExternalTool.run(mount, ["-o", "remount,ro", path]), r.status == 0 else {
            throw CocoaError(.fileWriteVolumeReadOnly)
        }
    }

    /// Remounts the filesystem read-write again.
    public func makeWritable() throws {
        guard let mount = ExternalTool.find("mount", extraDirectories: ["/usr/sbin", "/sbin", "/bin"]),
              let r = try? ExternalTool.run(mount, ["-o", "remount,rw", path]), r.status == 0 else {
            throw CocoaError(.fileWriteVolumeReadOnly)
        }
    }

    /// Frees the space `fill()` took.
    public func release() { unlink(p(".filler")) }

    /// The names in `relative` (default: the root), the filler excepted: temporary files a writer left behind show up
    /// here.
    public func entries(_ relative: String = "") -> [String] {
        let dir = relative.isEmpty ? path : p(relative)
        return ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0 != ".filler" }.sorted()
    }
}

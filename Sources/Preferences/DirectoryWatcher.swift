import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Watches directories with inotify and reports `.plist` files that were replaced, written, created or deleted —
/// how changes made by other processes reach observers. When the kernel's event queue overflowed (more events than
/// `fs.inotify.max_queued_events` before they were read), events were lost: that is reported as `nil`, "anything
/// may have changed".
final class DirectoryWatcher: Sendable {
    private let fd: Int32
    private let table = WatchTable()
    // Dispatch sources are thread-safe; the type is just not annotated Sendable.
    nonisolated(unsafe) private let source: any DispatchSourceRead
    private let onChange: @Sendable (String?) -> Void

    /// The events watched for: a file renamed into place, written and closed, created or removed.
    static let mask = UInt32(IN_MOVED_TO | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM)

    /// nil when inotify is unavailable (then only in-process changes and `synchronize()` refresh observers).
    init?(onChange: @escaping @Sendable (String?) -> Void) {
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard fd >= 0 else { return nil }
        self.fd = fd
        self.onChange = onChange
        let queue = DispatchQueue(label: "preferences.inotify")
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        let table = self.table
        source.setEventHandler { [onChange] in
            DirectoryWatcher.drain(fd: fd, table: table, onChange: onChange)
        }
        source.setCancelHandler { close(fd) }
        source.resume()
    }

    deinit {
        source.cancel() // the cancel handler closes the descriptor once no event handler runs
    }

    /// Starts watching `directory` (ignored if it does not exist or is already watched).
    func watch(_ directory: String) {
        let wd = inotify_add_watch(fd, directory, Self.mask)
        guard wd >= 0 else { return }
        table.directories.withLock { $0[wd] = directory }
    }

    /// Reads every queued event from `fd` and reports the `.plist` paths (each once per read), or nil after an
    /// overflow.
    static func drain(fd: Int32, table: WatchTable, onChange: @Sendable (String?) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { return }
            var changed: [String] = []
            var overflowed = false
            buffer.withUnsafeBytes { raw in
                var offset = 0
                let header = MemoryLayout<inotify_event>.size
                while offset + header <= n {
                    let wd = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                    let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                    let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    let nameBytes = raw[(offset + header)..<min(n, offset + header + length)].prefix { $0 != 0 }
                    let name = String(decoding: nameBytes, as: UTF8.self)
                    offset += header + length
                    if mask & UInt32(IN_Q_OVERFLOW) != 0 { overflowed = true }
                    guard name.hasSuffix(".plist"), let dir = table.directories.withLock({ $0[wd] }) else { continue }
                    let path = dir + "/" + name
                    if !changed.contains(path) { changed.append(path) }
                }
            }
            for path in changed { onChange(path) }
            if overflowed { onChange(nil) }
        }
    }
}

/// Watch descriptor → directory.
final class WatchTable: Sendable {
    let directories = Mutex<[Int32: String]>([:])
}

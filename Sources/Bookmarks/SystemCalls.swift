import CSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Small Swift helpers over `CSystem` and libc: paths as raw bytes, errors as errno values.
enum Sys {
    /// Calls `body` with a NUL-terminated copy of `path` (a path is bytes on Linux, not necessarily UTF-8).
    static func withCPath<R>(_ path: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
        var buffer = path
        buffer.append(0)
        return buffer.withUnsafeBufferPointer { p in
            p.baseAddress!.withMemoryRebound(to: CChar.self, capacity: p.count) { body($0) }
        }
    }

    static var errno: Int32 { Glibc.errno }

    /// `statx` without following a final symlink; returns the errno on failure.
    static func statx(_ dirfd: Int32, _ path: [UInt8], emptyPath: Bool = false) -> Result<csystem_statx_t, Errno> {
        var sx = csystem_statx_t()
        var flags = CSYSTEM_AT_SYMLINK_NOFOLLOW
        if emptyPath { flags |= CSYSTEM_AT_EMPTY_PATH }
        let rc = withCPath(path) { csystem_statx(dirfd, $0, flags, CSYSTEM_STATX_BASIC_STATS | CSYSTEM_STATX_BTIME | CSYSTEM_STATX_MNT_ID, &sx) }
        return rc == 0 ? .success(sx) : .failure(Errno(Glibc.errno))
    }

    /// `name_to_handle_at` without following a final symlink, falling back to `AT_HANDLE_FID` where the
    /// filesystem cannot export decodable handles (overlayfs), and to nil where handles are unsupported.
    static func handle(_ dirfd: Int32, _ path: [UInt8], emptyPath: Bool = false) -> FileHandleID? {
        var bytes = [UInt8](repeating: 0, count: Int(CSYSTEM_MAX_HANDLE_SZ))
        var length: UInt32 = 0
        var type: Int32 = 0
        var mount: Int32 = 0
        let base = emptyPath ? CSYSTEM_AT_EMPTY_PATH : 0
        for fid in [false, true] {
            let flags = base | (fid ? CSYSTEM_AT_HANDLE_FID : 0)
            let rc = withCPath(path) { p in
                bytes.withUnsafeMutableBufferPointer { b in
                    csystem_name_to_handle_at(dirfd, p, flags, b.baseAddress!, UInt32(b.count), &length, &type, &mount)
                }
            }
            if rc == 0 { return FileHandleID(type: type, bytes: Array(bytes[0..<Int(length)]), isFID: fid) }
            let e = Glibc.errno
            // EOPNOTSUPP: no export ops, try FID; EINVAL on the FID try: kernel without AT_HANDLE_FID.
            if e != EOPNOTSUPP { return nil }
        }
        return nil
    }

    /// `openat` with close-on-exec; `mode` (before umask) applies when `flags` create a file.
    static func openat(_ dirfd: Int32, _ path: [UInt8], _ flags: Int32, mode: UInt32 = 0o666) -> Int32 {
        withCPath(path) { csystem_openat(dirfd, $0, flags | CSYSTEM_O_CLOEXEC, mode) }
    }

    static func close(_ fd: Int32) { _ = Glibc.close(fd) }

    /// Monotonic clock in nanoseconds.
    static func monotonicNanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    static func readFile(_ path: String, limit: Int) -> [UInt8]? {
        let fd = openat(CSYSTEM_AT_FDCWD, Array(path.utf8), CSYSTEM_O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while out.count < limit {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 { if Glibc.errno == EINTR { continue }; return nil }
            if n == 0 { break }
            out += chunk[0..<n]
        }
        return out
    }

    /// True if the effective capability set holds CAP_DAC_READ_SEARCH (bit 2).
    static func hasDacReadSearch() -> Bool {
        guard let status = readFile("/proc/self/status", limit: 1 << 16) else { return false }
        for line in String(decoding: status, as: UTF8.self).split(separator: "\n") where line.hasPrefix("CapEff:") {
            let hex = line.dropFirst("CapEff:".count).trimmingCharacters(in: " \t")
            if let v = UInt64(hex, radix: 16) { return v & (1 << 2) != 0 }
        }
        return false
    }
}

/// An errno value.
struct Errno: Error, Equatable {
    var code: Int32
    init(_ code: Int32) { self.code = code }
}

extension Substring {
    func trimmingCharacters(in set: String) -> String {
        var s = self[...]
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}

/// Path bytes helpers.
enum PathBytes {
    static func join(_ components: [[UInt8]]) -> [UInt8] {
        if components.isEmpty { return [0x2F] }
        var out: [UInt8] = []
        for c in components { out.append(0x2F); out += c }
        return out
    }
    static func split(_ path: [UInt8]) -> [[UInt8]] {
        path.split(separator: 0x2F, omittingEmptySubsequences: true).map(Array.init)
    }
    static func string(_ path: [UInt8]) -> String { String(decoding: path, as: UTF8.self) }
}

extension Sys {
    /// Wall clock in nanoseconds since 1970.
    static func realtimeNanoseconds() -> Int64 {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }
}

import CSystem

/// One line of `/proc/self/mountinfo`.
public struct MountEntry: Sendable, Equatable {
    public var mountID: UInt64
    public var parentID: UInt64
    /// Root of the mount inside its filesystem (not `/` for bind mounts and btrfs subvolumes).
    public var root: String
    public var mountPoint: String
    public var fsType: String
    public var source: String

    /// Parses mountinfo text; malformed lines are skipped.
    static func parse(_ text: String) -> [MountEntry] {
        parse(bytes: Array(text.utf8), only: nil)
    }

    /// Parses mountinfo bytes; with `only`, just the line of that mount id (no work on the others).
    static func parse(bytes: [UInt8], only: UInt64?) -> [MountEntry] {
        var out: [MountEntry] = []
        var lineStart = 0
        while lineStart < bytes.count {
            var lineEnd = lineStart
            while lineEnd < bytes.count, bytes[lineEnd] != 0x0A { lineEnd += 1 }
            defer { lineStart = lineEnd + 1 }
            if let only {
                // Cheap check of the leading id before splitting the line.
                var id: UInt64 = 0
                var i = lineStart
                while i < lineEnd, bytes[i] >= 0x30, bytes[i] <= 0x39 { id = id &* 10 &+ UInt64(bytes[i] - 0x30); i += 1 }
                if id != only { continue }
            }
            let f = bytes[lineStart..<lineEnd].split(separator: 0x20)
            guard f.count >= 10, let dash = f.firstIndex(where: { $0.count == 1 && $0.first == 0x2D }), dash >= 6, dash + 2 < f.count,
                  let id = UInt64(String(decoding: f[0], as: UTF8.self)), let parent = UInt64(String(decoding: f[1], as: UTF8.self)) else { continue }
            out.append(MountEntry(mountID: id, parentID: parent, root: unescape(f[3]), mountPoint: unescape(f[4]),
                                  fsType: String(decoding: f[dash + 1], as: UTF8.self), source: unescape(f[dash + 2])))
        }
        return out
    }

    /// mountinfo escapes space, tab, newline and backslash as `\ooo`.
    static func unescape(_ u: ArraySlice<UInt8>) -> String {
        guard u.contains(0x5C) else { return String(decoding: u, as: UTF8.self) }
        var bytes: [UInt8] = []
        var i = u.startIndex
        while i < u.endIndex {
            if u[i] == 0x5C, i + 3 < u.endIndex, let v = UInt8(String(decoding: u[(i + 1)...(i + 3)], as: UTF8.self), radix: 8) {
                bytes.append(v)
                i += 4
            } else {
                bytes.append(u[i])
                i += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The mount with this id, reading only its line of the table.
    static func entry(mountID: UInt64) -> MountEntry? {
        guard case .success(let bytes) = Sys.readFile("/proc/self/mountinfo", limit: 8 << 20) else { return nil }
        return parse(bytes: bytes, only: mountID).last
    }

    /// The current mount table.
    static func current() -> [MountEntry] {
        guard case .success(let bytes) = Sys.readFile("/proc/self/mountinfo", limit: 8 << 20) else { return [] }
        return parse(bytes: bytes, only: nil)
    }
}

/// What a bookmark remembers about the volume (mount) holding its target, and how to recognise it again.
public struct VolumeRecord: Sendable, Equatable {
    public var mountPoint: String
    /// Filesystem UUID from `FS_IOC_GETFSUUID` (btrfs: `BTRFS_IOC_FS_INFO`), upper-case 8-4-4-4-12, when the
    /// filesystem reports a non-zero one.
    public var uuid: String?
    /// `statfs` `f_fsid` (8 bytes), zero on filesystems that do not set it.
    public var fsid: [UInt8]
    public var fsType: String
    public var source: String
    public var root: String
    public var size: Int64?

    public init(mountPoint: String, uuid: String?, fsid: [UInt8], fsType: String, source: String, root: String, size: Int64? = nil) {
        self.mountPoint = mountPoint
        self.uuid = uuid
        self.fsid = fsid
        self.fsType = fsType
        self.source = source
        self.root = root
        self.size = size
    }

    /// Reads what identifies the mount `entry` now.
    static func probe(_ entry: MountEntry) -> VolumeRecord {
        var record = VolumeRecord(mountPoint: entry.mountPoint, uuid: nil, fsid: [], fsType: entry.fsType,
                                  source: entry.source, root: entry.root)
        let mountPoint = Sys.openAt(CSYSTEM_AT_FDCWD, Array(entry.mountPoint.utf8), CSYSTEM_O_RDONLY | CSYSTEM_O_DIRECTORY)
        if case .success(let directory) = mountPoint {
            defer { Sys.close(directory) }
            if case .success(let uuid) = Sys.fileSystemUUID(directory), !uuid.isEmpty, uuid.contains(where: { $0 != 0 }) {
                record.uuid = formatUUID(uuid)
            } else if entry.fsType == "btrfs", case .success(let uuid) = Sys.btrfsFileSystemID(directory),
                      uuid.contains(where: { $0 != 0 }) {
                record.uuid = formatUUID(uuid)
            }
            if case .success(let status) = Sys.fileSystemStatus(directory) {
                record.fsid = status.fsid
                let (size, overflow) = status.blockSize.multipliedReportingOverflow(by: status.blocks)
                if !overflow, size <= UInt64(Int64.max) { record.size = Int64(size) }
            }
        }
        // statfs needs no read permission on the mount point, unlike the ioctl above.
        if record.fsid.isEmpty, let fsid = fsid(of: Array(entry.mountPoint.utf8)) { record.fsid = fsid }
        return record
    }

    /// `f_fsid` of the filesystem holding `path` (8 bytes), or nil.
    static func fsid(of path: [UInt8]) -> [UInt8]? {
        try? Sys.fileSystemStatus(path).get().fsid
    }

    static func formatUUID(_ b: [UInt8]) -> String {
        let hex = b.map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }
        guard hex.count == 16 else { return hex.joined() }
        return [hex[0..<4], hex[4..<6], hex[6..<8], hex[8..<10], hex[10..<16]].map { $0.joined() }.joined(separator: "-")
    }

    /// Is `other` (probed now) the same filesystem as `self` (stored)? UUID first, then fsid + type, then source + type.
    func sameFilesystem(as other: VolumeRecord) -> Bool {
        guard fsType == other.fsType else { return false }
        if let a = uuid, let b = other.uuid { return a == b }
        // One side without a UUID (e.g. the mount point was not readable for the ioctl): fall back to f_fsid.
        let zero = [UInt8](repeating: 0, count: 8)
        if fsid.count == 8, other.fsid.count == 8, fsid != zero { return fsid == other.fsid }
        return source == other.source
    }

    /// Finds the mount entry for a mount id, or the entry with the longest mount-point prefix of `path`.
    static func mount(for mountID: UInt64?, path: String, in table: [MountEntry]) -> MountEntry? {
        if let id = mountID, let e = table.last(where: { $0.mountID == id }) { return e }
        var best: MountEntry? = nil
        for e in table where path == e.mountPoint || path.hasPrefix(e.mountPoint == "/" ? "/" : e.mountPoint + "/") {
            if e.mountPoint.utf8.count >= (best?.mountPoint.utf8.count ?? 0) { best = e }
        }
        return best
    }
}

extension MountEntry {
    /// The mount holding `path` via `statmount(2)` (Linux 6.8+), without reading the whole mount table;
    /// nil when the kernel lacks it (ENOSYS/EINVAL) or the answer is incomplete, so callers fall back to mountinfo.
    static func viaStatmount(path: [UInt8]) -> MountEntry? {
        guard case .success(let status) = Sys.statx(CSYSTEM_AT_FDCWD, path, mask: CSYSTEM_STATX_MNT_ID_UNIQUE),
              status.mask & CSYSTEM_STATX_MNT_ID_UNIQUE != 0 else { return nil }
        // STATMOUNT_MNT_BASIC | MNT_ROOT | MNT_POINT | FS_TYPE | SB_SOURCE
        let mask: UInt64 = 0x2 | 0x8 | 0x10 | 0x20 | 0x200
        guard case .success(let buffer) = Sys.statmount(status.mnt_id, mask: mask, capacity: 4096) else { return nil }
        func u32(_ at: Int) -> Int { Int(buffer[at]) | Int(buffer[at + 1]) << 8 | Int(buffer[at + 2]) << 16 | Int(buffer[at + 3]) << 24 }
        func u64(_ at: Int) -> UInt64 { (0..<8).reduce(UInt64(0)) { $0 | UInt64(buffer[at + $1]) << (8 * UInt64($1)) } }
        let size = min(u32(0), buffer.count)
        let got = u64(8)
        guard got & mask == mask else { return nil }
        // struct statmount: strings start at byte 512; the fields hold offsets into that area.
        let strings = 512
        func string(_ field: Int) -> String? {
            let start = strings + u32(field)
            guard start < size else { return nil }
            var end = start
            while end < size, buffer[end] != 0 { end += 1 }
            return String(decoding: buffer[start..<end], as: UTF8.self)
        }
        guard let root = string(104), let point = string(108), let type = string(36), let source = string(124) else { return nil }
        return MountEntry(mountID: UInt64(u32(56)), parentID: UInt64(u32(60)), root: root, mountPoint: point, fsType: type, source: source)
    }
}

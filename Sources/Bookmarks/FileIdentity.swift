import CSystem
import PlistKit

/// A kernel file handle (`name_to_handle_at`): the identity a filesystem itself uses, including the
/// inode generation on ext4/xfs/btrfs/tmpfs, so a reused inode number does not compare equal.
public struct FileHandleID: Sendable, Equatable, Hashable {
    public var type: Int32
    public var bytes: [UInt8]
    /// True if it came from `AT_HANDLE_FID` (comparable, but not decodable by `open_by_handle_at`).
    public var isFID: Bool
    public init(type: Int32, bytes: [UInt8], isFID: Bool) {
        self.type = type
        self.bytes = bytes
        self.isFID = isFID
    }
}

/// The kind of file system object. Apple's resource flags (key 0x1010) have bits for the first three only; the
/// special kinds are told apart by the Linux type key, so a FIFO replaced by a socket is not "the same type".
public enum FileKind: Sendable, Equatable {
    case regular
    case directory
    case symlink
    case fifo
    case socket
    case characterDevice
    case blockDevice
    /// A special file of unknown kind (a foreign blob, or one written before the type was recorded).
    case other

    init(mode: UInt32) {
        switch mode & 0o170000 {
        case 0o100000: self = .regular
        case 0o040000: self = .directory
        case 0o120000: self = .symlink
        case 0o010000: self = .fifo
        case 0o140000: self = .socket
        case 0o020000: self = .characterDevice
        case 0o060000: self = .blockDevice
        default: self = .other
        }
    }

    /// Apple's resource-flag bits: 1 regular, 2 directory, 4 symbolic link, none for special files.
    public var resourceFlags: UInt64 {
        switch self {
        case .regular: return 1
        case .directory: return 2
        case .symlink: return 4
        default: return 0
        }
    }

    /// The `S_IFMT` type bits (shifted down 12) recorded for special files, or nil for the kinds the flags carry.
    var specialTypeCode: Int32? {
        switch self {
        case .fifo: return 0o01
        case .characterDevice: return 0o02
        case .blockDevice: return 0o06
        case .socket: return 0o14
        default: return nil
        }
    }

    /// Whether an object of kind `self` can be the one recorded as `stored`: the same kind, or any special kind when
    /// the record did not say which.
    public func isSameType(as stored: FileKind) -> Bool {
        if self == stored { return true }
        return stored == .other && resourceFlags == 0
    }
}

/// How sure a resolution is that it found the bookmarked object.
public enum IdentityConfidence: String, Sendable, Equatable, Comparable {
    /// Inode number and file type only (no handle, no birth time).
    case weak
    /// Inode number, file type and birth time, without a handle.
    case medium
    /// File handle bytes equal.
    case strong

    public static func < (a: Self, b: Self) -> Bool {
        func rank(_ c: Self) -> Int { c == .weak ? 0 : c == .medium ? 1 : 2 }
        return rank(a) < rank(b)
    }
}

/// What identifies a file on Linux: handle first, then inode + type + birth time. `st_dev` is a hint only.
public struct FileIdentity: Sendable, Equatable {
    public var inode: UInt64
    public var kind: FileKind
    /// Birth time in nanoseconds since 1970, when `statx` reports it.
    public var birthTimeNanoseconds: Int64?
    public var handle: FileHandleID?
    /// `st_dev` at the time it was read (hint only: it changes with loop devices and btrfs subvolume order).
    public var device: UInt64
    /// Mount id (`STATX_MNT_ID`), valid within one boot only.
    public var mountID: UInt64?

    public init(inode: UInt64, kind: FileKind, birthTimeNanoseconds: Int64?, handle: FileHandleID?, device: UInt64 = 0, mountID: UInt64? = nil) {
        self.inode = inode
        self.kind = kind
        self.birthTimeNanoseconds = birthTimeNanoseconds
        self.handle = handle
        self.device = device
        self.mountID = mountID
    }

    init(statx status: csystem_statx_t, handle: FileHandleID?) {
        inode = status.ino
        kind = FileKind(mode: status.mode)
        if status.mask & CSYSTEM_STATX_BTIME != 0 {
            birthTimeNanoseconds = status.btime_sec &* 1_000_000_000 &+ Int64(status.btime_nsec)
        }
        self.handle = handle
        device = UInt64(status.dev_major) << 32 | UInt64(status.dev_minor)
        mountID = status.mask & CSYSTEM_STATX_MNT_ID != 0 ? status.mnt_id : nil
    }

    /// Reads the identity of `path` (relative to `directory`) without following a final symlink.
    static func read(_ directory: Int32, _ path: [UInt8], withHandle: Bool = true) -> Result<FileIdentity, Errno> {
        Sys.statx(directory, path).map { status in
            FileIdentity(statx: status, handle: withHandle ? handle(directory, path) : nil)
        }
    }

    /// The handle of `path`: a decodable one, else (where the filesystem cannot export those, as overlayfs) a file
    /// identifier (`AT_HANDLE_FID`), else nil where handles are unsupported.
    static func handle(_ directory: Int32, _ path: [UInt8], emptyPath: Bool = false) -> FileHandleID? {
        for fileIdentifier in [false, true] {
            switch Sys.nameToHandle(directory, path, emptyPath: emptyPath, fileIdentifier: fileIdentifier) {
            case .success(let handle): return handle
            // EOPNOTSUPP: no export operations, so try a file identifier (a kernel without AT_HANDLE_FID then
            // answers EINVAL: no handle).
            case .failure(.notSupported): continue
            case .failure: return nil
            }
        }
        return nil
    }

    /// Reads the identity of the object at an absolute path (final symlink not followed).
    public static func read(path: String) throws(BookmarkError) -> FileIdentity {
        switch read(CSYSTEM_AT_FDCWD, Array(path.utf8)) {
        case .success(let id): return id
        case .failure(let error): throw .systemCall("statx", error, path: path)
        }
    }

    /// Reads the identity of an open descriptor.
    public static func read(descriptor fd: Int32) throws(BookmarkError) -> FileIdentity {
        switch Sys.statx(fd, [], emptyPath: true) {
        case .failure(let error): throw .systemCall("statx", error, path: "fd \(fd)")
        case .success(let status): return FileIdentity(statx: status, handle: handle(fd, [], emptyPath: true))
        }
    }

    /// Does `self` (what is on disk now) match `stored`? Handle bytes decide when both sides have comparable
    /// handles; otherwise inode + type (+ birth time when both have one). Returns nil for "different object".
    public func matches(_ stored: FileIdentity) -> IdentityConfidence? {
        guard kind.isSameType(as: stored.kind) else { return nil }
        if let a = handle, let b = stored.handle, a.isFID == b.isFID {
            return a == b ? .strong : nil
        }
        guard inode == stored.inode else { return nil }
        if let a = birthTimeNanoseconds, let b = stored.birthTimeNanoseconds {
            return a == b ? .medium : nil
        }
        return .weak
    }
}

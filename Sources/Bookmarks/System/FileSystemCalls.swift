import CSystem
import PlistKit

/// What `statfs(2)` says about the filesystem holding a file.
struct FileSystemStatus {
    /// `f_type`, the filesystem's magic number.
    var type: Int64
    /// `f_fsid`, its two words in memory order, little-endian (8 bytes).
    var fsid: [UInt8]
    /// `f_bsize`.
    var blockSize: UInt64
    /// `f_blocks`.
    var blocks: UInt64
}

/// Filesystems and mounts: `statfs(2)`, the filesystem-UUID ioctls, `statmount(2)`.
extension Sys {
    /// `fstatfs` on an open descriptor.
    static func fileSystemStatus(_ fd: Int32) -> Result<FileSystemStatus, Errno> {
        fileSystemStatus { csystem_fstatfs(fd, $0, $1, $2, $3, $4) }
    }

    /// `statfs` on a path (needs no read permission on it).
    static func fileSystemStatus(_ path: [UInt8]) -> Result<FileSystemStatus, Errno> {
        withCPath(path) { cPath in fileSystemStatus { csystem_statfs(cPath, $0, $1, $2, $3, $4) } }
    }

    private static func fileSystemStatus(
        _ call: (UnsafeMutablePointer<Int64>, UnsafeMutablePointer<Int32>, UnsafeMutablePointer<Int32>,
                 UnsafeMutablePointer<UInt64>, UnsafeMutablePointer<UInt64>) -> Int32
    ) -> Result<FileSystemStatus, Errno> {
        var type: Int64 = 0, fsidLow: Int32 = 0, fsidHigh: Int32 = 0, blockSize: UInt64 = 0, blocks: UInt64 = 0
        return SystemCall.nothing { call(&type, &fsidLow, &fsidHigh, &blockSize, &blocks) }.map {
            let fsid = BookWriter.le(UInt64(UInt32(bitPattern: fsidLow)), 4) + BookWriter.le(UInt64(UInt32(bitPattern: fsidHigh)), 4)
            return FileSystemStatus(type: type, fsid: fsid, blockSize: blockSize, blocks: blocks)
        }
    }

    /// `ioctl(FS_IOC_GETFSUUID)`: the filesystem's UUID bytes (up to 16).
    static func fileSystemUUID(_ fd: Int32) -> Result<[UInt8], Errno> {
        var uuid = [UInt8](repeating: 0, count: 16)
        var length: UInt8 = 0
        return SystemCall.nothing { csystem_get_fs_uuid(fd, &uuid, &length) }.map { Array(uuid[0..<Int(length)]) }
    }

    /// `ioctl(BTRFS_IOC_FS_INFO)`: the 16-byte fsid of a btrfs filesystem (what `blkid` shows as its UUID).
    static func btrfsFileSystemID(_ fd: Int32) -> Result<[UInt8], Errno> {
        var uuid = [UInt8](repeating: 0, count: 16)
        return SystemCall.nothing { csystem_get_btrfs_fsid(fd, &uuid) }.map { uuid }
    }

    /// `statmount(2)` (Linux 6.8+) for a unique mount id: the `struct statmount` bytes (`ENOSYS` on older kernels).
    static func statmount(_ uniqueMountID: UInt64, mask: UInt64, capacity: Int) -> Result<[UInt8], Errno> {
        var buffer = [UInt8](repeating: 0, count: capacity)
        let call = buffer.withUnsafeMutableBytes { raw in
            SystemCall.nothing { csystem_statmount(uniqueMountID, mask, raw.baseAddress, raw.count) }
        }
        return call.map { buffer }
    }
}

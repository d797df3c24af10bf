import CSystem
import PlistKit

/// What identifies a file: `statx(2)`, `name_to_handle_at(2)`, `open_by_handle_at(2)`.
extension Sys {
    /// `statx` without following a final symbolic link; `emptyPath` describes `directory` itself (`AT_EMPTY_PATH`).
    static func statx(
        _ directory: Int32, _ path: [UInt8], emptyPath: Bool = false,
        mask: UInt32 = CSYSTEM_STATX_BASIC_STATS | CSYSTEM_STATX_BTIME | CSYSTEM_STATX_MNT_ID
    ) -> Result<csystem_statx_t, Errno> {
        var status = csystem_statx_t()
        var flags = CSYSTEM_AT_SYMLINK_NOFOLLOW
        if emptyPath { flags |= CSYSTEM_AT_EMPTY_PATH }
        let call = withCPath(path) { cPath in SystemCall.nothing { csystem_statx(directory, cPath, flags, mask, &status) } }
        return call.map { status }
    }

    /// `name_to_handle_at` without following a final symbolic link; `fileIdentifier` asks for `AT_HANDLE_FID` (a
    /// handle that compares but cannot be opened, which overlayfs gives where it cannot export decodable ones).
    static func nameToHandle(
        _ directory: Int32, _ path: [UInt8], emptyPath: Bool = false, fileIdentifier: Bool = false
    ) -> Result<FileHandleID, Errno> {
        var bytes = [UInt8](repeating: 0, count: Int(CSYSTEM_MAX_HANDLE_SZ))
        var length: UInt32 = 0
        var type: Int32 = 0
        var mountID: Int32 = 0
        let flags = (emptyPath ? CSYSTEM_AT_EMPTY_PATH : 0) | (fileIdentifier ? CSYSTEM_AT_HANDLE_FID : 0)
        let call = withCPath(path) { cPath in
            bytes.withUnsafeMutableBufferPointer { buffer in
                SystemCall.nothing {
                    // The buffer has CSYSTEM_MAX_HANDLE_SZ bytes, so it has storage.
                    csystem_name_to_handle_at(directory, cPath, flags, buffer.baseAddress!, UInt32(buffer.count), &length, &type, &mountID)
                }
            }
        }
        return call.map { FileHandleID(type: type, bytes: Array(bytes[0..<Int(length)]), isFID: fileIdentifier) }
    }

    /// `open_by_handle_at` on the filesystem of `mountDescriptor`.
    static func openByHandle(_ mountDescriptor: Int32, _ handle: FileHandleID, _ flags: Int32) -> Result<Int32, Errno> {
        handle.bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return .failure(.invalidArgument) }
            return SystemCall.value {
                csystem_open_by_handle_at(mountDescriptor, base, UInt32(buffer.count), handle.type, flags | CSYSTEM_O_CLOEXEC)
            }
        }
    }
}

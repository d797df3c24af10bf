import PlistKit
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Thin wrappers over the C library for this library's file-system work, in swift-system's manner: paths as bytes,
/// results as `Result<_, Errno>` through `SystemCall` (which retries `EINTR`), no logic. One file per job:
/// paths here, then descriptors, file identity, filesystems and users (clocks are PlistKit's `SystemClock`).
enum Sys {
    /// Calls `body` with a NUL-terminated copy of `path`.
    static func withCPath<R>(_ path: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
        var buffer = path
        buffer.append(0)
        return buffer.withUnsafeBufferPointer { bytes in
            // A non-empty array always has storage.
            bytes.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) }
        }
    }

    /// `realpath(3)`: `path` with every symbolic link, `.` and `..` resolved.
    static func realPath(_ path: [UInt8]) -> Result<[UInt8], Errno> {
        withCPath(path) { cPath in
            SystemCall.pointer { realpath(cPath, nil) }.map { resolved in
                defer { free(resolved) }
                return Array(UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)))
            }
        }
    }

    /// `getcwd(3)`: the working directory.
    static func currentDirectory() -> Result<[UInt8], Errno> {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = buffer.count
        return SystemCall.pointer { getcwd(&buffer, count) }.map { _ in
            buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        }
    }

    /// `readlink(2)`: where the symbolic link `path` points, as bytes.
    static func readLink(_ path: [UInt8]) -> Result<[UInt8], Errno> {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let capacity = buffer.count - 1
        return withCPath(path) { cPath in SystemCall.value { readlink(cPath, &buffer, capacity) } }.map { count in
            buffer[0..<count].map { UInt8(bitPattern: $0) }
        }
    }
}

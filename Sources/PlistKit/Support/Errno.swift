#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An error number from the C library (`errno`), carried as a value: the one form in which every library of this
/// package reports a failed system call (swift-system's `Errno` is the model).
public struct Errno: Error, Sendable, Hashable, RawRepresentable, CustomStringConvertible {
    /// The number, as `errno.h` defines it (`ENOENT`, `EACCES`, …).
    public let rawValue: Int32

    /// The error with number `rawValue`.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The error with number `rawValue`.
    public init(_ rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's `errno` now: read it straight after the call that failed.
    public static var current: Errno { Errno(errno) }

    /// The system's text for the error, as `strerror(3)` gives it ("No such file or directory").
    public var description: String { String(cString: strerror(rawValue)) }

    /// `EINTR`: a signal arrived before the call could finish.
    public static let interrupted = Errno(EINTR)
    /// `ENOENT`.
    public static let noSuchFileOrDirectory = Errno(ENOENT)
    /// `EACCES`.
    public static let permissionDenied = Errno(EACCES)
    /// `ENOTDIR`: a component of the path is not a directory.
    public static let notDirectory = Errno(ENOTDIR)
    /// `EISDIR`.
    public static let isDirectory = Errno(EISDIR)
    /// `EEXIST`.
    public static let fileExists = Errno(EEXIST)
    /// `ELOOP`: too many symbolic links, or a final link where `O_NOFOLLOW` forbids one.
    public static let tooManySymbolicLinkLevels = Errno(ELOOP)
    /// `EOPNOTSUPP`.
    public static let notSupported = Errno(EOPNOTSUPP)
    /// `EINVAL`.
    public static let invalidArgument = Errno(EINVAL)
}

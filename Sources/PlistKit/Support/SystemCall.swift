#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The one way this package calls the C library. A call that fails returns -1 (or a null pointer) and sets `errno`;
/// here the failure comes back as an `Errno` value, and a call a signal interrupted (`EINTR`) is made again — unless
/// the caller says it must not be, as for `close(2)`, whose descriptor is gone on Linux even when it reports `EINTR`.
package enum SystemCall {
    /// The call's non-negative result, or the `errno` it failed with.
    @inline(__always)
    package static func value<T: FixedWidthInteger & SignedInteger>(
        retryingInterrupts: Bool = true, _ call: () -> T
    ) -> Result<T, Errno> {
        while true {
            let result = call()
            if result != -1 { return .success(result) }
            let error = Errno.current
            if retryingInterrupts, error == .interrupted { continue }
            return .failure(error)
        }
    }

    /// Nothing, or the `errno` the call failed with (for calls that return 0 or -1).
    @inline(__always)
    package static func nothing(retryingInterrupts: Bool = true, _ call: () -> Int32) -> Result<Void, Errno> {
        value(retryingInterrupts: retryingInterrupts, call).map { _ in () }
    }

    /// The pointer a call returned, or the `errno` it failed with when it returned null.
    @inline(__always)
    package static func pointer<T>(retryingInterrupts: Bool = true, _ call: () -> T?) -> Result<T, Errno> {
        while true {
            if let result = call() { return .success(result) }
            let error = Errno.current
            if retryingInterrupts, error == .interrupted { continue }
            return .failure(error)
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The clocks the libraries read: `clock_gettime(2)` on clocks every Linux has, so the calls cannot fail and return
/// plain numbers.
package enum SystemClock {
    /// `CLOCK_MONOTONIC` in nanoseconds, for deadlines and rate limits.
    @inlinable
    package static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// `CLOCK_REALTIME` in nanoseconds since 1970.
    package static func realtimeNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}

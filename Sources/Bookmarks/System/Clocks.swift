#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Clocks: `clock_gettime(2)` on clocks every Linux has, so the calls cannot fail and return plain numbers.
extension Sys {
    /// `CLOCK_MONOTONIC` in nanoseconds, for deadlines.
    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// `CLOCK_REALTIME` in nanoseconds since 1970.
    static func realtimeNanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}

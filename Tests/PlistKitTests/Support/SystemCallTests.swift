import Foundation
import Testing
@testable import PlistKit

/// `SystemCall`: -1 becomes the `errno` as a value, and `EINTR` is retried unless the caller forbids it.
@Suite struct SystemCallTests {
    /// A stand-in for a system call that is interrupted `interruptions` times, then returns `result`.
    final class Interrupted {
        var interruptions: Int
        var calls = 0
        let result: Int32
        init(_ interruptions: Int, then result: Int32) {
            self.interruptions = interruptions
            self.result = result
        }
        func call() -> Int32 {
            calls += 1
            if interruptions > 0 {
                interruptions -= 1
                errno = EINTR
                return -1
            }
            if result == -1 { errno = ENOENT }
            return result
        }
    }

    @Test func retriesAnInterruptedCall() {
        let fake = Interrupted(3, then: 7)
        #expect(SystemCall.value { fake.call() } == .success(7))
        #expect(fake.calls == 4)
    }

    @Test func returnsTheInterruptionWhenTheCallerForbidsARetry() {
        let fake = Interrupted(1, then: 0)
        #expect(SystemCall.value(retryingInterrupts: false) { fake.call() } == .failure(.interrupted))
        #expect(fake.calls == 1)
    }

    @Test func reportsTheErrnoOfAFailure() {
        let fake = Interrupted(2, then: -1)
        #expect(SystemCall.value { fake.call() } == .failure(.noSuchFileOrDirectory))
        #expect(fake.calls == 3)
        var st = stat()
        #expect(throws: Errno.noSuchFileOrDirectory) { try SystemCall.nothing { stat("/nonexistent/x", &st) }.get() }
    }

    @Test func pointerCallsFailWithTheirErrno() {
        #expect(throws: Errno.noSuchFileOrDirectory) { try SystemCall.pointer { opendir("/nonexistent/dir") }.get() }
        let directory = SystemCall.pointer { opendir("/") }
        if case .success(let stream) = directory { closedir(stream) } else { Issue.record("opendir / failed: \(directory)") }
    }
}

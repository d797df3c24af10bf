import Foundation
import Testing
import TestSupport

/// The process runner every differential test goes through.
@Suite struct ExternalToolTests {
    /// A child that never reads its input must not take the test process down with SIGPIPE or hang it.
    @Test func childIgnoringLargeInputReturnsItsStatus() throws {
        let r = try ExternalTool.run("/bin/sh", ["-c", "exit 3"], input: Data(repeating: 0x41, count: 4 << 20))
        #expect(r.status == 3)
    }

    /// Output larger than a pipe buffer on both streams at once comes back whole.
    @Test func largeOutputOnBothStreams() throws {
        let r = try ExternalTool.run("/bin/sh", ["-c", "head -c 1000000 /dev/zero; head -c 1000000 /dev/zero >&2"])
        #expect(r.status == 0)
        #expect(r.stdout.count == 1_000_000 && r.stderr.count == 1_000_000)
    }
}

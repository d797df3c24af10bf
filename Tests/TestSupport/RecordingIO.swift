import PlistKit
import Synchronization

/// A `CommandIO` for running a library-side command in the test process: standard input is `input`, what the
/// command writes to standard output and error is kept, and output can be made to fail as a full disk would.
public final class RecordingIO: Sendable {
    private struct Written {
        var output: [UInt8] = []
        var error = ""
    }

    private let written = Mutex(Written())
    /// What standard input holds.
    public let input: [UInt8]
    /// When set, every write to standard output fails with this error (and nothing is kept).
    public let outputFailure: Errno?

    /// Streams whose standard input holds `input`, and whose output writes fail with `outputFailure` when given.
    public init(input: [UInt8] = [], outputFailure: Errno? = nil) {
        self.input = input
        self.outputFailure = outputFailure
    }

    /// The streams to give the command.
    public var io: CommandIO {
        CommandIO(
            writeOutput: { bytes throws(Errno) in
                if let failure = self.outputFailure { throw failure }
                self.written.withLock { $0.output += bytes }
            },
            writeError: { text in self.written.withLock { $0.error += text } },
            readInput: { limit in Array(self.input.prefix(limit < Int.max ? limit + 1 : limit)) })
    }

    /// The bytes written to standard output.
    public var output: [UInt8] { written.withLock { $0.output } }
    /// Standard output as UTF-8 text.
    public var outputText: String { String(decoding: output, as: UTF8.self) }
    /// The text written to standard error.
    public var errorText: String { written.withLock { $0.error } }
}

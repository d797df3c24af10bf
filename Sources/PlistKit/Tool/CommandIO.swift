#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Standard input, output and error for the library-side commands (`PlutilCommand`, and `BookmarkCommand` and
/// `DefaultsCommand` in their libraries): an executable passes `.standard`, a test passes closures that keep what is
/// written, so the same command runs in a process or in a test.
public struct CommandIO: Sendable {
    /// Writes bytes to standard output. A failure (a full disk, a closed pipe) is the command's to report.
    public var writeOutput: @Sendable ([UInt8]) throws(Errno) -> Void
    /// Writes text to standard error; a failure there has nowhere to be reported and is dropped.
    public var writeError: @Sendable (String) -> Void
    /// Reads standard input to its end, or to one byte past `limit` (as `FileInput.readAll`).
    public var readInput: @Sendable (_ limit: Int) throws(Errno) -> [UInt8]

    /// Input and output through the given closures.
    public init(
        writeOutput: @escaping @Sendable ([UInt8]) throws(Errno) -> Void,
        writeError: @escaping @Sendable (String) -> Void,
        readInput: @escaping @Sendable (_ limit: Int) throws(Errno) -> [UInt8]
    ) {
        self.writeOutput = writeOutput
        self.writeError = writeError
        self.readInput = readInput
    }

    /// The process's own descriptors 0, 1 and 2.
    public static let standard = CommandIO(
        writeOutput: { bytes throws(Errno) in
            do throws(FileWriteError) {
                try FileOutput.writeAll(bytes, to: STDOUT_FILENO, path: "standard output")
            } catch {
                throw error.systemError
            }
        },
        writeError: { text in try? FileOutput.writeAll(Array(text.utf8), to: STDERR_FILENO, path: "standard error") },
        readInput: { limit throws(Errno) in try FileInput.readAll(STDIN_FILENO, limit: limit) })

    /// Writes `text` to standard output (see `writeOutput`).
    public func writeOutput(_ text: String) throws(Errno) {
        try writeOutput(Array(text.utf8))
    }
}

import Foundation

/// Runs independent implementations (python3 plistlib, plistutil, GNUstep tools, the toolchain's plutil) and our
/// own tools as real processes; shared by every test target.
public enum ExternalTool {
    public struct Result: Sendable { public var status: Int32; public var stdout: Data; public var stderr: Data }

    /// The full path of `name` on PATH, then in `extraDirectories` (in order), or nil.
    public static func find(_ name: String, extraDirectories: [String] = []) -> String? {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
        for dir in path + extraDirectories {
            let candidate = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// The Swift toolchain's Apple `plutil` (swift-corelibs-foundation's), or nil when there is none. It is the one
    /// beside the real `swift` binary (the first `swift` on PATH, symlinks resolved), not the first `plutil` on PATH:
    /// GNUstep's `plutil` is a different tool and is often earlier there (`/usr/bin`). Its `-help` must say "Running
    /// in Swift mode", which GNUstep's does not, so a stray binary in the toolchain directory is not taken for it.
    public static let toolchainPlutil: String? = {
        guard let swift = find("swift") else { return nil }
        let candidate = URL(fileURLWithPath: swift).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("plutil").path
        guard FileManager.default.isExecutableFile(atPath: candidate),
              let help = try? run(candidate, ["-help"]),
              String(decoding: help.stdout + help.stderr, as: UTF8.self).contains("Swift mode") else { return nil }
        return candidate
    }()

    /// Runs `executable` with `arguments` (in `directory`, if given), feeding `input` on stdin.
    public static func run(_ executable: String, _ arguments: [String], input: Data = Data(),
                           environment: [String: String]? = nil, in directory: URL? = nil) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = directory }
        let inPipe = Pipe(), outPipe = Pipe(), errPipe = Pipe()
        process.standardInput = inPipe
        process.standardOutput = outPipe
        process.standardError = errPipe
        try process.run()
        // Drain output on other threads so a large result cannot deadlock against a full pipe.
        let outBox = DataBox(), errBox = DataBox()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { outBox.data = outPipe.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { errBox.data = errPipe.fileHandleForReading.readDataToEndOfFile() }
        // A child that exits without reading all its input closes the pipe: the write then fails with EPIPE (SIGPIPE is
        // ignored, or it would kill the test process), and the child's own status is what the caller sees.
        _ = ignoreBrokenPipes
        try? inPipe.fileHandleForWriting.write(contentsOf: input)
        try? inPipe.fileHandleForWriting.close()
        group.wait()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: outBox.data, stderr: errBox.data)
    }

    private final class DataBox: @unchecked Sendable { var data = Data() }

    private static let ignoreBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// Runs a Python 3 script (from a string) with the given stdin; nil when python3 is absent.
    public static func python(_ script: String, input: Data = Data()) throws -> Result? {
        guard let python = find("python3") else { return nil }
        return try run(python, ["-c", script], input: input)
    }
}

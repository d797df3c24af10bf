import Foundation
import PlistKit
import Testing
import TestSupport

/// `PlutilCommand` called in this process, as the `plutil` executable calls it: the same statuses and bytes as the
/// built binary, standard input and output through `CommandIO`, and a failed write to standard output reported.
@Suite struct PlutilCommandTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Corpus").path

    /// Runs the command in this process.
    static func inProcess(_ arguments: [String], input: [UInt8] = []) -> (status: Int32, io: RecordingIO) {
        let recording = RecordingIO(input: input)
        let status = PlutilCommand.run(arguments, programName: "plutil", io: recording.io)
        return (status, recording)
    }

    static let commandLines: [[String]] = [
        ["-p", "xml/nested.plist"],
        ["-convert", "json", "-r", "-o", "-", "xml/nested.plist"],
        ["-convert", "binary1", "-o", "-", "xml/all-types.plist"],
        ["-extract", "missing.key", "raw", "-o", "-", "xml/nested.plist"],
        ["-type", "", "xml/nested.plist"],
        ["-lint", "xml/nested.plist", "no/such/file.plist"],
        ["-convert", "nonsense", "xml/nested.plist"],
        ["-o", "-", "-lint", "xml/nested.plist"],
    ]

    @Test(.enabled(if: ToolRunner.ours != nil, ToolRunner.oursMissing), arguments: commandLines)
    func givesWhatTheBinaryGives(_ relativeArguments: [String]) throws {
        // Paths under Corpus/ made absolute for both (this process's working directory is not the binary's).
        let arguments = relativeArguments.map { $0.hasSuffix(".plist") ? Self.corpus + "/" + $0 : $0 }
        let here = Self.inProcess(arguments)
        let binary = try ToolRunner.runOurs(arguments)
        #expect(here.status == binary.status, "\(arguments)")
        #expect(here.io.output == Array(binary.stdout), "\(arguments)")
        #expect(here.io.errorText == binary.stderr, "\(arguments)")
    }

    @Test func helpIsTheUsageText() {
        let run = Self.inProcess(["-help"])
        #expect(run.status == 0)
        #expect(run.io.outputText == PlutilCommand.usage("plutil"))
        #expect(run.io.outputText.hasPrefix("plutil: [command_option] [other_options] file..."))
    }

    @Test func readsStandardInputAndWritesStandardOutput() throws {
        let xml = Array("<plist><dict><key>a</key><integer>1</integer></dict></plist>".utf8)
        let lint = Self.inProcess(["-lint", "-"], input: xml)
        #expect(lint.status == 0 && lint.io.outputText == "<stdin>: OK\n" && lint.io.errorText.isEmpty)
        let json = Self.inProcess(["-convert", "json", "-o", "-", "-"], input: xml)
        #expect(json.status == 0 && json.io.outputText == "{\"a\":1}")
        let bad = Self.inProcess(["-p", "-"], input: Array("<plist><dict><key>a</key></dict></plist>".utf8))
        #expect(bad.status == 1 && bad.io.output.isEmpty && bad.io.errorText.hasPrefix("<stdin>: ("))
    }

    @Test func aBadCommandLineIsReportedWithStatusOne() {
        let run = Self.inProcess(["-convert"])
        #expect(run.status == 1)
        #expect(run.io.errorText == "Missing format specifier for command.\n")
        #expect(Self.inProcess([]).io.errorText == "No files specified.\n")
    }

    @Test func aFailedWriteToStandardOutputIsThatFilesFailure() {
        let recording = RecordingIO(input: Array("<plist><true/></plist>".utf8), outputFailure: Errno(ENOSPC))
        let status = PlutilCommand.run(["-lint", "-"], io: recording.io)
        #expect(status == 1)
        #expect(recording.errorText == "<stdin>: (\(String(cString: strerror(ENOSPC))))\n")
    }
}

import Foundation
import PlistKit
import Testing
import TestSupport
@testable import Preferences

/// `DefaultsCommand` over a `CommandIO`, as the `defaults` executable runs it: standard input through the streams, and
/// a failed write to standard output reported once with status 1.
@Suite struct DefaultsCommandStreamsTests {
    let dir = TempDirectory("defaults-streams")

    func run(_ arguments: [String], _ recording: RecordingIO) -> Int32 {
        DefaultsCommand.run(
            arguments, environment: dir.environment(), io: recording.io,
            system: DefaultsSystem(dataDirectories: [], containersDirectory: dir.path + "/containers"))
    }

    @Test func importsFromStandardInputAndReadsBack() throws {
        let plist = Array("<plist><dict><key>k</key><string>v</string></dict></plist>".utf8)
        #expect(run(["import", "com.example.streams", "-"], RecordingIO(input: plist)) == 0)
        let read = RecordingIO()
        #expect(run(["read", "com.example.streams", "k"], read) == 0)
        #expect(read.outputText == "v\n" && read.errorText.isEmpty)
    }

    @Test func aFailedOutputWriteIsStatusOneAndOneMessage() throws {
        #expect(run(["write", "com.example.streams", "k", "-int", "5"], RecordingIO()) == 0)
        let full = RecordingIO(outputFailure: Errno(ENOSPC))
        #expect(run(["export", "com.example.streams", "-"], full) == 1)
        #expect(full.errorText == "defaults: cannot write to standard output: \(Errno(ENOSPC))\n")
        // A command that fails without writing to standard output keeps its status and its own message.
        let missing = RecordingIO(outputFailure: Errno(ENOSPC))
        #expect(run(["read", "com.example.none", "k"], missing) == 1)
        #expect(missing.errorText.contains("does not exist"), "\(missing.errorText)")
        #expect(!missing.errorText.contains("cannot write to standard output"))
    }
}

import Foundation
import PlistKit
import Testing
@testable import Preferences

/// Reliability with real processes (issue 7, "Reliability tests"). Files are checked with Foundation's parser.
@Suite(.serialized) struct ReliabilityTests {
    @Test func eightProcessesFiveHundredWritesLoseNothing() throws {
        let dir = TempDirectory("prefs-rel", memoryBacked: true)
        let runner = ProcessRunner(directory: dir)
        let writers = 8, count = 500
        let started = try (0..<writers).map { try runner.start("PreferencesTestHelper", ["write-loop", "com.example.shared", "\($0)", "\(count)"]) }
        for (process, _, err) in started {
            let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(message)")
        }
        let onDisk = try #require(try dir.readPlistWithFoundation(dir.locations.path(domain: "com.example.shared")).dictionaryValue)
        #expect(onDisk.count == writers * count)
        var missing: [String] = []
        for w in 0..<writers {
            for i in 0..<count where onDisk["w\(w)-\(i)"] != .integer(PlistInteger(i)) { missing.append("w\(w)-\(i)") }
        }
        #expect(missing.isEmpty, "lost updates: \(missing.prefix(20))")
    }

    @Test func sigkillAtRandomPointsNeverLosesAcknowledgedKeys() throws {
        let dir = TempDirectory("prefs-kill", memoryBacked: true)
        let runner = ProcessRunner(directory: dir)
        let domainPath = dir.locations.path(domain: "com.example.crash")
        let logPath = dir.path + "/acknowledged.log"
        var generator = SystemRandomNumberGenerator()
        var trials = 0, killedAfterAcknowledgement = 0, previous = 0
        for _ in 0..<100 {
            let (process, _, _) = try runner.start("PreferencesTestHelper", ["crash-writer", "com.example.crash", logPath])
            usleep(UInt32.random(in: 5_000...80_000, using: &generator))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            trials += 1
            // The file (if any) must parse, and hold every key whose synchronize() completed.
            let log = (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
            let acknowledged = log.split(separator: "\n").compactMap { Int($0) }
            guard FileManager.default.fileExists(atPath: domainPath) else {
                #expect(acknowledged.isEmpty, "file missing after \(acknowledged.count) acknowledged writes")
                continue
            }
            let value = try dir.readPlistWithFoundation(domainPath)
            let dict = try #require(value.dictionaryValue, "root is not a dictionary after trial \(trials)")
            if acknowledged.count > previous { killedAfterAcknowledgement += 1 }
            previous = acknowledged.count
            let lost = acknowledged.filter { dict["k\($0)"] == nil }
            #expect(lost.isEmpty, "trial \(trials): acknowledged keys missing: \(lost.prefix(10))")
            if !lost.isEmpty { break }
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.locations.userDirectory)
            .filter { $0.contains("corrupt") }
        #expect(leftovers.isEmpty, "a kill produced a damaged file: \(leftovers)")
        #expect(trials == 100)
        // The kills must land mid-run, not only before the first write, or the test proves nothing.
        #expect(killedAfterAcknowledgement >= 30, "only \(killedAfterAcknowledgement) trials wrote anything")
    }

    @Test func exitWithoutSynchronizeStillSaves() throws {
        let dir = TempDirectory("prefs-exit")
        let runner = ProcessRunner(directory: dir)
        let r = try runner.run("PreferencesTestHelper", ["set-exit", "com.example.exit", "k", "saved at exit"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try dir.readPlistWithFoundation(dir.locations.path(domain: "com.example.exit")) == ["k": "saved at exit"])
    }

    @Test func damagedFileIsMovedAsideAndReportedByAnotherProcess() throws {
        let dir = TempDirectory("prefs-corrupt")
        let runner = ProcessRunner(directory: dir)
        let path = dir.locations.path(domain: "com.example.bad")
        try dir.writePlist(["k": "v", "other": [1, 2]], to: path)
        let good = try Data(contentsOf: URL(fileURLWithPath: path))
        let truncated = good.prefix(good.count - 7)
        try truncated.write(to: URL(fileURLWithPath: path))
        let r = try runner.run("PreferencesTestHelper", ["get", "com.example.bad", "k"])
        #expect(r.stdout == "(nil)\n")
        #expect(r.stderr.contains("damaged"), "stderr: \(r.stderr)")
        let aside = try FileManager.default.contentsOfDirectory(atPath: dir.locations.userDirectory)
            .filter { $0.hasPrefix("com.example.bad.plist.corrupt-") }
        try #require(aside.count == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.locations.userDirectory + "/" + aside[0])) == truncated)
    }

    @Test func foundationUserDefaultsAndOursSeeEachOthersValues() throws {
        let dir = TempDirectory("prefs-fdn")
        let runner = ProcessRunner(directory: dir)
        // Foundation writes (XML, $XDG_CONFIG_HOME/<suite>.plist, as swift-corelibs-foundation places it); ours reads.
        var r = try runner.run("PreferencesTestHelper", ["foundation-set", "com.example.interop", "fromFoundation", "hello"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.locations.path(domain: "com.example.interop")))
        r = try runner.run("PreferencesTestHelper", ["get", "com.example.interop", "fromFoundation"])
        #expect(r.stdout == "hello\n")
        // Ours writes (binary) next to Foundation's key; Foundation reads ours and its own key survived the merge.
        r = try runner.run("PreferencesTestHelper", ["set-exit", "com.example.interop", "fromOurs", "world"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try runner.run("PreferencesTestHelper", ["foundation-get", "com.example.interop", "fromOurs"])
        #expect(r.stdout == "world\n")
        r = try runner.run("PreferencesTestHelper", ["foundation-get", "com.example.interop", "fromFoundation"])
        #expect(r.stdout == "hello\n")
        // And a Foundation write after ours keeps our key.
        r = try runner.run("PreferencesTestHelper", ["foundation-set", "com.example.interop", "n", "int:7"])
        #expect(r.status == 0)
        r = try runner.run("PreferencesTestHelper", ["get", "com.example.interop", "fromOurs"])
        #expect(r.stdout == "world\n")
        r = try runner.run("PreferencesTestHelper", ["get", "com.example.interop", "n"])
        #expect(r.stdout == "7\n")
    }

    @Test func managedValueWinsInAnotherProcess() throws {
        let dir = TempDirectory("prefs-managed")
        let runner = ProcessRunner(directory: dir)
        try dir.writePlist(["policy": "admin"], to: dir.locations.managedPath(domain: "com.example.m"))
        try dir.writePlist(["policy": "user"], to: dir.locations.path(domain: "com.example.m"))
        let r = try runner.run("PreferencesTestHelper", ["get", "com.example.m", "policy"])
        #expect(r.stdout == "admin\n")
    }
}

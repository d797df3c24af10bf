import Foundation
import PlistKit
import Synchronization
import Testing
import TestSupport
@testable import Preferences

/// Fault injection with the real kernel: the domain directory is a small tmpfs that is filled up (`ENOSPC`) or
/// remounted read-only (`EROFS`). A failed write must be reported, keep the file on disk exactly as it was, leave no
/// temporary file, and keep the change in memory until it can be written.
@Suite(.serialized, .enabled(if: TinyFilesystem.isAvailable, "needs root and permission to mount a tmpfs"))
struct WriteFailureTests {
    private func environment(_ fs: TinyFilesystem, flushDelay: Double = 60) -> PreferencesEnvironment {
        var options = StoreOptions()
        options.codec = TestCodec.current
        options.flushDelay = flushDelay
        return PreferencesEnvironment(
            locations: .under(fs.path), options: options, applicationDomain: "com.example.app", arguments: [],
            logsToStandardError: false)
    }

    private func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    /// The file read by Foundation, an independent reader.
    private func foundationDictionary(_ path: String) throws -> NSDictionary? {
        guard let data = bytes(path) else { return nil }
        return try PropertyListSerialization.propertyList(from: data, format: nil) as? NSDictionary
    }

    /// A store on `fs` whose domain file holds `key` = `value`, and that file's bytes.
    private func storeWithAFile(on fs: TinyFilesystem, _ key: String, _ value: String) throws
        -> (defaults: Defaults, path: String, bytes: Data) {
        let env = environment(fs)
        let d = try #require(Defaults(suiteName: nil, environment: env))
        d.set(value, forKey: key)
        #expect(d.synchronize())
        let path = env.locations.path(domain: "com.example.app")
        return (d, path, try #require(bytes(path)))
    }

    /// `synchronizeOrThrow` fails with `.io` and the system's `reason`.
    private func expectIOFailure(_ d: Defaults, _ reason: String) throws {
        do {
            try d.synchronizeOrThrow()
            Issue.record("synchronize succeeded where the system should refuse: \(reason)")
        } catch let error as PreferencesError {
            #expect(error.kind == .io)
            #expect("\(error)".contains(reason), "\(error)")
        }
    }

    @Test func synchronizeOnAFullDiskFailsKeepsTheFileAndWritesOnceThereIsRoom() throws {
        let fs = try TinyFilesystem()
        let (d, path, before) = try storeWithAFile(on: fs, "old", "kept")
        fs.fill()

        d.set(String(repeating: "x", count: 100_000), forKey: "big")
        try expectIOFailure(d, "No space left on device")
        #expect(!d.synchronize())
        #expect(bytes(path) == before, "the file on disk is untouched")
        #expect(fs.entries("user").filter { !$0.hasSuffix(".lock") } == ["com.example.app.plist"], "no temporary file left")
        #expect(d.string(forKey: "big")?.count == 100_000, "the change is still there in memory")

        fs.release()
        #expect(d.synchronize())
        let stored = try #require(try foundationDictionary(path))
        #expect(stored["old"] as? String == "kept")
        #expect((stored["big"] as? String)?.count == 100_000)
    }

    @Test func aFailedBackgroundFlushIsReportedAndRetriedUntilTheDiskRecovers() throws {
        let fs = try TinyFilesystem()
        let env = environment(fs, flushDelay: 0.05)
        let failures = Atomic<Int>(0)
        _ = env.addEventHandler { event in
            if case .flushFailed(_, let error) = event, error.kind == .io { failures.add(1, ordering: .relaxed) }
        }
        let d = try #require(Defaults(suiteName: nil, environment: env))
        d.set(1, forKey: "first")
        #expect(d.synchronize())
        let path = env.locations.path(domain: "com.example.app")
        fs.fill()
        d.set(String(repeating: "y", count: 100_000), forKey: "later")
        let deadline = Date().addingTimeInterval(10)
        while failures.load(ordering: .relaxed) == 0, Date() < deadline { usleep(10_000) }
        #expect(failures.load(ordering: .relaxed) > 0, "the failed flush was reported")
        #expect(try foundationDictionary(path)?["later"] == nil)

        // Nothing else touches the store: the retry alone must write the change once there is room.
        fs.release()
        var stored: NSDictionary?
        while Date() < deadline.addingTimeInterval(10) {
            stored = try foundationDictionary(path)
            if stored?["later"] != nil { break }
            usleep(20_000)
        }
        #expect((stored?["later"] as? String)?.count == 100_000)
        #expect(stored?["first"] as? Int == 1)
    }

    @Test func changesWhileTheDiskIsFullKeepOneChainOfRetries() throws {
        let fs = try TinyFilesystem()
        let env = environment(fs, flushDelay: 0.05)
        let failures = Atomic<Int>(0)
        _ = env.addEventHandler { event in
            if case .flushFailed = event { failures.add(1, ordering: .relaxed) }
        }
        let d = try #require(Defaults(suiteName: nil, environment: env))
        fs.fill()
        // Each change comes after the previous flush failed: each would start its own chain if retries piled up.
        for i in 0..<10 {
            let seen = failures.load(ordering: .relaxed)
            d.set(String(repeating: "z", count: 50_000 + i), forKey: "k")
            let deadline = Date().addingTimeInterval(5)
            while failures.load(ordering: .relaxed) == seen, Date() < deadline { usleep(5_000) }
        }
        let before = failures.load(ordering: .relaxed)
        sleep(3)
        // One chain retries after 0.25, 0.5, 1 and 2 s: at most four failures in three idle seconds (ten chains: ~30).
        let idle = failures.load(ordering: .relaxed) - before
        #expect(idle >= 1 && idle <= 4, "\(idle) failed flushes in 3 idle seconds")
        // Nothing left pending: the exit flush would otherwise write into the directory once it is unmounted.
        fs.release()
        #expect(d.synchronize())
    }

    @Test func aReadOnlyRemountIsAnErrorAndTheValuesSurvive() throws {
        let fs = try TinyFilesystem()
        let (d, path, before) = try storeWithAFile(on: fs, "k", "a")
        try fs.makeReadOnly()
        d.set("b", forKey: "k")
        try expectIOFailure(d, "Read-only file system")
        #expect(bytes(path) == before)
        #expect(d.string(forKey: "k") == "b")
        try fs.makeWritable()
        #expect(d.synchronize(), "written once the filesystem is writable again (and nothing left for the exit flush)")
        #expect(try foundationDictionary(path)?["k"] as? String == "b")
    }

    @Test func theDefaultsToolReportsAFullDiskAndLeavesTheDomainAsItWas() throws {
        let fs = try TinyFilesystem()
        let home = TempDirectory()
        var env = ProcessRunner(directory: home).environment
        env["XDG_CONFIG_HOME"] = fs.path
        let tool = try ProcessRunner.requiredExecutable("defaults")
        var r = try ExternalTool.run(tool, ["write", "com.example.tool", "k", "-string", "v"], environment: env)
        #expect(r.status == 0)
        let path = fs.p("com.example.tool.plist")
        let before = try #require(bytes(path))
        fs.fill()
        r = try ExternalTool.run(
            tool, ["write", "com.example.tool", "big", "-string", String(repeating: "z", count: 50_000)], environment: env)
        #expect(r.status != 0)
        #expect(String(decoding: r.stderr, as: UTF8.self).contains("No space left on device"))
        #expect(bytes(path) == before)
        #expect(fs.entries().filter { !$0.hasSuffix(".lock") } == ["com.example.tool.plist"])
        fs.release()
        r = try ExternalTool.run(tool, ["read", "com.example.tool", "k"], environment: env)
        #expect(String(decoding: r.stdout, as: UTF8.self) == "v\n")
    }

    @Test func exportToAFullStandardOutputFails() throws {
        let home = TempDirectory()
        let runner = ProcessRunner(directory: home)
        #expect(try runner.run("defaults", ["write", "com.example.export", "k", "-int", "5"]).status == 0)
        let tool = try ProcessRunner.requiredExecutable("defaults")
        // /dev/full answers every write with ENOSPC, as a full disk under a redirect would.
        let r = try ExternalTool.run(
            "/bin/sh", ["-c", "exec \"$0\" \"$@\" > /dev/full", tool, "export", "com.example.export", "-"],
            environment: runner.environment)
        #expect(r.status == 1)
        #expect(String(decoding: r.stderr, as: UTF8.self).contains("No space left on device"))
    }
}

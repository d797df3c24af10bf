import Foundation
import PlistKit
import Testing
@testable import Preferences

/// The crash-safe store (lock, re-read, merge, atomic replace). Two environments over one directory stand in for two processes (each has its
/// own in-memory cache); files are checked with Foundation's parser.
@Suite struct DomainFileTests {
    @Test func writesAtomicallyAndForeignParserReadsIt() throws {
        let dir = TempDirectory()
        let env = dir.environment()
        let file = env.persistentFile("com.example.a")
        file.set("v", forKey: "k")
        file.set(.integer(PlistInteger(UInt64.max)), forKey: "big")
        try file.synchronize()
        let path = dir.locations.path(domain: "com.example.a")
        #expect(try dir.readPlistWithFoundation(path) == ["k": "v", "big": .integer(PlistInteger(UInt64.max))])
        // Default format is binary; mode 0600 for a new file; no temp files left behind.
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.starts(with: Array("bplist00".utf8)))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let entries = try FileManager.default.contentsOfDirectory(atPath: dir.locations.userDirectory).sorted()
        #expect(entries == ["com.example.a.plist", "com.example.a.plist.lock"], "only the file and its lock")
    }

    @Test func xmlOptionWritesXML() throws {
        let dir = TempDirectory()
        let env = dir.environment { $0.writeFormat = .xml }
        let file = env.persistentFile("com.example.xml")
        file.set("v", forKey: "k")
        try file.synchronize()
        let text = try String(contentsOfFile: dir.locations.path(domain: "com.example.xml"), encoding: .utf8)
        #expect(text.hasPrefix("<?xml"))
    }

    @Test func mergesOnlyDirtyKeysIncludingRemovals() throws {
        let dir = TempDirectory()
        let a = dir.environment().persistentFile("d")
        let b = dir.environment().persistentFile("d")
        a.set("1", forKey: "shared")
        a.set("1", forKey: "toRemove")
        try a.synchronize()
        _ = b.snapshot(force: true)
        // Both change different keys from the same starting point; B also removes one.
        a.set("A", forKey: "fromA")
        b.set("B", forKey: "fromB")
        b.set(nil, forKey: "toRemove")
        try a.synchronize()
        try b.synchronize()
        let onDisk = try dir.readPlistWithFoundation(dir.locations.path(domain: "d"))
        #expect(onDisk == ["shared": "1", "fromA": "A", "fromB": "B"])
        // A sees B's changes after a synchronize.
        try a.synchronize()
        #expect(a.snapshot() == onDisk.dictionaryValue)
    }

    @Test func keepsModeOfExistingFile() throws {
        let dir = TempDirectory()
        let path = dir.locations.path(domain: "m")
        try dir.writePlist(["k": "old"], to: path)
        chmod(path, 0o644)
        let file = dir.environment().persistentFile("m")
        file.set("new", forKey: "k")
        try file.synchronize()
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o644)
        #expect(try dir.readPlistWithFoundation(path) == ["k": "new"])
    }

    @Test func followsSymlinkInsteadOfReplacingIt() throws {
        let dir = TempDirectory()
        let real = dir.path + "/dotfiles/m.plist"
        try dir.writePlist(["k": "old"], to: real)
        let link = dir.locations.path(domain: "m")
        try FileManager.default.createDirectory(atPath: dir.locations.userDirectory, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "../dotfiles/m.plist")
        let file = dir.environment().persistentFile("m")
        #expect(file.value(forKey: "k") == "old")
        file.set("new", forKey: "k")
        try file.synchronize()
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "../dotfiles/m.plist")
        #expect(try dir.readPlistWithFoundation(real) == ["k": "new"])
    }

    /// A link into a directory that is not there (a dotfiles disk not mounted) is an error, not a reason to create
    /// directories where it points; once the directory exists the write goes through the link.
    @Test func danglingLinkIntoAMissingDirectoryFailsWithoutCreatingIt() throws {
        let dir = TempDirectory()
        let link = dir.locations.path(domain: "d")
        let missing = dir.path + "/unmounted/disk"
        try FileManager.default.createDirectory(atPath: dir.locations.userDirectory, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: missing + "/d.plist")
        let file = dir.environment().persistentFile("d")
        file.set("v", forKey: "k")
        let error = try #require(throws: PreferencesError.self) { try file.synchronize() }
        #expect(error.kind == .io)
        #expect(error.description.contains(String(cString: strerror(ENOENT))))
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/unmounted"))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == missing + "/d.plist")
        #expect(file.value(forKey: "k") == "v")
        try FileManager.default.createDirectory(atPath: missing, withIntermediateDirectories: true)
        try file.synchronize()
        #expect(try dir.readPlistWithFoundation(missing + "/d.plist") == ["k": "v"])
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == missing + "/d.plist")
    }

    /// A file that cannot be read is a `readFailed` (not a failed save), reported when it starts failing rather than
    /// at every re-read, and again after it has been readable in between.
    @Test func unreadableFileIsReportedOnceAsAReadFailure() throws {
        let dir = TempDirectory()
        let path = dir.locations.path(domain: "u")
        // A directory where the file should be: read(2) fails with EISDIR, for root too.
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let env = dir.environment()
        let log = EventLog(env)
        let file = env.persistentFile("u")
        #expect(file.snapshot().isEmpty)
        file.set("mine", forKey: "k")
        #expect(throws: PreferencesError.self) { try file.synchronize() }
        #expect(throws: PreferencesError.self) { try file.synchronize() }
        func readFailures() -> [PreferencesError] {
            log.events.compactMap { if case .readFailed("u", let error) = $0 { return error }; return nil }
        }
        try #require(readFailures().count == 1)
        #expect(readFailures()[0].kind == .io)
        #expect(readFailures()[0].description.contains(String(cString: strerror(EISDIR))))
        #expect(!log.events.contains { if case .flushFailed = $0 { return true }; return false })
        var isDirectory: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue)

        try FileManager.default.removeItem(atPath: path)
        try dir.writePlist(["other": "disk"], to: path)
        try file.synchronize()
        #expect(try dir.readPlistWithFoundation(path) == ["other": "disk", "k": "mine"])
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        file.set("again", forKey: "k")
        #expect(throws: PreferencesError.self) { try file.synchronize() }
        #expect(readFailures().count == 2)
    }

    /// The `defaults` tool says once why it cannot write, and exits 1 without the exit-time flush failing again.
    @Test func theToolReportsAnUnreadableDomainOnce() throws {
        let dir = TempDirectory()
        let runner = ProcessRunner(directory: dir)
        try FileManager.default.createDirectory(atPath: dir.locations.path(domain: "com.example.u"), withIntermediateDirectories: true)
        let r = try runner.run("defaults", ["write", "com.example.u", "k", "v"])
        #expect(r.status == 1)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 2, "\(lines)")
        #expect(lines.first?.hasPrefix("preferences: could not read domain com.example.u: ") == true)
        #expect(lines.last?.hasPrefix("Could not write domain com.example.u; exiting (") == true)
        #expect(lines.allSatisfy { $0.contains(String(cString: strerror(EISDIR))) })
    }

    @Test(arguments: ["truncated", "garbage", "empty", "array root"])
    func corruptFileIsMovedAsideAndReported(_ kind: String) throws {
        let dir = TempDirectory()
        let path = dir.locations.path(domain: "c")
        try dir.writePlist(["keep": "me", "more": [1, 2, 3]], to: path)
        let good = try Data(contentsOf: URL(fileURLWithPath: path))
        let damaged: Data
        switch kind {
        case "truncated": damaged = good.prefix(good.count / 2)
        case "garbage": damaged = Data("\u{1}\u{2}not a plist at all {{{".utf8)
        case "empty": damaged = Data()
        default: damaged = Data(try TestCodec.current.encode(["a", "b"], format: .binary))
        }
        try damaged.write(to: URL(fileURLWithPath: path))
        let env = dir.environment()
        let log = EventLog(env)
        let file = env.persistentFile("c")
        #expect(file.snapshot().isEmpty)
        let moved = log.events.compactMap { event -> String? in
            if case .corruptFileMovedAside(_, _, let to, _) = event { return to }
            return nil
        }
        try #require(moved.count == 1)
        // The damaged bytes are kept, byte for byte, and the domain path is free.
        #expect(try Data(contentsOf: URL(fileURLWithPath: moved[0])) == damaged)
        #expect(moved[0].hasPrefix(path + ".corrupt-"))
        #expect(!FileManager.default.fileExists(atPath: path))
        // A later write creates a fresh file; the moved-aside copy is untouched.
        file.set("x", forKey: "new")
        try file.synchronize()
        #expect(try dir.readPlistWithFoundation(path) == ["new": "x"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: moved[0])) == damaged)
    }

    @Test func sizeLimitRefusesWriteAndNotifiesOtherDomainsUnaffected() throws {
        let dir = TempDirectory()
        let env = dir.environment { $0.sizeLimit = 1000 }
        let log = EventLog(env)
        let big = env.persistentFile("big")
        let small = env.persistentFile("small")
        big.set("seed", forKey: "seed")
        try big.synchronize()
        big.set(.data(Data(count: 5000)), forKey: "blob")
        small.set("ok", forKey: "k")
        #expect(throws: PreferencesError.self) { try big.synchronize() }
        do { try big.synchronize() } catch let error as PreferencesError { #expect(error.kind == .sizeLimitExceeded) }
        try small.synchronize()
        #expect(log.events.contains { if case .sizeLimitExceeded(domain: "big", _, limit: 1000) = $0 { true } else { false } })
        // The file on disk still holds the last good state.
        #expect(try dir.readPlistWithFoundation(dir.locations.path(domain: "big")) == ["seed": "seed"])
        #expect(try dir.readPlistWithFoundation(dir.locations.path(domain: "small")) == ["k": "ok"])
        // Removing the oversized key lets the domain be written again.
        big.set(nil, forKey: "blob")
        try big.synchronize()
        #expect(try dir.readPlistWithFoundation(dir.locations.path(domain: "big")) == ["seed": "seed"])
    }

    @Test func externalChangeIsSeenAndReported() throws {
        let dir = TempDirectory()
        let env = dir.environment()
        let log = EventLog(env)
        let file = env.persistentFile("e")
        #expect(file.value(forKey: "k") == nil)
        try dir.writePlist(["k": "outside"], to: dir.locations.path(domain: "e"))
        #expect(file.snapshot(force: true)["k"] == "outside")
        #expect(log.events.contains(.didChange(domain: "e", keys: ["k"], external: true)))
    }

    @Test func emptyDomainDeletesFileAsFoundation() throws {
        let dir = TempDirectory()
        let file = dir.environment().persistentFile("gone")
        file.set("v", forKey: "k")
        try file.synchronize()
        file.set(nil, forKey: "k")
        try file.synchronize()
        #expect(!FileManager.default.fileExists(atPath: dir.locations.path(domain: "gone")))
    }

    @Test func backgroundFlushWritesWithoutSynchronize() async throws {
        let dir = TempDirectory()
        let env = dir.environment { $0.flushDelay = 0.05 }
        let file = env.persistentFile("bg")
        file.set("v", forKey: "k")
        let path = dir.locations.path(domain: "bg")
        var waited = 0
        while !FileManager.default.fileExists(atPath: path), waited < 250 {
            try await Task.sleep(for: .milliseconds(20))
            waited += 1
        }
        #expect(try dir.readPlistWithFoundation(path) == ["k": "v"])
    }

    /// A codec that reports `.unsupportedFormat` for binary files starting with "bplist00UNSUPPORTED" (as PlistKit
    /// does for a format whose reader is not in the build).
    struct PartialCodec: PreferencesCodec {
        func decode(_ bytes: [UInt8]) throws -> PlistValue {
            if bytes.starts(with: Array("bplist00UNSUPPORTED".utf8)) { throw PlistError(.unsupportedFormat, "not in this build") }
            return try TestCodec.current.decode(bytes)
        }
        func encode(_ value: PlistValue, format: PlistFormat) throws -> [UInt8] {
            try TestCodec.current.encode(value, format: format)
        }
    }

    @Test(arguments: ["unsupported format", "over read limit"])
    func unreadableFileIsNeitherMovedNorOverwritten(_ kind: String) throws {
        let dir = TempDirectory()
        let path = dir.locations.path(domain: "u")
        let original: Data
        if kind == "unsupported format" {
            original = Data("bplist00UNSUPPORTED but valuable".utf8)
            try FileManager.default.createDirectory(atPath: dir.locations.userDirectory, withIntermediateDirectories: true)
            try original.write(to: URL(fileURLWithPath: path))
        } else {
            try dir.writePlist(["big": .data(Data(count: 4000))], to: path)
            original = try Data(contentsOf: URL(fileURLWithPath: path))
        }
        let env = dir.environment { options in
            options.codec = PartialCodec()
            if kind == "over read limit" { options.readLimit = 1000 }
        }
        let file = env.persistentFile("u")
        #expect(file.snapshot().isEmpty)
        file.set("mine", forKey: "k")
        #expect(throws: PreferencesError.self) { try file.synchronize() }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
        let aside = try FileManager.default.contentsOfDirectory(atPath: dir.locations.userDirectory).filter { $0.contains("corrupt") }
        #expect(aside.isEmpty)
    }
}

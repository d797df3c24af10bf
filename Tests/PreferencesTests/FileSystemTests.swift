import Foundation
import PlistKit
import Testing
@testable import Preferences

/// The store's system calls: failures come back as `.io` errors carrying the `Errno`, missing files as nil.
@Suite struct FileSystemTests {
    @Test func readFileReadsTheBytesOrSaysWhyNot() throws {
        let dir = TempDirectory()
        let path = dir.path + "/f"
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let file = try #require(try FileSystem.readFile(path, limit: 1 << 20))
        #expect(file.bytes == bytes && file.stamp.size == 200_000)
        #expect(try FileSystem.readFile(dir.path + "/missing", limit: 10) == nil)
        #expect(try FileSystem.readFile(path + "/below-a-file", limit: 10) == nil)
        #expect(throws: PreferencesError.self) { try FileSystem.readFile(path, limit: 100) }
        do {
            _ = try FileSystem.readFile(dir.path, limit: 1 << 20)
            Issue.record("a directory was read")
        } catch let error as PreferencesError {
            #expect(error.kind == .io && error.systemError == .isDirectory)
            #expect(error.message == "read failed: \(Errno.isDirectory)")
        }
    }

    @Test func missingFilesAreNotErrors() throws {
        let dir = TempDirectory()
        #expect(try FileSystem.stamp(dir.path + "/missing") == nil)
        try FileSystem.remove(dir.path + "/missing")
        try FileSystem.remove(dir.path + "/missing/under")
        #expect(throws: PreferencesError.self) { try FileSystem.remove(dir.path) }
    }
}

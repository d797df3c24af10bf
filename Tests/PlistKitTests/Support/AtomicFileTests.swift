import Foundation
import Testing
import PlistKit
import TestSupport

/// `AtomicFile.replace` against the real kernel: a tmpfs that runs out of space or is read-only, real modes, owners
/// and links. Whatever fails, the old file is there byte for byte and no temporary file is left behind.
@Suite struct AtomicFileTests {
    static let noMount: Comment = "needs root and permission to mount a tmpfs"

    private func scratch() throws -> String {
        let dir = FileManager.default.temporaryDirectory.path + "/atomicfile-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    private func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { Array($0) }
    }

    private func mode(_ path: String) -> mode_t {
        var st = stat()
        return lstat(path, &st) == 0 ? st.st_mode : 0
    }

    @Test func replacesTheBytesAndKeepsTheOldMode() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/a.plist"
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o640)
        var before = stat()
        stat(path, &before)
        let st = try AtomicFile.replace(path, with: Array("new bytes".utf8))
        #expect(contents(path) == Array("new bytes".utf8))
        #expect(mode(path) & 0o7777 == 0o640)
        #expect(st.st_size == 9)
        var after = stat()
        stat(path, &after)
        #expect(after.st_ino == st.st_ino, "the returned stat describes the file now at the path")
        #expect(after.st_ino != before.st_ino, "a new file was renamed over the old one, not the old one rewritten")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["a.plist"])
    }

    @Test func aNewFileGetsTheRequestedModeAndMissingDirectoriesOnlyWhenAsked() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var options = AtomicFile.Options()
        options.newFileMode = 0o600
        do {
            try AtomicFile.replace(dir + "/x/y/z.plist", with: [1], options: options)
            Issue.record("wrote into a missing directory without createsDirectories")
        } catch {
            #expect(error.code == ENOENT)
        }
        #expect(!FileManager.default.fileExists(atPath: dir + "/x"))
        options.createsDirectories = true
        try AtomicFile.replace(dir + "/x/y/z.plist", with: [1, 2], options: options)
        #expect(contents(dir + "/x/y/z.plist") == [1, 2])
        #expect(mode(dir + "/x/y/z.plist") & 0o777 == 0o600)
    }

    /// This process's umask, from /proc (reading it with umask(2) would change it for every thread meanwhile).
    static let umask: mode_t? = {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }) else { return nil }
        return mode_t(line.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8)
    }()

    @Test(.enabled(if: (umask ?? 0) & 0o022 != 0, "needs a umask that clears group or other write bits"))
    func anExactModeIsNotNarrowedByTheUmask() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var options = AtomicFile.Options()
        options.newFileMode = 0o666
        try AtomicFile.replace(dir + "/umasked", with: [1], options: options)
        #expect(mode(dir + "/umasked") & 0o777 == 0o666 & ~(Self.umask ?? 0))
        options.appliesUmask = false
        try AtomicFile.replace(dir + "/exact", with: [1], options: options)
        #expect(mode(dir + "/exact") & 0o777 == 0o666)
    }

    @Test func aNameNearTheLengthLimitCanBeReplaced() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/" + String(repeating: "n", count: 250)  // NAME_MAX is 255: "." + name + "." + 8 would not fit
        try AtomicFile.replace(path, with: [1])
        try AtomicFile.replace(path, with: [2])
        #expect(contents(path) == [2])
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).count == 1)
    }

    @Test func aLinkAtThePathIsReplacedAndItsTargetLeftAlone() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("target".utf8).write(to: URL(fileURLWithPath: dir + "/target"))
        symlink(dir + "/target", dir + "/link")
        try AtomicFile.replace(dir + "/link", with: Array("new".utf8))
        #expect(mode(dir + "/link") & S_IFMT == S_IFREG)
        #expect(contents(dir + "/link") == Array("new".utf8))
        #expect(contents(dir + "/target") == Array("target".utf8))
    }

    @Test func writingFollowingLinksReplacesTheTargetAndKeepsTheLink() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("old".utf8).write(to: URL(fileURLWithPath: dir + "/target"))
        var before = stat()
        stat(dir + "/target", &before)
        symlink("target", dir + "/link")
        try AtomicFile.writeFollowingLinks(dir + "/link", with: Array("new".utf8))
        #expect(mode(dir + "/link") & S_IFMT == S_IFLNK)
        #expect(contents(dir + "/target") == Array("new".utf8))
        var after = stat()
        stat(dir + "/target", &after)
        #expect(after.st_ino != before.st_ino, "the target was replaced by rename, not rewritten in place")
        // A dangling link: its target is created.
        symlink("missing", dir + "/dangling")
        try AtomicFile.writeFollowingLinks(dir + "/dangling", with: [7])
        #expect(contents(dir + "/missing") == [7])
        #expect(mode(dir + "/dangling") & S_IFMT == S_IFLNK)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["dangling", "link", "missing", "target"])
    }

    @Test func relativeChainsAreFollowedAndLoopsRefused() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for sub in ["x", "y"] { try FileManager.default.createDirectory(atPath: dir + "/" + sub, withIntermediateDirectories: true) }
        try Data("old".utf8).write(to: URL(fileURLWithPath: dir + "/file"))
        symlink("../y/b", dir + "/x/a")
        symlink("../file", dir + "/y/b")
        try AtomicFile.writeFollowingLinks(dir + "/x/a", with: [1, 2])
        #expect(contents(dir + "/file") == [1, 2])
        #expect(mode(dir + "/x/a") & S_IFMT == S_IFLNK && mode(dir + "/y/b") & S_IFMT == S_IFLNK)

        // A loop, and a chain longer than the kernel follows: ELOOP, and every link left as it was.
        symlink("q", dir + "/p")
        symlink("p", dir + "/q")
        for i in 0..<45 { symlink("c\(i + 1)", dir + "/c\(i)") }
        try Data("end".utf8).write(to: URL(fileURLWithPath: dir + "/c45"))
        for name in ["p", "c0"] {
            do {
                try AtomicFile.writeFollowingLinks(dir + "/" + name, with: [9])
                Issue.record("wrote through \(name)")
            } catch {
                #expect(error.code == ELOOP, "\(error)")
            }
        }
        #expect(mode(dir + "/p") & S_IFMT == S_IFLNK && mode(dir + "/q") & S_IFMT == S_IFLNK)
        #expect((0..<45).allSatisfy { mode(dir + "/c\($0)") & S_IFMT == S_IFLNK })
        #expect(contents(dir + "/c45") == Array("end".utf8))
    }

    @Test func aFileReachedThroughProcIsReplacedNotAppendedTo() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("old contents".utf8).write(to: URL(fileURLWithPath: dir + "/f"))
        // /proc/self/root leads back to "/": a file like any other, though the path starts in /proc.
        try AtomicFile.writeFollowingLinks("/proc/self/root" + dir + "/f", with: Array("new".utf8))
        #expect(contents(dir + "/f") == Array("new".utf8))
    }

    @Test(.enabled(if: geteuid() == 0, "changing a file's owner needs root"))
    func anotherUsersFileKeepsItsOwner() throws {
        let dir = try scratch()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/owned"
        try Data("old".utf8).write(to: URL(fileURLWithPath: path))
        #expect(chown(path, 65534, 65534) == 0)
        try AtomicFile.replace(path, with: [9])
        var st = stat()
        stat(path, &st)
        #expect(st.st_uid == 65534 && st.st_gid == 65534)
    }

    @Test(.enabled(if: TinyFilesystem.isAvailable, noMount))
    func aFullDiskLeavesTheOldFileAndNoTemporaryFile() throws {
        let fs = try TinyFilesystem()
        let path = fs.p("domain.plist")
        let old = [UInt8](repeating: 0x6F, count: 3000)
        try AtomicFile.replace(path, with: old)
        let freed = fs.fill()
        #expect(freed > 0)
        let new = [UInt8](repeating: 0x6E, count: 20_000)
        do {
            try AtomicFile.replace(path, with: new)
            Issue.record("a write to a full filesystem succeeded")
        } catch {
            #expect(error.code == ENOSPC, "\(error)")
            #expect(error.description.contains("No space left on device"))
        }
        #expect(contents(path) == old)
        #expect(fs.entries() == ["domain.plist"])
        fs.release()
        try AtomicFile.replace(path, with: new)
        #expect(contents(path) == new)
        #expect(fs.entries() == ["domain.plist"])
    }

    @Test(.enabled(if: TinyFilesystem.isAvailable, noMount))
    func aReadOnlyFilesystemIsReportedAndTheFileKept() throws {
        let fs = try TinyFilesystem()
        let path = fs.p("domain.plist")
        try AtomicFile.replace(path, with: [1, 2, 3])
        try fs.makeReadOnly()
        do {
            try AtomicFile.replace(path, with: [4])
            Issue.record("a write to a read-only filesystem succeeded")
        } catch {
            #expect(error.code == EROFS, "\(error)")
        }
        #expect(contents(path) == [1, 2, 3])
    }
}

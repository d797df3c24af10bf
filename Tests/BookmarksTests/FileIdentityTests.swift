import Foundation
import Testing
@testable import Bookmarks

/// File identity through the CSystem wrappers on the real filesystem (name_to_handle_at(2): handles survive renames,
/// change with atomic saves, and carry the generation so a reused inode number does not compare equal).
@Suite struct FileIdentityTests {
    @Test func handleSurvivesRenameAndChangesWithAtomicSave() throws {
        let s = Scratch()
        let a = try FileIdentity.read(path: s.file("a.txt"))
        try s.move("a.txt", "b.txt")
        let b = try FileIdentity.read(path: s.p("b.txt"))
        var st = stat()
        lstat(s.p("b.txt"), &st)
        #expect(b.inode == UInt64(st.st_ino), "statx agrees with lstat")
        #expect(b.kind == .regular)
        #expect(b.matches(a) == (a.handle != nil ? .strong : a.birthTimeNanoseconds != nil ? .medium : .weak))
        s.file("tmp", "new")
        try s.move("tmp", "b.txt")
        let c = try FileIdentity.read(path: s.p("b.txt"))
        #expect(c.matches(a) == nil)
    }

    @Test func inodeReuseIsNotTheSameFile() throws {
        let s = Scratch()
        var identities: [FileIdentity] = []
        for _ in 0..<5 {
            identities.append(try FileIdentity.read(path: s.file("t")))
            unlink(s.p("t"))
        }
        for i in 1..<identities.count where identities[i].inode == identities[0].inode {
            // Same inode number (ext4 reuses at once): the handle or birth time must still tell them apart.
            #expect(identities[i].matches(identities[0]) == nil, "reused inode \(identities[i].inode) matched")
        }
    }

    @Test func descriptorIdentityEqualsPathIdentity() throws {
        let s = Scratch()
        let path = s.file("f")
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        #expect(try FileIdentity.read(descriptor: fd).matches(try FileIdentity.read(path: path)) != nil)
    }

    @Test func kindComesFromTheMode() throws {
        let s = Scratch()
        #expect(try FileIdentity.read(path: s.dir("d")).kind == .directory)
        #expect(symlink("d", s.p("l")) == 0)
        #expect(try FileIdentity.read(path: s.p("l")).kind == .symlink, "a final symlink is not followed")
    }
}

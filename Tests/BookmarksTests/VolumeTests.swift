import Foundation
import Testing
@testable import Bookmarks

/// Scenarios that need mounts: tmpfs mounted in a scratch directory (root only; CI runs as root).
@Suite(.serialized, .enabled(if: Shell.canMount, "needs root and permission to mount tmpfs"))
struct VolumeTests {
    @Test func volumeMovedToAnotherMountPointIsFollowed() throws {
        let s = Scratch()
        #expect(s.mountTmpfs("m1"))
        let path = s.file("m1/dir/target.txt")
        let data = try Bookmark.create(path: path)
        let record = try BookmarkRecord(container: try BookContainer.read(data))
        #expect(record.volume?.mountPoint == s.p("m1"))
        #expect(record.volume?.fsType == "tmpfs")
        s.dir("m2")
        let r = try Shell.run("/bin/mount", ["--move", s.p("m1"), s.p("m2")])
        try #require(r.status == 0, "mount --move: \(r.stderr)")
        s.mounts = [s.p("m2")]
        let res = try Bookmark.resolve(data)
        #expect(res.path == s.p("m2/dir/target.txt") && res.isStale && res.reason == .volumeMoved)
        #expect(res.confidence == .strong)
    }

    @Test func bookmarkOfTheMountRootItselfFollowsTheMove() throws {
        let s = Scratch()
        #expect(s.mountTmpfs("m1"))
        let data = try Bookmark.create(path: s.p("m1"))
        s.dir("m2")
        let r = try Shell.run("/bin/mount", ["--move", s.p("m1"), s.p("m2")])
        try #require(r.status == 0, "mount --move: \(r.stderr)")
        s.mounts = [s.p("m2")]
        let res = try Bookmark.resolve(data)
        #expect(res.path == s.p("m2") && res.reason == .volumeMoved && res.confidence == .strong)
    }

    @Test func unmountedVolumeIsReported() throws {
        let s = Scratch()
        #expect(s.mountTmpfs("m"))
        let path = s.file("m/target.txt")
        let data = try Bookmark.create(path: path)
        _ = try Shell.run("/bin/umount", [s.p("m")])
        s.mounts = []
        let outcome = Result { try Bookmark.resolve(data) }
        if case .failure(let e) = outcome, case .volumeNotMounted(_, let last)? = e as? BookmarkError {
            #expect(last == path)
        } else {
            Issue.record("expected volumeNotMounted, got \(outcome)")
        }
        // A new tmpfs at the same mount point is a different volume (its UUID differs): still not mounted.
        #expect(s.mountTmpfs("m"))
        s.file("m/target.txt")
        #expect(throws: BookmarkError.self) { try Bookmark.resolve(data) }
    }

    @Test func moveToAnotherFilesystemIsNotFound() throws {
        let s = Scratch()
        #expect(s.mountTmpfs("other"))
        let path = s.file("home/doc.txt", "data")
        let data = try Bookmark.create(path: path)
        // A cross-filesystem mv is copy + delete: the identity does not survive.
        let r = try Shell.run("/bin/mv", [path, s.p("other/doc.txt")])
        try #require(r.status == 0)
        #expect(throws: BookmarkError.fileNotFound(lastKnownPath: path)) {
            var o = BookmarkResolveOptions()
            o.budget.maxLevelsUp = 1   // stay inside the scratch tree
            _ = try Bookmark.resolve(data, options: o)
        }
    }

    @Test func searchDoesNotCrossIntoAnotherMount() throws {
        let s = Scratch()
        let path = s.file("a/x/target.txt")
        let data = try Bookmark.create(path: path)
        // Move the target out of the search area, then bind-mount its new directory inside the search area:
        // same filesystem and st_dev, but another mount (different mount id) — the search must not enter it.
        s.dir("b")
        try s.move("a/x/target.txt", "b/target.txt")
        s.dir("a/x/mnt")
        let r = try Shell.run("/bin/mount", ["--bind", s.p("b"), s.p("a/x/mnt")])
        try #require(r.status == 0)
        s.mounts.append(s.p("a/x/mnt"))
        #expect(FileManager.default.fileExists(atPath: s.p("a/x/mnt/target.txt")))
        var o = BookmarkResolveOptions()
        o.budget.maxLevelsUp = 0
        #expect(throws: BookmarkError.fileNotFound(lastKnownPath: path)) { try Bookmark.resolve(data, options: o) }
        o.budget.maxLevelsUp = 2   // widening to the scratch root reaches b/ on the original mount
        let res = try Bookmark.resolve(data, options: o)
        #expect(res.path == s.p("b/target.txt") && res.reason == .moved)
    }

    /// overlayfs cannot export decodable handles by default: the handle comes from AT_HANDLE_FID, survives a
    /// rename and a copy-up (name_to_handle_at(2); the kernel's overlayfs documentation), while the birth time
    /// changes on copy-up.
    @Test func overlayfsUsesFIDHandlesThroughRenameAndCopyUp() throws {
        let s = Scratch()
        s.file("lower/dir/file.txt", "lower")
        s.dir("upper"); s.dir("work"); s.dir("merged")
        let r = try Shell.run("/bin/mount", ["-t", "overlay", "overlay", "-o",
                                             "lowerdir=\(s.p("lower")),upperdir=\(s.p("upper")),workdir=\(s.p("work"))", s.p("merged")])
        try #require(r.status == 0, "overlay mount: \(r.stderr)")
        s.mounts = [s.p("merged")]
        let data = try Bookmark.create(path: s.p("merged/dir/file.txt"))
        let record = try BookmarkRecord(container: try BookContainer.read(data))
        let handle = try #require(record.handle, "overlayfs gives a handle (AT_HANDLE_FID on kernels that have it)")
        #expect(handle.isFID, "default overlayfs cannot export handles, so the FID fallback was used")
        // Copy-up: writing the lower file through the merged view.
        let fd = open(s.p("merged/dir/file.txt"), O_WRONLY | O_APPEND)
        try #require(fd >= 0)
        _ = write(fd, "x", 1)
        close(fd)
        try s.move("merged/dir/file.txt", "merged/dir/renamed.txt")
        let res = try Bookmark.resolve(data)
        #expect(res.path == s.p("merged/dir/renamed.txt") && res.reason == .moved && res.confidence == .strong)
    }

    /// A filesystem made on a loop image: the mkfs options and the smallest image it accepts (xfsprogs refuses
    /// less than 300 MiB; the image is sparse, so little of it is written).
    struct ImageFilesystem: Sendable {
        var type: String
        var mkfsArguments: [String]
        var size: Int64
        var mkfs: String? { Shell.find("mkfs.\(type)") }

        static let ext4 = ImageFilesystem(type: "ext4", mkfsArguments: ["-q", "-F"], size: 16 << 20)
        static let xfs = ImageFilesystem(type: "xfs", mkfsArguments: ["-q", "-f"], size: 320 << 20)
        static let btrfs = ImageFilesystem(type: "btrfs", mkfsArguments: ["-q", "-f"], size: 128 << 20)

        /// A loop device, the mkfs tool, and the kernel's support for the filesystem.
        var available: Bool { Shell.canLoopMount && mkfs != nil && Self.kernelFilesystems.contains(type) }

        static let kernelFilesystems: Set<String> = {
            guard let text = try? String(contentsOfFile: "/proc/filesystems", encoding: .utf8) else { return [] }
            return Set(text.split(separator: "\n").compactMap { $0.split(separator: "\t").last.map(String.init) })
        }()
    }

    @Test(.enabled(if: ImageFilesystem.ext4.available, "needs mkfs.ext4 (e2fsprogs), ext4 and a free loop device"))
    func ext4ImageRemountedElsewhereIsFollowed() throws { try imageRemountedElsewhereIsFollowed(.ext4) }

    @Test(.enabled(if: ImageFilesystem.xfs.available, "needs mkfs.xfs (xfsprogs), xfs and a free loop device"))
    func xfsImageRemountedElsewhereIsFollowed() throws { try imageRemountedElsewhereIsFollowed(.xfs) }

    @Test(.enabled(if: ImageFilesystem.btrfs.available, "needs mkfs.btrfs (btrfs-progs), btrfs and a free loop device"))
    func btrfsImageRemountedElsewhereIsFollowed() throws { try imageRemountedElsewhereIsFollowed(.btrfs) }

    /// A file renamed on an image, then the image unmounted and mounted again elsewhere (a new loop device, so a new
    /// st_dev): the FS UUID identifies the volume (ext4 and xfs answer FS_IOC_GETFSUUID, btrfs its own
    /// BTRFS_IOC_FS_INFO) and is the one blkid reports, the handle identifies the file, and the path is rebased.
    func imageRemountedElsewhereIsFollowed(_ fs: ImageFilesystem) throws {
        let mkfs = try #require(fs.mkfs)
        let s = Scratch()
        let image = s.p("fs.img")
        #expect(FileManager.default.createFile(atPath: image, contents: nil))
        try #require(truncate(image, off_t(fs.size)) == 0)
        let mk = try Shell.run(mkfs, fs.mkfsArguments + [image])
        try #require(mk.status == 0, "mkfs.\(fs.type): \(mk.stderr)")
        s.dir("m1")
        let m1 = try Shell.run("/bin/mount", ["-o", "loop", image, s.p("m1")])
        try #require(m1.status == 0, "loop mount not possible here: \(m1.stderr)")
        s.mounts = [s.p("m1")]
        let path = s.file("m1/dir/target.txt")
        let data = try Bookmark.create(path: path)
        let record = try BookmarkRecord(container: try BookContainer.read(data))
        #expect(record.volume?.fsType == fs.type)
        let uuid = try #require(record.volume?.uuid, "\(fs.type) reports its UUID")
        // The UUID blkid reports for the image is the one recorded.
        if let blkid = Shell.find("blkid") {
            let r = try Shell.run(blkid, ["-s", "UUID", "-o", "value", image])
            #expect(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines).uppercased() == uuid)
        }
        try s.move("m1/dir/target.txt", "m1/dir/renamed.txt")
        let inPlace = try Bookmark.resolve(data)
        #expect(inPlace.path == s.p("m1/dir/renamed.txt") && inPlace.reason == .moved && inPlace.confidence == .strong)
        try s.move("m1/dir/renamed.txt", "m1/dir/target.txt")
        _ = try Shell.run("/bin/umount", [s.p("m1")])
        s.mounts = []
        // Hold another loop device so the image gets a different one (and a different st_dev).
        let spare = s.p("spare.img")
        _ = FileManager.default.createFile(atPath: spare, contents: nil)
        _ = truncate(spare, 1 << 20)
        let losetup = try #require(Shell.find("losetup"), "canLoopMount found it")
        let hold = try Shell.run(losetup, ["-f", "--show", spare])
        defer { if hold.status == 0 { _ = try? Shell.run(losetup, ["-d", hold.stdout.trimmingCharacters(in: .whitespacesAndNewlines)]) } }
        s.dir("m2")
        let m2 = try Shell.run("/bin/mount", ["-o", "loop", image, s.p("m2")])
        try #require(m2.status == 0, "\(m2.stderr)")
        s.mounts = [s.p("m2")]
        let remounted = try Bookmark.resolve(data)
        #expect(remounted.path == s.p("m2/dir/target.txt") && remounted.isStale && remounted.reason == .volumeMoved)
        #expect(remounted.confidence == .strong)
    }
}

/// Parsing of /proc/self/mountinfo lines (format: proc(5); octal escapes for space, tab, newline, backslash).
@Suite struct MountTableTests {
    @Test func parsesTheProcManPageExampleAndEscapes() {
        let text = """
        36 35 98:0 /mnt1 /mnt2 rw,noatime master:1 - ext3 /dev/root rw,errors=continue
        37 1 0:40 / /media/my\\040disk rw shared:2 - tmpfs none rw
        bad line
        """
        let t = MountEntry.parse(text)
        #expect(t.count == 2)
        #expect(t.first == MountEntry(mountID: 36, parentID: 35, root: "/mnt1", mountPoint: "/mnt2", fsType: "ext3", source: "/dev/root"))
        #expect(t.last?.mountPoint == "/media/my disk")
        #expect(MountEntry.parse(bytes: Array(text.utf8), only: 37).map(\.fsType) == ["tmpfs"])
    }

    /// statmount(2) answers what mountinfo says for the same mount (the kernel's own table is the oracle).
    @Test func statmountAgreesWithMountinfo() throws {
        let s = Scratch()
        let path = s.file("f")
        guard let viaStatmount = MountEntry.viaStatmount(path: Array(path.utf8)) else {
            return   // kernel without statmount (< 6.8): the mountinfo path is used, covered by the other tests
        }
        var sx = stat()
        lstat(path, &sx)
        let id = try FileIdentity.read(path: path)
        let fromTable = try #require(MountEntry.current().last { $0.mountID == id.mountID })
        #expect(viaStatmount == fromTable)
    }

    @Test func currentTableHasTheRootMount() {
        #expect(MountEntry.current().contains { $0.mountPoint == "/" })
    }
}

import Foundation
@testable import Bookmarks
import TestSupport

/// A temporary directory on the real filesystem, removed (after unmounting anything mounted in it) on deinit.
final class Scratch: @unchecked Sendable {
    let path: String
    var mounts: [String] = []

    init(mode: Int = 0o755) {
        var template = Array((NSTemporaryDirectory() + "bookmarks-test-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = made.map { String(cString: $0) } ?? NSTemporaryDirectory() + "bookmarks-test-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        chmod(path, mode_t(mode))
    }

    deinit {
        for m in mounts.reversed() { _ = try? Shell.run("/bin/umount", ["-l", m]) }
        try? FileManager.default.removeItem(atPath: path)
    }

    func p(_ relative: String) -> String { path + "/" + relative }

    @discardableResult
    func file(_ relative: String, _ content: String = "x") -> String {
        let full = p(relative)
        try? FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: full, contents: Data(content.utf8))
        return full
    }

    @discardableResult
    func dir(_ relative: String) -> String {
        try? FileManager.default.createDirectory(atPath: p(relative), withIntermediateDirectories: true)
        return p(relative)
    }

    func move(_ from: String, _ to: String) throws {
        try FileManager.default.createDirectory(atPath: (p(to) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        guard rename(p(from), p(to)) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    func read(_ relative: String) -> String? {
        FileManager.default.contents(atPath: p(relative)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Mounts a fresh tmpfs at `relative` (root only); false when mounting is impossible here.
    func mountTmpfs(_ relative: String) -> Bool {
        let target = dir(relative)
        guard let r = try? Shell.run("/bin/mount", ["-t", "tmpfs", "-o", "size=8m", "none", target]), r.status == 0 else { return false }
        mounts.append(target)
        return true
    }
}

/// Runs real processes for tests (through `ExternalTool`, which drains stdout and stderr together).
enum Shell {
    struct Result { var status: Int32; var stdout: String; var stderr: String }

    /// Runs `executable` to completion with empty stdin; its output as text.
    static func run(_ executable: String, _ arguments: [String]) throws -> Result {
        let r = try ExternalTool.run(executable, arguments)
        return Result(status: r.status, stdout: String(decoding: r.stdout, as: UTF8.self),
                      stderr: String(decoding: r.stderr, as: UTF8.self))
    }

    /// `name` on PATH, else in the sbin directories: `losetup`, `mkfs.ext4` and `mount` live there, and a non-root
    /// PATH often leaves them out.
    static func find(_ name: String) -> String? {
        ExternalTool.find(name, extraDirectories: ["/usr/sbin", "/sbin"])
    }

    static var isRoot: Bool { geteuid() == 0 }

    /// Whether this process can mount a tmpfs (root with CAP_SYS_ADMIN, not in a locked-down container).
    static let canMount: Bool = {
        guard isRoot else { return false }
        let s = Scratch()
        return s.mountTmpfs("probe")
    }()

    /// Whether a loop device is available for mounting filesystem images (needs root and /dev/loop-control).
    static let canLoopMount: Bool = {
        guard canMount, let losetup = find("losetup"),
              let r = try? run(losetup, ["-f"]) else { return false }
        return r.status == 0 && r.stdout.hasPrefix("/dev/loop")
    }()

    /// The built `bookmark` executable next to the test bundle.
    static var bookmarkTool: String? {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("bookmark").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }
}

/// The Apple fixtures, relative to the package root; nil when `../shared` is absent.
enum Fixtures {
    static let directory: String? = {
        var dir = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { dir = dir.deletingLastPathComponent() }  // Support → BookmarksTests → Tests → package root
        // `../shared` beside the package root (a worktree one level deeper finds it at `../../shared`).
        for up in ["../", "../../"] {
            let fixtures = dir.appendingPathComponent(up + "shared/fixtures/apple-bookmarks").standardized.path
            if FileManager.default.fileExists(atPath: fixtures + "/downloads.bookmark") { return fixtures }
        }
        return nil
    }()

    static func bytes(_ name: String) -> [UInt8]? {
        guard let d = directory, let data = FileManager.default.contents(atPath: d + "/" + name) else { return nil }
        return Array(data)
    }

    static let names = ["downloads", "loginitem", "macAlias", "poisonapple", "systemevents", "ventura"]
}

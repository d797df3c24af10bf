import Foundation
import PlistKit
import Testing
import TestSupport

/// `scripts/install`: a real install into a temporary prefix (release build, static Swift runtime) whose `plutil`
/// then runs with the toolchain gone from PATH and LD_LIBRARY_PATH, and whose uninstall removes exactly what it
/// put there; and the refusals (an unwritable prefix, a file it did not install, a failed build), after which the
/// prefix is as it was.
@Suite struct InstallTests {
    static let script = Shipping.path("scripts/install")
    static let swift = ExternalTool.find("swift")
    static let swiftMissing: Comment = "scripts/install builds with swift, which is not on PATH"

    /// The files an install puts under the prefix.
    static let installed: [String] = Shipping.tools.flatMap { tool in
        ["bin/\(tool)", "share/man/man1/\(tool).1", "share/bash-completion/completions/\(tool)",
         "share/zsh/site-functions/_\(tool)"]
    }

    static func scratch(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("install-\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs scripts/install with this process's environment plus `extra`.
    static func install(_ arguments: [String], extra: [String: String] = [:]) throws -> (status: Int32, out: String, err: String) {
        var environment = ProcessInfo.processInfo.environment
        environment.merge(extra) { $1 }
        return try Shipping.run("/bin/bash", [script] + arguments, environment: environment)
    }

    /// Every path under `root`, relative, sorted (what "nothing changed" compares).
    static func listing(_ root: URL) -> [String] {
        (FileManager.default.subpaths(atPath: root.path) ?? []).sorted()
    }

    /// PATH without the directories that hold the Swift toolchain (any with a `swift` in it), and without
    /// LD_LIBRARY_PATH.
    static func environmentWithoutToolchain(home: URL) -> [String: String] {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":").map(String.init)
            .filter { !FileManager.default.isExecutableFile(atPath: $0 + "/swift") && !$0.contains("swift") }
        return ["PATH": path.joined(separator: ":"), "HOME": home.path, "XDG_CONFIG_HOME": home.path + "/config",
                "PREFERENCES_HOST_ID": "test", "LANG": "C.UTF-8"]
    }

    @Test(.enabled(if: swift != nil, swiftMissing), .timeLimit(.minutes(30)))
    func installsToolsThatRunWithoutTheToolchainAndUninstallsThem() throws {
        let base = try Self.scratch("full")
        defer { try? FileManager.default.removeItem(at: base) }
        // A prefix with a space in it, not there yet.
        let prefix = base.appendingPathComponent("the prefix")
        let first = try Self.install(["--prefix", prefix.path])
        #expect(first.status == 0, "\(first.err)")
        #expect(first.out.contains("installed PlistKit \(PlistKit.version) under \(prefix.path):"))

        // The manifest lists every file with its SHA-256; nothing else is there but it and the folders.
        let manifest = try String(contentsOf: prefix.appendingPathComponent("share/plistkit/install-manifest"), encoding: .utf8)
        let entries = manifest.split(separator: "\n").filter { $0.count > 66 && !$0.hasPrefix("#") && !$0.hasPrefix("directory") }
        #expect(entries.map { String($0.dropFirst(66)) } == Self.installed)
        for entry in entries {
            let path = prefix.appendingPathComponent(String(entry.dropFirst(66))).path
            let sum = try Shipping.run("/usr/bin/sha256sum", [path], environment: [:])
            #expect(sum.out.hasPrefix(entry.prefix(64)), "\(entry)")
        }
        let files = Self.listing(prefix).filter { !FileManager.default.isDirectory(prefix.appendingPathComponent($0).path) }
        #expect(files == (Self.installed + ["share/plistkit/install-manifest"]).sorted())

        // The installed plutil, with no Swift toolchain to be found.
        let home = base.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let environment = Self.environmentWithoutToolchain(home: home)
        #expect(environment["LD_LIBRARY_PATH"] == nil && !(environment["PATH"]!.contains("swift")))
        let plutil = prefix.appendingPathComponent("bin/plutil").path
        let small = base.appendingPathComponent("small.plist")
        try Data(#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>a</key><array><integer>1</integer><string>b</string></array></dict></plist>"#.utf8).write(to: small)
        let lint = try Shipping.run(plutil, ["-lint", small.path], environment: environment)
        #expect(lint.status == 0 && lint.out == "\(small.path): OK\n" && lint.err.isEmpty, "\(lint)")
        let json = try Shipping.run(plutil, ["-convert", "json", "-r", "-o", "-", small.path], environment: environment)
        let inProcess = RecordingIO()
        #expect(PlutilCommand.run(["-convert", "json", "-r", "-o", "-", small.path], io: inProcess.io) == 0)
        #expect(json.status == 0 && json.out == inProcess.outputText, "\(json)")
        for tool in Shipping.tools {
            let version = try Shipping.run(prefix.appendingPathComponent("bin/\(tool)").path, ["--version"], environment: environment)
            #expect(version.status == 0 && version.out == "\(tool) (PlistKit) \(PlistKit.version)\n", "\(version)")
        }
        let defaults = prefix.appendingPathComponent("bin/defaults").path
        #expect(try Shipping.run(defaults, ["write", "com.example.installed", "k", "-int", "5"], environment: environment).status == 0)
        #expect(try Shipping.run(defaults, ["read", "com.example.installed", "k"], environment: environment).out == "5\n")
        // Linked against no Swift library: the runtime and Foundation are inside the binaries.
        if let ldd = ExternalTool.find("ldd") {
            for tool in Shipping.tools {
                let libraries = try Shipping.run(ldd, [prefix.appendingPathComponent("bin/\(tool)").path], environment: [:])
                #expect(libraries.status == 0 && !libraries.out.contains("libswift") && !libraries.out.contains("Foundation")
                        && !libraries.out.contains("not found"), "\(tool): \(libraries.out)")
            }
        }
        // Where the kernel lets this process make a mount namespace, the toolchain is hidden altogether.
        if let unshare = ExternalTool.find("unshare"), let swift = Self.swift, getuid() == 0,
           (try? Shipping.run(unshare, ["-m", "/bin/true"], environment: [:]).status) == 0 {
            let toolchain = URL(fileURLWithPath: swift).resolvingSymlinksInPath().deletingLastPathComponent()
                .deletingLastPathComponent().path
            let hidden = try Shipping.run(
                unshare, ["-m", "/bin/sh", "-c", #"mount -t tmpfs none "$1" && test ! -e "$1/bin/swift" && exec "$2" -lint "$3""#,
                          "sh", toolchain, plutil, small.path], environment: environment)
            #expect(hidden.status == 0 && hidden.out == "\(small.path): OK\n", "\(hidden)")
        }

        // The installed page renders with the version; the installed completion completes.
        if let man = ExternalTool.find("man") {
            let page = try Shipping.run(man, ["-l", prefix.appendingPathComponent("share/man/man1/plutil.1").path],
                                        environment: ["PATH": "/usr/bin:/bin", "MANPAGER": "cat", "MANWIDTH": "100"])
            #expect(page.status == 0 && page.out.contains("PlistKit \(PlistKit.version)"), "\(page.err)")
        }
        let completion = try Shipping.run(
            "/bin/bash", ["--norc", "-c", #"source "$1"; COMP_WORDS=(plutil -conv); COMP_CWORD=1; _plutil; echo "${COMPREPLY[*]}""#,
                          "bash", prefix.appendingPathComponent("share/bash-completion/completions/plutil").path],
            environment: environment)
        #expect(completion.out == "-convert\n", "\(completion)")

        // Installing again replaces its own files; a file of someone else's beside them is kept by the uninstall,
        // and so is the folder holding it; a file changed since the install is left and reported.
        let again = try Self.install(["--prefix", prefix.path])
        #expect(again.status == 0, "\(again.err)")
        try Data("mine".utf8).write(to: prefix.appendingPathComponent("bin/mine"))
        let uninstall = try Self.install(["--prefix", prefix.path, "--uninstall"])
        #expect(uninstall.status == 0, "\(uninstall.err)")
        #expect(Self.listing(prefix) == ["bin", "bin/mine"])
        try FileManager.default.removeItem(at: prefix.appendingPathComponent("bin/mine"))

        let third = try Self.install(["--prefix", prefix.path])
        #expect(third.status == 0, "\(third.err)")
        try Data("edited".utf8).write(to: prefix.appendingPathComponent("share/man/man1/defaults.1"))
        let partial = try Self.install(["--prefix", prefix.path, "--uninstall"])
        #expect(partial.status == 1 && partial.err.contains("defaults.1 changed since it was installed; left in place"))
        // bin/ was there before this install (the first uninstall kept it for bin/mine), so it stays.
        #expect(Self.listing(prefix) == ["bin", "share", "share/man", "share/man/man1", "share/man/man1/defaults.1"])
        let none = try Self.install(["--prefix", prefix.path, "--uninstall"])
        #expect(none.status == 1 && none.err.contains("no PlistKit install under \(prefix.path)"))
    }

    @Test func refusesToOverwriteAFileItDidNotInstall() throws {
        let prefix = try Self.scratch("foreign")
        defer { try? FileManager.default.removeItem(at: prefix) }
        try FileManager.default.createDirectory(at: prefix.appendingPathComponent("share/man/man1"), withIntermediateDirectories: true)
        let foreign = prefix.appendingPathComponent("share/man/man1/plutil.1")
        try Data("someone else's page".utf8).write(to: foreign)
        let before = Self.listing(prefix)
        // SWIFT=false: were the check to come after the build, the build would fail instead.
        let result = try Self.install(["--prefix", prefix.path], extra: ["SWIFT": "false"])
        #expect(result.status == 1)
        #expect(result.err.contains("\(foreign.path) already exists and was not installed by scripts/install"), "\(result.err)")
        #expect(Self.listing(prefix) == before)
        #expect(try String(contentsOf: foreign, encoding: .utf8) == "someone else's page")
    }

    @Test func refusesAPrefixItCannotWrite() throws {
        let base = try Self.scratch("unwritable")
        defer { try? FileManager.default.removeItem(at: base) }
        let file = base.appendingPathComponent("a-file")
        try Data().write(to: file)
        let underFile = try Self.install(["--prefix", file.path + "/prefix"], extra: ["SWIFT": "false"])
        #expect(underFile.status == 1 && underFile.err.contains("\(file.path) is not a directory"), "\(underFile.err)")
        let locked = base.appendingPathComponent("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: base.path)
        let result: (status: Int32, out: String, err: String)
        if getuid() == 0 {
            // Root writes anywhere: the refusal is seen as another user, for whom a root-owned 0755 folder is closed.
            guard let setpriv = ExternalTool.find("setpriv") else {
                Issue.record("setpriv (util-linux, installed by scripts/setup) runs the check as nobody")
                return
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: locked.path)
            // The checkout may sit in a folder nobody cannot enter (a mktemp -d clone is 0700): the script runs from a
            // copy beside the locked folder (the refusal comes before it looks at the checkout).
            let copy = base.appendingPathComponent("scripts/install")
            try FileManager.default.createDirectory(at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: Self.script, toPath: copy.path)
            result = try Shipping.run(
                setpriv, ["--reuid=65534", "--regid=65534", "--clear-groups", "/bin/bash", copy.path,
                          "--prefix", locked.path + "/usr"],
                environment: ["PATH": "/usr/bin:/bin", "SWIFT": "false"])
        } else {
            try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: locked.path)
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: locked.path) }
            result = try Self.install(["--prefix", locked.path + "/usr"], extra: ["SWIFT": "false"])
        }
        #expect(result.status == 1, "\(result)")
        #expect(result.err.contains("cannot install under \(locked.path)/usr: \(locked.path) is not writable"), "\(result.err)")
        #expect(Self.listing(locked).isEmpty)
    }

    @Test func aFailedBuildInstallsNothing() throws {
        let base = try Self.scratch("failed-build")
        defer { try? FileManager.default.removeItem(at: base) }
        let prefix = base.appendingPathComponent("prefix")
        let failed = try Self.install(["--prefix", prefix.path], extra: ["SWIFT": "false"])
        #expect(failed.status == 1)
        #expect(failed.err.contains("install: the build of plutil failed; nothing was installed under \(prefix.path)"), "\(failed.err)")
        #expect(!FileManager.default.fileExists(atPath: prefix.path))
    }

    @Test func aFailureWhileStagingUndoesEverything() throws {
        // A stand-in for swift whose "build" leaves bookmark out: install gets as far as staging, then fails, and
        // must take away the folders and files it had made.
        let base = try Self.scratch("staging")
        defer { try? FileManager.default.removeItem(at: base) }
        let products = base.appendingPathComponent("products")
        try FileManager.default.createDirectory(at: products, withIntermediateDirectories: true)
        for tool in ["plutil", "defaults"] {
            try FileManager.default.copyItem(atPath: "/bin/true", toPath: products.appendingPathComponent(tool).path)
        }
        let fake = base.appendingPathComponent("swift")
        try Data("#!/bin/sh\nfor a in \"$@\"; do [ \"$a\" = --show-bin-path ] && echo '\(products.path)'; done\nexit 0\n".utf8).write(to: fake)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: fake.path)
        let prefix = base.appendingPathComponent("prefix")
        try FileManager.default.createDirectory(at: prefix.appendingPathComponent("bin"), withIntermediateDirectories: true)
        try Data("other".utf8).write(to: prefix.appendingPathComponent("bin/other"))
        let before = Self.listing(prefix)
        let result = try Self.install(["--prefix", prefix.path], extra: ["SWIFT": fake.path])
        #expect(result.status == 1)
        #expect(result.err.contains("the build did not produce \(products.path)/bookmark"), "\(result.err)")
        #expect(result.err.contains("install: nothing was installed under \(prefix.path)"))
        #expect(Self.listing(prefix) == before)
    }

    @Test func rejectsUnknownArguments() throws {
        let result = try Self.install(["--prefx", "/tmp"], extra: ["SWIFT": "false"])
        #expect(result.status == 1 && result.err.contains("install: unknown argument: --prefx"))
        let help = try Self.install(["--help"])
        #expect(help.status == 0 && help.out.contains("scripts/install [--prefix DIR]"))
    }
}

extension FileManager {
    fileprivate func isDirectory(_ path: String) -> Bool {
        var directory: ObjCBool = false
        return fileExists(atPath: path, isDirectory: &directory) && directory.boolValue
    }
}

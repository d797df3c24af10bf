import Foundation
import TestSupport

/// Runs the package's executables (`defaults`, `PreferencesTestHelper`) as real processes with an environment whose
/// preference roots point into a temp directory, never the real home.
struct ProcessRunner {
    let directory: TempDirectory

    /// The build products directory (where the test bundle lives).
    static let productsDirectory: String = {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var dir = (exe as NSString).deletingLastPathComponent
        // The test binary sits inside <products>/<Package>PackageTests.xctest on Linux.
        if dir.hasSuffix(".xctest") { dir = (dir as NSString).deletingLastPathComponent }
        return dir
    }()

    static func executable(_ name: String) -> String? {
        let path = productsDirectory + "/" + name
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    /// `executable(name)`, or the error a missing product gives.
    static func requiredExecutable(_ name: String) throws -> String {
        guard let path = executable(name) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: productsDirectory + "/" + name])
        }
        return path
    }

    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        let loc = directory.locations
        env["XDG_CONFIG_HOME"] = loc.userDirectory
        env["PREFERENCES_ANY_USER_DIR"] = loc.anyUserDirectory
        env["PREFERENCES_MANAGED_DIR"] = loc.managedDirectory
        env["PREFERENCES_HOST_ID"] = loc.hostID
        env["HOME"] = directory.path + "/home"
        // Applications for `defaults -app`: the default ~/.local/share under that home, then <directory>/share.
        env.removeValue(forKey: "XDG_DATA_HOME")
        env["XDG_DATA_DIRS"] = directory.path + "/share"
        env.removeValue(forKey: "PREFERENCES_CONTAINER")
        return env
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Starts `name` with `arguments` and no input; the caller reads the pipes, waits or kills.
    func start(_ name: String, _ arguments: [String]) throws -> (Process, Pipe, Pipe) {
        let path = try Self.requiredExecutable(name)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        process.environment = environment
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return (process, out, err)
    }

    /// Runs to completion (through `ExternalTool`, which drains stdout and stderr together, so neither pipe can
    /// fill and stall the child).
    func run(_ name: String, _ arguments: [String], stdin: Data = Data()) throws -> Result {
        let path = try Self.requiredExecutable(name)
        let r = try ExternalTool.run(
            path, arguments, input: stdin, environment: environment, in: URL(fileURLWithPath: directory.path))
        return Result(
            status: r.status, stdout: String(decoding: r.stdout, as: UTF8.self), stderr: String(decoding: r.stderr, as: UTF8.self))
    }
}

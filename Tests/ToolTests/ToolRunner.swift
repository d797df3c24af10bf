import Foundation
import Testing
import TestSupport

/// Runs the built `plutil` and the Swift toolchain's Apple `plutil` as real processes.
enum ToolRunner {
    struct Result: Equatable, CustomStringConvertible {
        var status: Int32
        var stdout: Data
        var stderr: String
        var out: String { String(decoding: stdout, as: UTF8.self) }
        var description: String { "rc=\(status) stdout=\(out.debugDescription) stderr=\(stderr.debugDescription)" }
    }

    /// The `plutil` built with these tests: `$PLUTIL` if set, else next to the test bundle (the products directory
    /// of the current build), else `.build/debug/plutil` under the package root.
    static let ours: String? = {
        var candidates: [String] = []
        if let explicit = ProcessInfo.processInfo.environment["PLUTIL"] { candidates.append(explicit) }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        candidates.append(executable.deletingLastPathComponent().appendingPathComponent("plutil").path)
        candidates.append(Bundle.main.bundleURL.appendingPathComponent("plutil").path)
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("plutil").path)
        let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        candidates.append(packageRoot.appendingPathComponent(".build/debug/plutil").path)
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Apple's `plutil` from the Swift toolchain (`ExternalTool.toolchainPlutil`: beside `swift`, not GNUstep's).
    static var apple: String? { ExternalTool.toolchainPlutil }

    static let oursMissing: Comment = "the built plutil was not found next to the test bundle (set PLUTIL to its path)"
    static let appleMissing: Comment = "the Swift toolchain's plutil (next to `swift` on PATH) is the differential oracle"


    static func runOurs(_ arguments: [String], input: Data = Data(), in directory: URL? = nil) throws -> Result {
        guard let ours else { throw CocoaError(.fileNoSuchFile) }
        return try run(ours, arguments, input: input, in: directory)
    }

    static func runApple(_ arguments: [String], input: Data = Data(), in directory: URL? = nil) throws -> Result {
        guard let apple else { throw CocoaError(.fileNoSuchFile) }
        return try run(apple, arguments, input: input, in: directory)
    }

    static func run(_ executable: String, _ arguments: [String], input: Data, in directory: URL?) throws -> Result {
        let r = try ExternalTool.run(executable, arguments, input: input, in: directory)
        return Result(status: r.status, stdout: r.stdout, stderr: String(decoding: r.stderr, as: UTF8.self))
    }

    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("plutil-tool-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Writes a Foundation property-list object as XML (made by Foundation, independent of PlistKit).
    static func writeXML(_ object: Any, to url: URL) throws {
        try PropertyListSerialization.data(fromPropertyList: object, format: .xml, options: 0).write(to: url)
    }

    /// Parses any property list (or JSON) with Foundation, as a comparable `NSObject` tree.
    static func parse(_ data: Data) throws -> NSObject {
        if let plist = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? NSObject {
            return plist
        }
        guard let object = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) as? NSObject else {
            throw CocoaError(.propertyListReadCorrupt)
        }
        return object
    }
}

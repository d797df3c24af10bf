import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// The Swift toolchain's own `plutil` (Apple's rewrite in swift-corelibs-foundation), run as a real process: the
/// oracle for the editing, description and value-parsing tests.
enum ApplePlutil {
    /// The tool's path (`ExternalTool.toolchainPlutil`), or nil when no Swift toolchain with `plutil` is on PATH.
    static var path: String? { ExternalTool.toolchainPlutil }

    static let missingReason: Comment = "the Swift toolchain's plutil (next to `swift` on PATH) is needed as the oracle"

    /// Runs the tool; stdout and stderr as text.
    static func run(_ arguments: [String], input: Data = Data()) throws -> (status: Int32, out: String, err: String) {
        guard let path else { throw FoundationBridge.Unsupported(description: "toolchain plutil not found") }
        let r = try ExternalTool.run(path, arguments, input: input)
        return (r.status, String(decoding: r.stdout, as: UTF8.self), String(decoding: r.stderr, as: UTF8.self))
    }

    /// Writes `value` as an XML plist made by Foundation (independent of PlistKit's writers) to a temporary file.
    static func writeTemporary(_ value: PlistValue, in directory: URL, name: String = "input.plist") throws -> String {
        let object = try FoundationBridge.toFoundation(value)
        let data = try PropertyListSerialization.data(fromPropertyList: object, format: .xml, options: 0)
        let url = directory.appendingPathComponent(name)
        try data.write(to: url)
        return url.path
    }

    /// Parses a plist with Foundation.
    static func parse(_ text: String) throws -> PlistValue {
        let object = try PropertyListSerialization.propertyList(from: Data(text.utf8), options: [], format: nil)
        return try FoundationBridge.fromFoundation(object)
    }

    /// A fresh temporary directory.
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("plutil-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

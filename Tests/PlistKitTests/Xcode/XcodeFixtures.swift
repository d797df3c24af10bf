import Foundation
import Testing
@testable import PlistKit

/// The real Xcode projects in `../shared/fixtures/xcode-projects/` (beside the package; never copied into it).
enum XcodeFixtures {
    static let packageRoot: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    static let folder = packageRoot.appendingPathComponent("../shared/fixtures/xcode-projects").standardizedFileURL

    /// The fixtures' names (folder names without `.xcodeproj`), sorted; empty when `../shared` is absent.
    static let names: [String] = {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return entries.filter { $0.hasSuffix(".xcodeproj") }.map { String($0.dropLast(10)) }.sorted()
    }()

    static var available: Bool { !names.isEmpty }
    static let skipReason: Comment = "../shared/fixtures/xcode-projects is absent"

    static func path(_ name: String) -> String { folder.appendingPathComponent("\(name).xcodeproj/project.pbxproj").path }

    static func bytes(_ name: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(name)))) }

    /// The project name Xcode wrote the fixture's comments with: its folder's, except for `Cocoa Application`, copied
    /// from a project named `Cocoa Application Without productRefGroup` (the fixtures' README).
    static func projectName(_ name: String) -> String {
        name == "Cocoa Application" ? "Cocoa Application Without productRefGroup" : name
    }
}

import Foundation
import Testing
import TestSupport

/// `scripts/docs` over the modules these tests were built with: the three DocC archives build without a warning, and
/// a symbol link that does not resolve fails the run.
@Suite struct DocsTests {
    /// The build products beside the test bundle (their `Modules/` holds the libraries' `.swiftmodule`s).
    static let binPath: String? = Shipping.built("plutil").map { URL(fileURLWithPath: $0).deletingLastPathComponent().path }

    /// docc and swift-symbolgraph-extract beside the swift driver, as scripts/docs looks for them.
    static let toolchainHasDocc: Bool = {
        guard let swift = ExternalTool.find("swift") else { return false }
        let directory = URL(fileURLWithPath: swift).resolvingSymlinksInPath().deletingLastPathComponent()
        return ["docc", "swift-symbolgraph-extract"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent($0).path)
        }
    }()
    static let doccMissing: Comment = "the Swift toolchain beside swift on PATH has no docc and swift-symbolgraph-extract"

    static func docs(_ arguments: [String]) throws -> (status: Int32, out: String, err: String) {
        try Shipping.run("/bin/bash", [Shipping.path("scripts/docs")] + arguments, environment: ProcessInfo.processInfo.environment)
    }

    @Test(.enabled(if: toolchainHasDocc && binPath != nil, doccMissing))
    func buildsTheThreeArchivesWithoutWarnings() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("docs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try Self.docs(["--bin-path", Self.binPath!, "--output", output.path])
        #expect(result.status == 0, "\(result.err)")
        #expect(!result.err.contains("warning") && !result.out.contains("warning"), "\(result)")
        for (module, article) in [("PlistKit", "readingandwriting"), ("PlistKit", "usingcodable"),
                                  ("Bookmarks", "bookmarksandstaleness"), ("Preferences", "crashsafety")] {
            let page = output.appendingPathComponent("\(module).doccarchive/data/documentation/\(module.lowercased())/\(article).json")
            #expect(FileManager.default.fileExists(atPath: page.path), "\(page.path)")
        }
        for module in ["PlistKit", "Bookmarks", "Preferences"] {
            #expect(result.out.contains("docs: \(output.path)/\(module).doccarchive\n"))
        }
    }

    @Test(.enabled(if: toolchainHasDocc && binPath != nil, doccMissing))
    func aBrokenSymbolLinkFailsTheRun() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("docs-broken-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let catalogs = base.appendingPathComponent("catalogs")
        try FileManager.default.createDirectory(at: catalogs, withIntermediateDirectories: true)
        for module in ["PlistKit", "Bookmarks", "Preferences"] {
            try FileManager.default.copyItem(atPath: Shipping.path("Sources/\(module)/\(module).docc"),
                                             toPath: catalogs.appendingPathComponent("\(module).docc").path)
        }
        let article = catalogs.appendingPathComponent("Bookmarks.docc/BookmarksAndStaleness.md")
        let text = try String(contentsOf: article, encoding: .utf8)
        try (text + "\nSee also ``Bookmark/resolveEverything(_:)``.\n").write(to: article, atomically: true, encoding: .utf8)
        let result = try Self.docs(["--bin-path", Self.binPath!, "--output", base.appendingPathComponent("out").path,
                                    "--catalogs", catalogs.path])
        #expect(result.status == 1)
        #expect(result.err.contains("resolveEverything"), "\(result.err)")
        #expect(result.err.contains("docs: Bookmarks: docc reported the problems above"))
        #expect(!FileManager.default.fileExists(atPath: base.appendingPathComponent("out/Bookmarks.doccarchive").path))
        #expect(FileManager.default.fileExists(atPath: base.appendingPathComponent("out/PlistKit.doccarchive").path))
    }
}

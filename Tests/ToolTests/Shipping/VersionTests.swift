import Bookmarks
import Foundation
import PlistKit
import Preferences
import Synchronization
import Testing
import TestSupport

/// `--version` on each tool prints `PlistKit.version`, which is written once, in `Sources/PlistKit/Version.swift`,
/// where `scripts/install` reads it; `CHANGELOG.md`'s newest release is that version.
@Suite struct VersionTests {
    static func line(_ tool: String) -> String { "\(tool) (PlistKit) \(PlistKit.version)\n" }

    @Test func theVersionIsSemantic() {
        let parts = PlistKit.version.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isNumber) }, "\(PlistKit.version)")
    }

    @Test func eachCommandPrintsIt() {
        let plutil = RecordingIO()
        #expect(PlutilCommand.run(["--version"], io: plutil.io) == 0)
        #expect(plutil.outputText == Self.line("plutil") && plutil.errorText.isEmpty)
        let bookmark = RecordingIO()
        #expect(BookmarkCommand.run([Array("--version".utf8)], io: bookmark.io) == 0)
        #expect(bookmark.outputText == Self.line("bookmark") && bookmark.errorText.isEmpty)
        let out = Mutex(""), err = Mutex("")
        let io = DefaultsIO(out: { text in out.withLock { $0 += text } }, err: { text in err.withLock { $0 += text } },
                            readStandardInput: { [] })
        let environment = PreferencesEnvironment(locations: .under("/nonexistent/plistkit-version-test"))
        #expect(DefaultsCommand.run(["--version"], environment: environment, io: io) == 0)
        #expect(out.withLock { $0 } == Self.line("defaults") && err.withLock { $0 }.isEmpty)
    }

    @Test func theUsageTextsListIt() {
        #expect(PlutilCommand.usage("plutil").contains("\n --version                     (extension) print the version and exit\n"))
        #expect(DefaultsCommand.usage.contains("\n  --version                            (extension) print the version\n"))
        #expect(BookmarkCommand.usage.contains("\n       bookmark --version\n"))
    }

    @Test func aFailedWriteIsReported() {
        let full = RecordingIO(outputFailure: Errno(rawValue: 28))
        #expect(PlutilCommand.run(["--version"], io: full.io) == 1)
        #expect(full.errorText.hasPrefix("plutil: cannot write to standard output: "))
        let bookmark = RecordingIO(outputFailure: Errno(rawValue: 28))
        #expect(BookmarkCommand.run([Array("--version".utf8)], io: bookmark.io) == 1)
    }

    @Test(.enabled(if: Shipping.builtToolsPresent, Shipping.builtToolsMissing), arguments: Shipping.tools)
    func theBuiltToolPrintsIt(_ tool: String) throws {
        let result = try Shipping.run(Shipping.built(tool)!, ["--version"], environment: ["PATH": "/usr/bin:/bin"])
        #expect(result.status == 0 && result.out == Self.line(tool) && result.err.isEmpty, "\(result)")
    }

    @Test func oneSourceOfTruth() throws {
        // The line scripts/install reads (`sed -n 's/^public let version = "\(.*\)"$/\1/p'`).
        let source = try Shipping.text("Sources/PlistKit/Version.swift")
        #expect(source.split(separator: "\n").filter { $0.hasPrefix("public let version = ") }
            == ["public let version = \"\(PlistKit.version)\""])
        let install = try Shipping.text("scripts/install")
        #expect(install.contains(#"sed -n 's/^public let version = "\(.*\)"$/\1/p' "$root/Sources/PlistKit/Version.swift""#))
        // The pages leave `.Os` empty for install to fill in with the version.
        for tool in Shipping.tools {
            #expect(try Shipping.text("man/\(tool).1").contains("\n.Os\n"), "\(tool)")
        }
        // No other file of the package spells the version out as a string literal.
        for directory in ["Sources/plutil", "Sources/defaults", "Sources/bookmark", "Sources/Preferences/Tool",
                          "Sources/Bookmarks/Tool", "Sources/PlistKit/Tool"] {
            for file in try FileManager.default.contentsOfDirectory(atPath: Shipping.path(directory)) where file.hasSuffix(".swift") {
                #expect(!(try Shipping.text(directory + "/" + file)).contains("\"\(PlistKit.version)\""), "\(file)")
            }
        }
    }

    @Test func theChangelogsNewestReleaseIsThisVersion() throws {
        let changelog = try Shipping.text("CHANGELOG.md")
        let releases = changelog.split(separator: "\n").filter { $0.hasPrefix("## ") }
        #expect(releases.first?.hasPrefix("## \(PlistKit.version) ") == true, "\(releases.first ?? "none")")
    }
}

import Bookmarks
import Foundation
import PlistKit
import Preferences
import Testing
import TestSupport

/// The manual pages in `man/`: they lint clean with mandoc, render with `man -l`, and name exactly the options each
/// tool's usage text lists, with the sections a reader looks for.
@Suite struct ManPageTests {
    /// Each tool's usage text, as the tool prints it.
    static let usages: [String: String] = [
        "plutil": PlutilCommand.usage("plutil"),
        "defaults": DefaultsCommand.usage,
        "bookmark": BookmarkCommand.usage,
    ]

    /// Options a page documents that the usage text does not list, each checked below to be accepted by the tool:
    /// `defaults -verbose` (Apple's, accepted and ignored) and `bookmark -h`/`--help` (other spellings of `help`).
    static let pageOnly: [String: Set<String>] = ["plutil": [], "defaults": ["-verbose"], "bookmark": ["-h", "--help"]]

    @Test(.enabled(if: Shipping.mandoc != nil, Shipping.mandocMissing), arguments: Shipping.tools)
    func lintsClean(_ tool: String) throws {
        let page = Shipping.path("man/\(tool).1")
        let result = try Shipping.run(Shipping.mandoc!, ["-T", "lint", "-W", "style", page], environment: [:])
        // Cross-references to the other two pages (not installed where the tests run) and to system pages that a
        // stale mandoc.db lacks depend on the machine; every other message is a failure.
        let messages = result.out.split(separator: "\n").filter {
            !($0.contains("referenced manual not found") && ($0.contains("Xr plutil 1") || $0.contains("Xr defaults 1")
                || $0.contains("Xr bookmark 1"))) && !$0.contains("mandoc.db")
        }
        #expect(messages.isEmpty, "\(messages.joined(separator: "\n"))")
        #expect(result.status == 0 || messages.isEmpty, "\(result)")
        let warnings = try Shipping.run(Shipping.mandoc!, ["-T", "lint", "-W", "warning", page], environment: [:])
        #expect(warnings.status == 0 && warnings.out.isEmpty && warnings.err.isEmpty, "\(warnings)")
    }

    @Test(.enabled(if: ExternalTool.find("man") != nil, "man (Debian package man-db) renders the pages"),
          arguments: Shipping.tools)
    func rendersWithManL(_ tool: String) throws {
        let result = try Shipping.run(
            ExternalTool.find("man")!, ["-l", Shipping.path("man/\(tool).1")],
            environment: ["PATH": "/usr/bin:/bin", "MANPAGER": "cat", "PAGER": "cat", "MANWIDTH": "100", "LANG": "C.UTF-8"])
        #expect(result.status == 0, "\(result.err)")
        for heading in ["NAME", "SYNOPSIS", "DESCRIPTION", "EXIT STATUS", "EXAMPLES", "COMPATIBILITY", "SEE ALSO"] {
            #expect(result.out.contains("\n" + heading + "\n"), "\(tool): \(heading)")
        }
        #expect(result.out.contains(tool.uppercased() + "(1)"))
        // No macro came out as text (one glued to the end of a line is printed, and mandoc does not object).
        for macro in [".It", ".El", ".Bl", ".Pp", ".Sh", ".Fl", ".Ar", ".Nm", ".Cm", ".Pa"] {
            #expect(!result.out.contains(macro + " ") && !result.out.contains(macro + "\n"), "\(tool): \(macro) printed")
        }
    }

    @Test(arguments: Shipping.tools)
    func namesExactlyTheOptionsOfTheUsage(_ tool: String) throws {
        let usage = Shipping.options(inUsage: Self.usages[tool]!)
        let page = Shipping.options(inManualPage: try Shipping.text("man/\(tool).1"))
        #expect(!usage.isEmpty && usage.contains("--version"))
        #expect(usage.subtracting(page).isEmpty, "\(tool): in -help, not in the page: \(usage.subtracting(page).sorted())")
        let extra = page.subtracting(usage)
        #expect(extra == Self.pageOnly[tool]!, "\(tool): in the page, not in -help: \(extra.sorted())")
    }

    @Test func theOptionsFoundAreTheOnesTheUsageMeans() {
        // The extraction itself, on the plutil usage: operands and prose are not options.
        let plutil = Shipping.options(inUsage: Self.usages["plutil"]!)
        #expect(plutil.isSuperset(of: ["-lint", "-convert", "-header", "-insert", "-bool", "-append", "-expect", "-n", "--"]))
        #expect(!plutil.contains("-value") && !plutil.contains("-64") && !plutil.contains("-"))
        let defaults = Shipping.options(inUsage: Self.usages["defaults"]!)
        #expect(defaults.isSuperset(of: ["-int", "-integer", "-bool", "-boolean", "-dict-add", "-g", "-app"]))
        #expect(!defaults.contains("-all") && !defaults.contains("-only") && !defaults.contains("-id"))
    }

    @Test(.enabled(if: Shipping.builtToolsPresent, Shipping.builtToolsMissing))
    func thePageOnlyOptionsAreAccepted() throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("man-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let environment = ["HOME": home.path, "XDG_CONFIG_HOME": home.path, "PREFERENCES_HOST_ID": "test"]
        let verbose = try Shipping.run(Shipping.built("defaults")!, ["-verbose", "domains"], environment: environment)
        #expect(verbose.status == 0 && verbose.err.isEmpty, "\(verbose)")
        for spelling in ["-h", "--help"] {
            let help = try Shipping.run(Shipping.built("bookmark")!, [spelling], environment: environment)
            #expect(help.status == 0 && help.out == BookmarkCommand.usage + "\n", "\(spelling): \(help)")
        }
    }

    @Test(arguments: Shipping.tools)
    func coversEveryVerb(_ tool: String) throws {
        let source = try Shipping.text("man/\(tool).1")
        let verbs: [String] = switch tool {
        case "plutil": ["-lint", "-convert", "-insert", "-replace", "-remove", "-extract", "-type", "-create", "-p",
                        "-unarchive", "-archive", "-help", "--version"]
        case "defaults": ["read", "read-type", "read-archived", "write", "rename", "delete", "delete-all", "import",
                          "export", "domains", "find", "help", "remove", "printHostIdentifier"]
        default: ["create", "resolve", "inspect", "bench", "help"]
        }
        for verb in verbs {
            // An item of its own, or (another name of a verb) named in one.
            let macro = verb.hasPrefix("-") ? ".It Fl \(verb.dropFirst())" : ".It Cm \(verb)"
            #expect(source.contains(macro) || source.contains("\n.Cm \(verb)\n"), "\(tool): \(verb)")
        }
        // Each verb the usage lists is one of them.
        if tool == "defaults" {
            for line in DefaultsCommand.usage.split(separator: "\n") where line.hasPrefix("  ") && !line.hasPrefix("   ") {
                let verb = line.split(separator: " ").first.map(String.init) ?? ""
                guard !verb.hasPrefix("-"), !verb.hasPrefix("<") else { continue }
                #expect(verbs.contains(verb), "defaults usage verb \(verb)")
            }
        }
    }

    @Test func defaultsHasFilesAndEnvironment() throws {
        let source = try Shipping.text("man/defaults.1")
        #expect(source.contains("\n.Sh FILES\n") && source.contains("\n.Sh ENVIRONMENT\n"))
        // Every variable PreferencesLocations and `-app` read, documented.
        for variable in ["XDG_CONFIG_HOME", "HOME", "PREFERENCES_CONTAINER", "PREFERENCES_ANY_USER_DIR",
                         "PREFERENCES_MANAGED_DIR", "PREFERENCES_HOST_ID", "XDG_DATA_HOME", "XDG_DATA_DIRS"] {
            #expect(source.contains(".It Ev \(variable)") || source.contains(", \(variable)\n"), "\(variable)")
        }
        let sources = try FileManager.default.subpathsOfDirectory(atPath: Shipping.path("Sources/Preferences"))
            .filter { $0.hasSuffix(".swift") }
            .map { try Shipping.text("Sources/Preferences/" + $0) }.joined()
        for name in ["PREFERENCES_CONTAINER", "PREFERENCES_ANY_USER_DIR", "PREFERENCES_MANAGED_DIR", "PREFERENCES_HOST_ID",
                     "XDG_DATA_HOME", "XDG_DATA_DIRS", "XDG_CONFIG_HOME"] {
            #expect(sources.contains("\"\(name)\""), "\(name) is read by Preferences")
        }
    }

    @Test func theFormatsAndTypesArePlutils() throws {
        let source = try Shipping.text("man/plutil.1")
        for type in PlutilValueType.allCases { #expect(source.contains(".It Fl \(type.rawValue)\n"), "\(type)") }
        for type in PlutilExpectType.allCases { #expect(source.contains(type.rawValue), "\(type)") }
        for format in ["xml1", "binary1", "json", "openstep", "gnustep", "strings", "swift", "objc", "raw"] {
            #expect(source.contains(format), "\(format)")
        }
    }
}

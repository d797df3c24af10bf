import Bookmarks
import Foundation
import PlistKit
import Preferences
import Testing
import TestSupport

/// The bash completions in `completions/bash`, driven as bash drives them (COMP_WORDS and COMP_CWORD set, the
/// registered function called, COMPREPLY read) in a shell of their own; the zsh ones parse and name the same options.
/// Completing never runs a tool: every run has a `plutil`, `defaults` and `bookmark` first on PATH that would leave
/// a mark if anything ran it.
@Suite struct CompletionTests {
    /// A scratch directory with a few files (the working directory of the completions), a preferences directory and
    /// a PATH whose first entry holds the tripwire tools.
    final class Scene {
        let root: URL
        var environment: [String: String]
        var tripwire: String { root.appendingPathComponent("ran").path }

        init() throws {
            root = FileManager.default.temporaryDirectory.appendingPathComponent("completion-\(UUID().uuidString)")
            let fm = FileManager.default
            for directory in ["work/sub", "config/ByHost", "trap", "home"] {
                try fm.createDirectory(at: root.appendingPathComponent(directory), withIntermediateDirectories: true)
            }
            for file in ["work/notes.plist", "work/data.json", "config/com.example.one.plist", "config/org.two.plist",
                         "config/.GlobalPreferences.plist", "config/readme.txt", "config/$(touch injected).plist"] {
                try Data("<plist><dict/></plist>".utf8).write(to: root.appendingPathComponent(file))
            }
            try fm.createDirectory(at: root.appendingPathComponent("config/folder.plist"), withIntermediateDirectories: true)
            for tool in Shipping.tools {
                let url = root.appendingPathComponent("trap/\(tool)")
                try Data("#!/bin/sh\necho \"$0 $*\" >> '\(root.path)/ran'\n".utf8).write(to: url)
                try fm.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
            }
            environment = [
                "PATH": root.appendingPathComponent("trap").path + ":/usr/bin:/bin",
                "HOME": root.appendingPathComponent("home").path,
                "XDG_CONFIG_HOME": root.appendingPathComponent("config").path,
                "LANG": "C.UTF-8",
            ]
        }

        deinit { try? FileManager.default.removeItem(at: root) }

        /// The completions bash offers for the last word of `words` (the command line, program name first).
        func complete(_ words: [String], environment extra: [String: String] = [:]) throws -> [String] {
            let tool = words[0]
            let script = """
                set -u
                source "$1"; shift
                spec=$(complete -p "$1")
                [[ $spec == *" -F _$1 $1" ]] || { echo "not registered: $spec" >&2; exit 3; }
                COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
                COMPREPLY=()
                "_$1" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
                printf '%s\\n' "${COMPREPLY[@]}"
                """
            let result = try Shipping.run(
                Shipping.bash!, ["--norc", "--noprofile", "-c", script, "bash", Shipping.path("completions/bash/\(tool)")] + words,
                environment: environment.merging(extra) { $1 }, in: root.appendingPathComponent("work"))
            #expect(result.status == 0 && result.err.isEmpty, "\(words): \(result)")
            return result.out.split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        }

        func nothingRan() -> Bool {
            !FileManager.default.fileExists(atPath: tripwire)
                && !FileManager.default.fileExists(atPath: root.appendingPathComponent("work/injected").path)
                && !FileManager.default.fileExists(atPath: root.appendingPathComponent("injected").path)
        }
    }

    static let plutilCommands = ["-lint", "-convert", "-insert", "-replace", "-remove", "-extract", "-type", "-create",
                                 "-p", "-unarchive", "-archive", "-help", "--version"]
    static let plutilOptions = ["-s", "-o", "-e", "-r", "-lossy", "-projectname", "-n", "--"]
    static let formats = ["xml1", "binary1", "json", "openstep", "gnustep", "strings", "xcode", "swift", "objc"]

    @Test(.enabled(if: Shipping.bash != nil, Shipping.bashMissing))
    func plutil() throws {
        let scene = try Scene()
        #expect(Set(try scene.complete(["plutil", "-"])) == Set(Self.plutilCommands + Self.plutilOptions))
        #expect(try scene.complete(["plutil", "-conv"]) == ["-convert"])
        #expect(Set(try scene.complete(["plutil", "no"])) == ["notes.plist"])
        #expect(try scene.complete(["plutil", "-convert", ""]) == Self.formats)
        // Every format -convert offers is one plutil takes.
        for format in try scene.complete(["plutil", "-convert", ""]) {
            #expect(PlutilCommand.run(["-convert", format, "-o", "-", "-"], io: RecordingIO(input: Array("{}".utf8)).io) == 0, "\(format)")
        }
        #expect(try scene.complete(["plutil", "-unarchive", "b"]) == ["binary1"])
        #expect(try scene.complete(["plutil", "-archive", ""]) == ["xml1", "binary1"])
        #expect(try scene.complete(["plutil", "-create", ""]) == Self.formats + ["raw"])
        #expect(try scene.complete(["plutil", "-extract", "a.b", ""]) == Self.formats + ["raw"])
        #expect(try scene.complete(["plutil", "-convert", "objc", "-h"]) == ["-header"])
        #expect(try scene.complete(["plutil", "-insert", "a.b", ""]) == PlutilValueType.allCases.map { "-" + $0.rawValue })
        #expect(try scene.complete(["plutil", "-replace", "a.b", "-d"]) == ["-date", "-data", "-dictionary"])
        #expect(try scene.complete(["plutil", "-insert", "a", "-bool", ""]) == ["YES", "NO", "true", "false"])
        #expect(try scene.complete(["plutil", "-insert", "a", "-string", "x", "-a"]) == ["-append"])
        #expect(try scene.complete(["plutil", "-insert", "a", "-array", "-a"]) == ["-append"])
        #expect(try scene.complete(["plutil", "-extract", "a", "json", "-ex"]) == ["-expect"])
        #expect(try scene.complete(["plutil", "-type", "a", "-expect", ""]) == PlutilExpectType.allCases.map(\.rawValue))
        #expect(try scene.complete(["plutil", "-insert", "", ]) == [])
        #expect(Set(try scene.complete(["plutil", "-lint", "-"])) == Set(Self.plutilOptions))
        #expect(Set(try scene.complete(["plutil", "-convert", "json", "-o", "d"])) == ["data.json"])
        #expect(Set(try scene.complete(["plutil", "-p", "--", "-"])) == [])
        #expect(Set(try scene.complete(["plutil", "-p", "--", "s"])) == ["sub"])
        // Every option of -help is offered somewhere.
        var offered = Set(try scene.complete(["plutil", "-"]))
        offered.formUnion(try scene.complete(["plutil", "-insert", "a", ""]))
        offered.formUnion(try scene.complete(["plutil", "-insert", "a", "-string", "x", "-"]))
        offered.formUnion(try scene.complete(["plutil", "-extract", "a", "json", "-"]))
        offered.formUnion(try scene.complete(["plutil", "-convert", "objc", "-"]))
        let usage = Shipping.options(inUsage: PlutilCommand.usage("plutil"))
        #expect(usage.subtracting(offered).isEmpty, "\(usage.subtracting(offered).sorted())")
        #expect(scene.nothingRan())
    }

    @Test(.enabled(if: Shipping.bash != nil, Shipping.bashMissing))
    func defaults() throws {
        let scene = try Scene()
        let verbs = ["read", "read-type", "read-archived", "write", "rename", "delete", "delete-all", "import", "export",
                     "domains", "find", "help", "--version"]
        #expect(try scene.complete(["defaults", ""]) == ["-currentHost", "-host", "-container"] + verbs)
        #expect(try scene.complete(["defaults", "-currentHost", "read-"]) == ["read-type", "read-archived"])
        #expect(try scene.complete(["defaults", "-host", ""]) == [])
        #expect(try scene.complete(["defaults", "-host", "box", "del"]) == ["delete", "delete-all"])
        // Domains: the .plist files of the store (not the global one, not a folder), names matched as text.
        let domains = try scene.complete(["defaults", "read", ""])
        #expect(domains == ["-g", "-globalDomain", "NSGlobalDomain", "-app", "$(touch injected)", "com.example.one", "org.two"])
        #expect(try scene.complete(["defaults", "write", "com"]) == ["com.example.one"])
        #expect(try scene.complete(["defaults", "-currentHost", "delete", "o"]) == ["org.two"])
        #expect(try scene.complete(["defaults", "read", "$("]) == ["$(touch injected)"])
        let container = scene.root.appendingPathComponent("container")
        try FileManager.default.createDirectory(at: container, withIntermediateDirectories: true)
        try Data().write(to: container.appendingPathComponent("app.contained.plist"))
        #expect(try scene.complete(["defaults", "read", "a"], environment: ["PREFERENCES_CONTAINER": container.path])
            == ["app.contained"])
        #expect(try scene.complete(["defaults", "read", "-app", ""]) == [])
        #expect(try scene.complete(["defaults", "domains", ""]) == [])
        // The domains offered are the ones `defaults domains` lists (run here, outside the completion), but for a
        // folder named like a domain file, which the tool lists and the completion leaves out (it holds no domain).
        if let tool = Shipping.built("defaults") {
            var environment = scene.environment
            environment["PATH"] = "/usr/bin:/bin"
            let listed = try Shipping.run(tool, ["domains"], environment: environment)
            #expect(listed.out == "$(touch injected), com.example.one, folder, org.two\n", "\(listed)")
        }
        let values = try scene.complete(["defaults", "write", "com.example.one", "key", "-"])
        let usage = Shipping.options(inUsage: DefaultsCommand.usage)
        #expect(Set(values) == usage.subtracting(["-currentHost", "-host", "-container", "-app", "-g", "-globalDomain", "--version"]))
        #expect(try scene.complete(["defaults", "write", "-app", "Demo", "key", "-a"]) == ["-array", "-array-add"])
        #expect(try scene.complete(["defaults", "write", "d", "k", "-bool", ""]) == ["true", "false", "yes", "no"])
        #expect(try scene.complete(["defaults", "import", "d", "-"]) == ["-"])
        #expect(try scene.complete(["defaults", "export", "d", "no"]) == ["notes.plist"])
        #expect(try scene.complete(["defaults", "-container", "s"]) == ["sub"])
        #expect(scene.nothingRan())
    }

    @Test(.enabled(if: Shipping.bash != nil, Shipping.bashMissing))
    func bookmark() throws {
        let scene = try Scene()
        #expect(try scene.complete(["bookmark", ""]) == ["create", "resolve", "inspect", "bench", "--version"])
        #expect(try scene.complete(["bookmark", "create", "-"]) == ["-o", "--minimal", "--relative-to"])
        let resolve = try scene.complete(["bookmark", "resolve", "-"])
        #expect(resolve == ["--key-path", "--prefer-identity", "--budget", "--relative-to", "--allow-handle-lookup", "--json"])
        #expect(try scene.complete(["bookmark", "inspect", "notes.plist", "-"]) == ["--json"])
        #expect(try scene.complete(["bookmark", "resolve", "f", "--relative-to", ""]) == ["sub"])
        #expect(try scene.complete(["bookmark", "resolve", "f", "--budget", ""]) == [])
        #expect(try scene.complete(["bookmark", "create", "n"]) == ["notes.plist"])
        #expect(try scene.complete(["bookmark", "bench", ""]) == ["sub"])
        let usage = Shipping.options(inUsage: BookmarkCommand.usage)
        let offered = Set(try scene.complete(["bookmark", "create", "-"]) + resolve + ["--json"]
                          + scene.complete(["bookmark", "--"]))
        #expect(usage == offered, "\(usage.symmetricDifference(offered).sorted())")
        #expect(scene.nothingRan())
    }

    @Test(.enabled(if: Shipping.bash != nil, Shipping.bashMissing))
    func wordsThatLookLikeCommandsAreNotRun() throws {
        let scene = try Scene()
        for tool in Shipping.tools {
            for word in ["$(touch injected)", "`touch injected`", "$(plutil)", "~/$(touch injected)"] {
                _ = try scene.complete([tool, word])
                _ = try scene.complete([tool, "-convert", word])
                _ = try scene.complete([tool, "read", word])
                _ = try scene.complete([tool, "write", "d", "k", word])
            }
        }
        #expect(scene.nothingRan())
    }

    @Test(.enabled(if: ExternalTool.find("zsh") != nil, "zsh checks the syntax of the zsh completions"),
          arguments: Shipping.tools)
    func zshCompletionsParseAndNameTheOptions(_ tool: String) throws {
        let file = Shipping.path("completions/zsh/_\(tool)")
        let parsed = try Shipping.run(ExternalTool.find("zsh")!, ["-n", file], environment: ["PATH": "/usr/bin:/bin"])
        #expect(parsed.status == 0 && parsed.err.isEmpty, "\(parsed)")
        let text = try Shipping.text("completions/zsh/_\(tool)")
        #expect(text.hasPrefix("#compdef \(tool)\n"))
        let usage: String = switch tool {
        case "plutil": PlutilCommand.usage("plutil")
        case "defaults": DefaultsCommand.usage
        default: BookmarkCommand.usage
        }
        for option in Shipping.options(inUsage: usage) {
            #expect(text.contains(" " + option) || text.contains("'" + option + ":") || text.contains("(" + option),
                    "\(tool): \(option)")
        }
        // Neither shell's completion runs a command other than the shell's own.
        for name in Shipping.tools {
            #expect(!text.contains("$(\(name)") && !text.contains("`\(name)"))
        }
        let bash = try Shipping.text("completions/bash/\(tool)")
        for name in Shipping.tools {
            #expect(!bash.contains("$(\(name)") && !bash.contains("`\(name)"))
        }
    }
}

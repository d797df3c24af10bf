import Foundation
import Testing
import TestSupport

/// What the shipping tests share: the package's own files (manual pages, completions, scripts), the built tools, and
/// the option names a usage text or a manual page lists.
enum Shipping {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static let tools = ["plutil", "defaults", "bookmark"]

    static func path(_ relative: String) -> String { packageRoot.appendingPathComponent(relative).path }

    static func text(_ relative: String) throws -> String {
        try String(contentsOfFile: path(relative), encoding: .utf8)
    }

    /// A tool built with these tests: beside the test bundle, else under `.build/debug`.
    static func built(_ name: String) -> String? {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let candidates = [
            executable.deletingLastPathComponent().appendingPathComponent(name).path,
            Bundle.main.bundleURL.appendingPathComponent(name).path,
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent(name).path,
            path(".build/debug/" + name),
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static let builtToolsMissing: Comment = "plutil, defaults and bookmark were not found beside the test bundle"
    static var builtToolsPresent: Bool { tools.allSatisfy { built($0) != nil } }

    static let mandoc = ExternalTool.find("mandoc")
    static let mandocMissing: Comment = "mandoc (Debian package mandoc, installed by scripts/setup) lints the manual pages"
    static let bash = ExternalTool.find("bash")
    static let bashMissing: Comment = "bash drives the completion functions"

    /// Runs `executable` with exactly `environment` (nothing inherited) and returns status, stdout and stderr as text.
    static func run(
        _ executable: String, _ arguments: [String], environment: [String: String], input: Data = Data(),
        in directory: URL? = nil
    ) throws -> (status: Int32, out: String, err: String) {
        let result = try ExternalTool.run(executable, arguments, input: input, environment: environment, in: directory)
        return (result.status, String(decoding: result.stdout, as: UTF8.self), String(decoding: result.stderr, as: UTF8.self))
    }

    /// The options a usage text lists: words that start with `-` or `--` and a letter, at the start of a word (so
    /// `key-value` and `base-64` are not options), plus a lone `--` as a word of its own; `-int[eger]` stands for
    /// `-int` and `-integer`.
    static func options(inUsage text: String) -> Set<String> {
        var found = Set<String>()
        let scalars = Array(text.unicodeScalars)
        func isWordCharacter(_ scalar: Unicode.Scalar) -> Bool {
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-" || scalar == "\\"
        }
        func isNameCharacter(_ scalar: Unicode.Scalar) -> Bool {
            scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "-"
        }
        var index = 0
        while index < scalars.count {
            defer { index += 1 }
            guard scalars[index] == "-", index == 0 || !isWordCharacter(scalars[index - 1]) else { continue }
            var end = index + 1
            if end < scalars.count, scalars[end] == "-" { end += 1 }
            let nameStart = end
            while end < scalars.count, isNameCharacter(scalars[end]) { end += 1 }
            let name = String(String.UnicodeScalarView(scalars[index..<end]))
            if nameStart == end {
                // A lone `--` between spaces is the end-of-options marker.
                if name == "--", end == scalars.count || scalars[end] == " " { found.insert(name) }
                index = end - 1
                continue
            }
            guard scalars[nameStart].properties.isAlphabetic else { index = end - 1; continue }
            found.insert(name)
            // `-int[eger]`: the longer spelling too.
            if end < scalars.count, scalars[end] == "[", let close = scalars[end...].firstIndex(of: "]") {
                found.insert(name + String(String.UnicodeScalarView(scalars[(end + 1)..<close])))
                end = close + 1
            }
            index = end - 1
        }
        return found
    }

    /// The options an mdoc page names with `Fl`: every word after `Fl` on a macro line up to the next macro (`Fl a b`
    /// is `-a -b`; `Fl -version` is `--version`; `Fl -` is `--`), leaving out punctuation and a bare `Fl`.
    static func options(inManualPage source: String) -> Set<String> {
        var found = Set<String>()
        for line in source.split(separator: "\n") where line.hasPrefix(".") {
            let words = line.dropFirst().split(separator: " ").map(String.init)
            var inFlags = false
            for word in words {
                if isMacro(word) {
                    inFlags = word == "Fl"
                    continue
                }
                guard inFlags, !word.isEmpty, !punctuation.contains(word) else { continue }
                found.insert("-" + word)
            }
        }
        return found
    }

    private static let punctuation: Set<String> = [",", ".", ";", ":", "|", "(", ")", "[", "]", "?", "!"]

    /// Whether an mdoc word is a macro name (`Ar`, `Fl`, `Ns`, `Op`, …): a capital and one or two lower-case letters.
    private static func isMacro(_ word: String) -> Bool {
        let scalars = Array(word.unicodeScalars)
        guard (2...3).contains(scalars.count), ("A"..."Z").contains(scalars[0]) else { return false }
        return scalars.dropFirst().allSatisfy { ("a"..."z").contains($0) }
    }
}

import Foundation
import Testing
import TestSupport
@testable import Preferences

/// The desktop-entry reader behind `defaults -app`, against the freedesktop Desktop Entry Specification: random
/// files built by the spec's rules must give back the `Name`, `Type` and `Hidden` they were built with, and
/// arbitrary bytes must never trap (these tests run in debug builds, where buffer indexing is checked).
@Suite struct DesktopEntryTests {
    static let pieces = ["a", "Z", " ", "\\", "\n", "\r", "\t", "=", "[", "]", "#", ";", "é", "名", "😀", "Name", "x y", "\u{0301}", "\u{0656}"]

    /// The writer side, pinned to the specification's table (the round trip below relies on it).
    @Test func escapeFollowsTheSpecification() {
        let cases: [(String, String)] = [
            (" a", "\\sa"), ("a b ", "a b "), ("x\\y", "x\\\\y"), ("1\n2", "1\\n2"), ("\tz", "\\tz"), ("cr\r", "cr\\r"),
            ("\n\u{0301}", "\\n\u{0301}"), ("", ""),
        ]
        for (value, expected) in cases {
            #expect(DesktopEntry.escape(value) == expected, "\(value.debugDescription)")
        }
    }

    @Test func randomEntriesReadBackAsBuilt() throws {
        var rng = SeededGenerator(seed: 7)
        for round in 0..<500 {
            var name = ""
            for _ in 0..<rng.below(6) { name += Self.pieces[rng.below(Self.pieces.count)] }
            // Trailing spaces and tabs are kept by the reader (as GLib does), so they are part of the check.
            let hidden = rng.below(3)  // 0: absent, 1: true, 2: false
            var lines = ["# generated \(round)", "[Desktop Entry]", "Type=Application"]
            var body = ["Name\(rng.below(2) == 0 ? "" : " ")=\(rng.below(2) == 0 ? "" : " ")\(DesktopEntry.escape(name))",
                        "Name[fr]=not this one", "Exec=tool %f", "# Name=commented out", ""]
            if hidden == 1 { body.append(rng.below(2) == 0 ? "Hidden=true" : "Hidden=1") }
            if hidden == 2 { body.append("Hidden=false") }
            body.shuffle(using: &rng)
            lines += body
            lines += ["", "[Desktop Action New]", "Name=Action name", "Hidden=true"]
            let newline = rng.below(2) == 0 ? "\n" : "\r\n"
            let text = (rng.below(4) == 0 ? "\u{FEFF}" : "") + lines.joined(separator: newline)
            let entry = try #require(DesktopEntry.parse(Array(text.utf8)), "round \(round)")
            #expect(entry.name == name, "round \(round): \(text.debugDescription)")
            #expect(entry.type == "Application")
            #expect(entry.hidden == (hidden == 1), "round \(round)")
        }
    }

    /// Found by the `desktopentry` fuzz target: escapes were undone on `Character`s, and a backslash-letter pair
    /// followed by a combining mark (`n` + U+0301 is one `Character`) was not recognised. Escapes are bytes.
    @Test func escapeBeforeACombiningMark() throws {
        let text = "[Desktop Entry]\nName=\\n\u{0301}x\\\\\u{0656}\r\u{0656}\n"
        let entry = try #require(DesktopEntry.parse(Array(text.utf8)))
        let expected = "\n\u{0301}x\\\u{0656}\r\u{0656}"
        #expect(entry.name == expected)
        let seed = try Data(contentsOf: Self.seed("escape-before-combining-mark.desktop"))
        #expect(Array(text.utf8) == Array(seed))
    }

    /// A file of the `desktopentry` fuzz target's seeds (kept there so every campaign replays it).
    static func seed(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Fuzz/seeds/desktopentry/\(name)")
    }

    @Test func arbitraryBytesNeverTrap() {
        var rng = SeededGenerator(seed: 11)
        let tokens: [[UInt8]] = ["[Desktop Entry]", "[", "]", "\n", "\r", "\r\n", " ", "\t", "=", "#", "Name", "Type", "Hidden",
                                 "\\", "\\s", "true", "1", "é"].map { Array($0.utf8) } + [[0xEF, 0xBB, 0xBF], [0x80], [0xFF], [0x00]]
        var parsed = 0
        for _ in 0..<3_000 {
            let bytes = (0..<rng.below(40)).flatMap { _ in tokens[rng.below(tokens.count)] }
            if DesktopEntry.parse(bytes) != nil { parsed += 1 }
        }
        // The alphabet makes some inputs well-formed groups and most not: both paths are exercised.
        #expect(parsed > 0 && parsed < 3_000)
    }
}

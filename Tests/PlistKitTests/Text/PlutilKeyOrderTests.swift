import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// The key order of `plutil -p` and `-extract … raw`. Oracle: the order Apple's `plutil -p` prints for the same keys
/// (ICU root collation with numeric digit runs, which `PlutilKeyOrder` approximates for ASCII and Latin-1).
@Suite struct PlutilKeyOrderTests {
    /// The keys of a flat dictionary in the order Apple's `plutil -p` prints them.
    static func appleOrder(_ file: String) throws -> [String] {
        let apple = try ApplePlutil.run(["-p", file])
        return apple.out.split(separator: "\n", omittingEmptySubsequences: false).dropFirst().dropLast(2).map { line in
            let body = line.dropFirst(3)  // two spaces and the opening quote
            return String(body[..<(body.range(of: "\" => ")?.lowerBound ?? body.endIndex)])
        }
    }

    @Test(.enabled(if: ApplePlutil.path != nil, ApplePlutil.missingReason))
    func chosenKeysMatchApplePlutil() throws {
        let keys = [
            "_a", "a", "B", "[", "a01", "a1", "a001", "A1", "é", "e", "z", "Z", "1", "10", "9", "a2b", "a10b", "~", "",
            "ä", "b", "A", "a1.5", "a1.10", " ", "-1", "$", "|", "!", "?", "@", "*", "\\", "&", "#", "%", "`", "^",
            "+", "<", "=", ">", ",", ";", ":", ".", "'", "\"", "(", ")", "{", "}", "ß", "ss", "st", "sr", "Æ", "ae", "af", "æ", "Ø", "o", "ö", "Ö", "ñ", "n",
            "x9", "x09", "x0", "x", "ab", "aB", "Ab", "AB", "a b", "a_b", "a-b", "0", "00", "007", "7",
            // Format characters (U+FEFF, zero-width space, soft hyphen) are ignorable, as in ICU. (Not at the start of
            // a key: Apple's XML reader drops a leading U+FEFF.)
            "a\u{FEFF}b", "b\u{200B}", "c\u{AD}d", "cd", "😀", "☃",
        ]
        var document = PlistDictionary()
        for (i, k) in keys.enumerated() { document[k] = .integer(PlistInteger(i)) }
        let dir = try ApplePlutil.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try ApplePlutil.writeTemporary(.dictionary(document), in: dir)
        #expect(try PlutilKeyOrder.sorted(keys) == Self.appleOrder(file))
    }

    @Test(.enabled(if: ApplePlutil.path != nil, ApplePlutil.missingReason), arguments: 1...5)
    func randomASCIIKeysMatchApplePlutil(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        let alphabet = Array("aAbBzZ09_-. ~!$/\\é1")
        var document = PlistDictionary()
        for i in 0..<150 {
            let n = Int.random(in: 0...5, using: &rng)
            let key = String((0..<n).map { _ in alphabet.randomElement(using: &rng) ?? "a" })
            document[key] = .integer(PlistInteger(i))
        }
        let dir = try ApplePlutil.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try ApplePlutil.writeTemporary(.dictionary(document), in: dir)
        #expect(try PlutilKeyOrder.sorted(document.keys) == Self.appleOrder(file))
    }

    @Test(.enabled(if: ApplePlutil.path != nil, ApplePlutil.missingReason), arguments: 1...5)
    func randomWiderKeysMatchApplePlutil(seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        // No combining marks: Apple's tool keeps its keys in a Swift dictionary, which merges canonically
        // equivalent keys (é and e + U+0301) and so prints only one of them.
        let alphabet = Array("aAbB09_ ~$éÉαΑβΒжЖ中文€•\u{A0}")
        var document = PlistDictionary()
        for i in 0..<150 {
            let n = Int.random(in: 0...4, using: &rng)
            let key = String(String.UnicodeScalarView((0..<n).flatMap { _ in
                (alphabet.randomElement(using: &rng) ?? "a").unicodeScalars
            }))
            document[key] = .integer(PlistInteger(i))
        }
        let dir = try ApplePlutil.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try ApplePlutil.writeTemporary(.dictionary(document), in: dir)
        #expect(try PlutilKeyOrder.sorted(document.keys) == Self.appleOrder(file))
    }

    @Test func distinctKeysNeverCompareEqual() {
        #expect(PlutilKeyOrder.less("a1", "a01"))
        #expect(!PlutilKeyOrder.less("a01", "a1"))
        #expect(!PlutilKeyOrder.less("x", "x"))
        #expect(PlutilKeyOrder.less("e\u{301}", "\u{e9}") != PlutilKeyOrder.less("\u{e9}", "e\u{301}"))
    }
}

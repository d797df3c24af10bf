import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// Dictionaries whose entries are ordered in runs on disk (`EntryRuns`): with the bound made tiny, so that a run
/// holds an entry or two and the runs merge in several passes, a stream gives the tree path's bytes and errors.
@Suite struct SpilledEntriesTests {
    typealias Outcome = StreamingConversionTests.Outcome

    /// Text outputs, keys sorted (the orders runs are merged in) and not.
    static let outputs: [(PlistFormat, PlistWriteOptions)] = {
        var list: [(PlistFormat, PlistWriteOptions)] = []
        for format in [PlistFormat.xml, .json, .openStep, .gnustep, .strings] {
            for sorted in [true, false] {
                var o = PlistWriteOptions()
                o.sortKeys = sorted
                o.lossy = format == .openStep || format == .strings
                list.append((format, o))
            }
        }
        return list
    }()

    /// A conversion with entries spilled past `entryMemory` bytes, `fanIn` runs merged at a time, temporary files in
    /// `directory`.
    static func spilled(_ input: [UInt8], _ format: PlistFormat, _ options: PlistWriteOptions, _ read: PlistReadOptions,
                        entryMemory: Int = 64, fanIn: Int = 3, directory: String? = nil) -> Outcome {
        StreamingConversionTests.streamed(input, format, options, read, entrySpillMemory: entryMemory, entryFanIn: fanIn,
                                          temporaryDirectory: directory)
    }

    static func expectSameAsTree(_ input: [UInt8], _ label: String, read: PlistReadOptions = PlistReadOptions(),
                                 sourceLocation: SourceLocation = #_sourceLocation) {
        for (format, options) in outputs {
            let expected = StreamingConversionTests.tree(input, format, options, read)
            let got = spilled(input, format, options, read)
            #expect(got == expected, "\(label) → \(format) sorted \(options.sortKeys)", sourceLocation: sourceLocation)
        }
    }

    /// Keys whose orders differ: UTF-16 puts U+1F600 (a surrogate pair) before U+FFFD, scalar order after; JSON's
    /// order folds case. Plus accents in both spellings, which are different keys.
    static let awkwardKeys = ["\u{FFFD}", "\u{1F600}", "\u{E000}x", "\u{10000}", "é", "e\u{301}", "E", "e", "Z", "a", "_", "10", "9", "", "ü", "Ü", "日本"]

    static func randomKey(_ g: inout SeededGenerator) -> String {
        if g.below(3) == 0 { return awkwardKeys[g.below(awkwardKeys.count)] + String(g.below(50)) }
        let alphabet: [Character] = ["a", "B", "z", "0", "é", "\u{FFFD}", "\u{1F600}", " ", "-", "日"]
        return String((0 ..< 1 + g.below(6)).map { _ in alphabet[g.below(alphabet.count)] })
    }

    static func escaped(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }

    /// An XML dictionary of `count` entries with random keys (repeated ones among them when `repeats`), values
    /// integers, strings, arrays and — when `depth` allows — dictionaries made the same way, unique keys inside.
    static func xmlDictionary(_ g: inout SeededGenerator, count: Int, repeats: Bool, depth: Int) -> String {
        var s = "<dict>"
        var used = Set<[UInt8]>()
        for _ in 0 ..< count {
            var key = randomKey(&g)
            if !repeats {
                while !used.insert(Array(key.utf8)).inserted { key += "+" }
            }
            s += "<key>\(escaped(key))</key>"
            switch g.below(depth > 0 ? 5 : 3) {
            case 0: s += "<integer>\(g.below(1000))</integer>"
            case 1: s += "<string>\(escaped(randomKey(&g)))</string>"
            case 2: s += "<array><integer>1</integer><string>x</string></array>"
            default: s += xmlDictionary(&g, count: g.below(12), repeats: false, depth: depth - 1)
            }
        }
        return s + "</dict>"
    }

    static func document(_ body: String) -> [UInt8] { Array("<plist version=\"1.0\">\(body)</plist>".utf8) }

    /// A few hundred random keys, nested dictionaries inside the spilled one (spilled too), unique keys.
    @Test func spilledDictionariesGiveTheTreeBytes() throws {
        for seed in 0 ..< 2 {
            var g = SeededGenerator(seed: UInt64(seed))
            let input = Self.document(Self.xmlDictionary(&g, count: 200 + g.below(100), repeats: false, depth: 2))
            Self.expectSameAsTree(input, "seed \(seed)")
            // The same value from the other text readers.
            let value = try PropertyList.read(input).value
            for format in [PlistFormat.json, .gnustep, .openStep] {
                var o = PlistWriteOptions()
                o.lossy = true
                o.sortKeys = seed % 2 == 0
                guard let text = try? PropertyList.writeBytes(value, format: format, options: o) else { continue }
                Self.expectSameAsTree(text, "seed \(seed) from \(format)")
            }
        }
    }

    /// Repeated keys in the spilled dictionary follow each policy as in the tree: the value kept, its place, and
    /// under `.reject` the same error (the first key repeated in document order, at its offset).
    @Test(arguments: [DuplicateKeyPolicy.lastWins, .firstWins, .reject])
    func repeatedKeysFollowThePolicy(_ policy: DuplicateKeyPolicy) throws {
        var read = PlistReadOptions()
        read.duplicateKeys = policy
        for seed in 0 ..< 2 {
            var g = SeededGenerator(seed: 100 + UInt64(seed))
            let input = Self.document(Self.xmlDictionary(&g, count: 300, repeats: true, depth: 1))
            Self.expectSameAsTree(input, "seed \(seed), \(policy)", read: read)
        }
        // Known shapes: the same key three times, far apart (in different runs), and the first repeat late.
        var body = "<dict>"
        for i in 0 ..< 120 { body += "<key>k\(i)</key><integer>\(i)</integer>" }
        body += "<key>k7</key><string>second</string><key>k3</key><string>second</string>"
        for i in 120 ..< 200 { body += "<key>k\(i)</key><integer>\(i)</integer>" }
        body += "<key>k7</key><string>third</string></dict>"
        let input = Self.document(body)
        Self.expectSameAsTree(input, "known repeats, \(policy)", read: read)
        if policy == .reject {
            let outcome = Self.spilled(input, .xml, PlistWriteOptions(), read)
            let offset = Array(input).firstRange(of: Array("<key>k7</key><string>second".utf8))!.lowerBound
            #expect(outcome == .failure(PlistError(.duplicateKey, "duplicate key \"k7\" in a dictionary", format: .xml,
                                                   offset: offset, line: 1, column: offset + 1, keyPath: KeyPath(components: ["k7"]))),
                    "\(outcome)")
        }
    }

    /// Binary input: a dictionary's keys, read first, go to the same runs past the bound; the stream still gives the
    /// tree's bytes and errors, under every policy, repeated keys (separate key objects and one object twice) in
    /// different runs among them.
    @Test(arguments: [DuplicateKeyPolicy.coreFoundation, .lastWins, .firstWins, .reject])
    func binaryDictionariesSpillAsTextOnesDo(_ policy: DuplicateKeyPolicy) throws {
        var read = PlistReadOptions()
        read.duplicateKeys = policy
        for seed in 0 ..< 2 {
            var g = SeededGenerator(seed: 200 + UInt64(seed))
            let value = try PropertyList.read(Self.document(Self.xmlDictionary(&g, count: 250, repeats: false, depth: 2))).value
            var unsorted = PlistWriteOptions()
            unsorted.sortKeys = false
            Self.expectSameAsTree(try PropertyList.writeBytes(value, format: .binary, options: unsorted), "binary seed \(seed), \(policy)", read: read)
        }
        typealias F = BinaryFixture
        var objects: [[UInt8]] = [[]]
        var keys: [UInt64] = []
        var values: [UInt64] = []
        let shared = UInt64(objects.count)
        objects.append(F.ascii("shared"))
        for i in 0 ..< 300 {
            if i % 97 == 5 {
                keys.append(shared)
            } else {
                keys.append(UInt64(objects.count))
                objects.append(F.ascii("k\(i % 230)"))
            }
            values.append(UInt64(objects.count))
            objects.append(F.int(UInt8(i % 200)))
        }
        objects[0] = F.dict(keys, values, refSize: 2)
        Self.expectSameAsTree(F(objects, offsetSize: 4, refSize: 2).bytes, "binary repeats, \(policy)", read: read)
    }

    /// The `CF$UID` dictionary (one entry) is a UID when spilled, alone and inside a spilled dictionary.
    @Test func uidDictionariesCollapse() throws {
        let uid = "<dict><key>CF$UID</key><integer>7</integer></dict>"
        Self.expectSameAsTree(Self.document(uid), "CF$UID alone")
        var body = "<dict>"
        for i in 0 ..< 50 { body += "<key>u\(i)</key>\(i % 5 == 0 ? uid : "<integer>\(i)</integer>")" }
        Self.expectSameAsTree(Self.document(body + "</dict>"), "CF$UID inside")
        // Not a UID: a wrong key or value, as in the tree.
        Self.expectSameAsTree(Self.document("<dict><key>CF$UID</key><string>7</string></dict>"), "CF$UID string")
    }

    /// The runs' file is unlinked as soon as it is made: nothing is left in the directory, during or after.
    @Test func runFilesAreUnlinked() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("spill-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let runs = EntryRuns<UTF16KeyOrder>(fanIn: 2, directory: directory)
        var g = SeededGenerator(seed: 9)
        var all: [LoggedEntry] = []
        for i in 0 ..< 100 {
            let key = Self.randomKey(&g)
            all.append(LoggedEntry(key: key, value: i * 3, offset: i * 7, index: i))
        }
        for start in stride(from: 0, to: all.count, by: 7) {
            var run = Array(all[start ..< min(start + 7, all.count)])
            try runs.writeRun(&run)
            #expect(run.isEmpty)
        }
        #expect(runs.runs.count == 15 && runs.count == 100)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty, "the file is unlinked while in use")
        // Merged (in passes of two): UTF-16 order, equal keys in document order — Swift's stable sort on UTF-16
        // code units says which.
        var merge = try runs.merged()
        var got: [LoggedEntry] = []
        while let e = try merge.next() { got.append(e) }
        let expected = all.enumerated().sorted { a, b in
            let (x, y) = (Array(a.element.key.utf16), Array(b.element.key.utf16))
            return x.lexicographicallyPrecedes(y) || (x == y && a.offset < b.offset)
        }.map(\.element)
        #expect(got.map(\.key) == expected.map(\.key))
        #expect(got.map(\.index) == expected.map(\.index))
        #expect(got.map(\.value) == expected.map { $0.index * 3 } && got.map(\.offset) == expected.map { $0.index * 7 })
        // A whole conversion leaves nothing behind either.
        var h = SeededGenerator(seed: 10)
        let input = Self.document(Self.xmlDictionary(&h, count: 300, repeats: true, depth: 1))
        let outcome = Self.spilled(input, .xml, PlistWriteOptions(), PlistReadOptions(), directory: directory)
        #expect(outcome == StreamingConversionTests.tree(input, .xml, PlistWriteOptions(), PlistReadOptions()))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).isEmpty)
    }
}

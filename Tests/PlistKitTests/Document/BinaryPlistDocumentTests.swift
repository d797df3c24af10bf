import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// The lazy binary document against the eager reader: the same answers on every path, the same failures.
@Suite struct BinaryPlistDocumentTests {
    typealias F = BinaryFixture

    /// Key paths into `value`: every path that exists (up to a bound), and some that do not — a missing key, an index
    /// past the end, an index that is not a number, a path through a scalar.
    static func paths(in value: PlistValue, limit: Int = 200) -> [KeyPath] {
        var out: [KeyPath] = [KeyPath(components: [])]
        func walk(_ v: PlistValue, _ path: [String]) {
            guard out.count < limit else { return }
            switch v {
            case .dictionary(let d):
                out.append(KeyPath(components: path + ["no such key \u{1F600}"]))
                for (k, child) in d {
                    out.append(KeyPath(components: path + [k]))
                    walk(child, path + [k])
                }
            case .array(let a):
                out.append(KeyPath(components: path + [String(a.count)]))
                out.append(KeyPath(components: path + ["x"]))
                for (i, child) in a.enumerated() {
                    out.append(KeyPath(components: path + [String(i)]))
                    walk(child, path + [String(i)])
                }
            default:
                out.append(KeyPath(components: path + ["0"]))
            }
        }
        walk(value, [])
        return out
    }

    /// Every path of `bytes`' tree answers the same through the document.
    static func expectLookupsAgree(_ bytes: [UInt8], _ label: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let eager = try PropertyList.read(bytes).value
        let document = try BinaryPlistDocument(bytes)
        #expect(try document.value() == eager, "\(label)", sourceLocation: sourceLocation)
        for path in paths(in: eager) {
            let expected = eager[path: path]
            let object = try document.object(at: path)
            #expect((object == nil) == (expected == nil), "\(label) \(path)", sourceLocation: sourceLocation)
            guard let object, let expected else { continue }
            #expect(object.typeName == expected.typeName, "\(label) \(path)", sourceLocation: sourceLocation)
            if !label.contains("duplicate-keys") {  // (a key written twice counts twice in the file)
                #expect(object.count == (expected.arrayValue?.count ?? expected.dictionaryValue?.count),
                        "\(label) \(path)", sourceLocation: sourceLocation)
            }
            #expect(try document.value(at: path) == expected, "\(label) \(path)", sourceLocation: sourceLocation)
        }
    }

    @Test func lookupsOfRandomKeyPathsEqualTheEagerTree() throws {
        var config = RandomPlist.Config()
        config.uids = true
        config.float32 = true
        for seed in 0..<300 {
            var generator = RandomPlist(seed: UInt64(seed), config: config)
            let value = generator.value()
            var options = PlistWriteOptions()
            options.sortKeys = seed % 2 == 0
            try Self.expectLookupsAgree(try PropertyList.writeBytes(value, format: .binary, options: options), "seed \(seed)")
        }
    }

    @Test func lookupsInEveryValidCorpusBinaryEqualTheEagerTree() throws {
        var checked = 0
        for entry in try CorpusTests.entries() where entry.fields["error"] == nil && entry.fields["format"]?.string == "binary" {
            try Self.expectLookupsAgree(try [UInt8](Data(contentsOf: CorpusTests.root.appendingPathComponent(entry.path))), entry.path)
            checked += 1
        }
        #expect(checked >= 15)
    }

    /// Keys written as UTF-16 (the writer's choice for non-ASCII) are found by their scalars, and an "é" is not the
    /// same key as "e" + U+0301.
    @Test func utf16KeysAreComparedByScalars() throws {
        let value: PlistValue = ["\u{E9}": 1, "e\u{301}": 2, "😀": ["ß": true], "plain": 3]
        let document = try BinaryPlistDocument(try PropertyList.writeBytes(value, format: .binary))
        #expect(try document.value(at: KeyPath(components: ["\u{E9}"])) == 1)
        #expect(try document.value(at: KeyPath(components: ["e\u{301}"])) == 2)
        #expect(try document.value(at: KeyPath(components: ["😀", "ß"])) == true)
        #expect(try document.object(at: KeyPath(components: ["e"])) == nil)
    }

    /// The duplicate-key policy decides between equal keys, as in the tree reader.
    @Test(arguments: [DuplicateKeyPolicy.lastWins, .firstWins, .reject, .coreFoundation])
    func repeatedKeysFollowThePolicy(_ policy: DuplicateKeyPolicy) throws {
        // {a: 1, b: 0, a: 2}, the two "a" being different objects.
        let bytes = F([[0xD3, 1, 2, 3, 4, 5, 6], [0x51, 0x61], [0x51, 0x62], [0x51, 0x61], [0x10, 1], [0x10, 0], [0x10, 2]]).bytes
        var options = PlistReadOptions()
        options.duplicateKeys = policy
        let document = try BinaryPlistDocument(bytes, options: options)
        switch policy {
        case .lastWins: #expect(try document.value(at: "a") == 2)
        case .firstWins, .coreFoundation: #expect(try document.value(at: "a") == 1)
        case .reject:
            let eager = #expect(throws: PlistError.self) { try PropertyList.read(bytes, options: options) }
            let lazy = #expect(throws: PlistError.self) { try document.value(at: "b") }
            #expect(lazy?.kind == .duplicateKey && lazy?.offset == eager?.offset, "\(String(describing: lazy)) vs \(String(describing: eager))")
        }
    }

    /// Every invalid binary Corpus file fails through the document as it fails through `read`: at opening when the
    /// trailer or offset table is at fault, else when the whole value is asked for — with the same kind and offset.
    @Test func hostileFilesFailTheSameWayThroughTheDocument() throws {
        var checked = 0
        for entry in try CorpusTests.entries() where entry.section == "invalid/binary" {
            let bytes = try [UInt8](Data(contentsOf: CorpusTests.root.appendingPathComponent(entry.path)))
            let eager = #expect(throws: PlistError.self, "\(entry.path)") { try PropertyList.read(bytes) }
            let clock = ContinuousClock()
            let start = clock.now
            let lazy = #expect(throws: PlistError.self, "\(entry.path)") {
                let document = try BinaryPlistDocument(bytes)
                _ = try document.value()
            }
            #expect(clock.now - start < .seconds(3), "\(entry.path)")
            #expect(lazy?.kind == eager?.kind && lazy?.offset == eager?.offset,
                    "\(entry.path): \(String(describing: lazy)) vs \(String(describing: eager))")
            checked += 1
        }
        #expect(checked >= 30)
    }

    /// A lookup touches only its path: a broken object elsewhere does not stop it, and a broken object on the path
    /// is reported as the tree reader reports it, with the key path.
    @Test func lookupsCheckWhatTheyTouch() throws {
        // {good: 1, bad: …} with an unassigned marker (0x9n) as the second value.
        let bytes = F([[0xD2, 1, 2, 3, 4], [0x54, 0x67, 0x6F, 0x6F, 0x64], [0x53, 0x62, 0x61, 0x64], [0x10, 1], [0x91]]).bytes
        let eager = #expect(throws: PlistError.self) { try PropertyList.read(bytes) }
        let document = try BinaryPlistDocument(bytes)
        #expect(try document.value(at: "good") == 1)
        let lazy = #expect(throws: PlistError.self) { try document.value(at: "bad") }
        #expect(lazy?.kind == .syntax && lazy?.offset == eager?.offset)
        // A dictionary whose own key is broken fails any lookup in it (every key is checked on the way).
        let badKey = F([[0xD1, 1, 2], [0x10, 1], [0x10, 1]]).bytes
        let e = #expect(throws: PlistError.self) { try BinaryPlistDocument(badKey).object(at: "x") }
        #expect(e?.kind == .nonStringKey)
    }

    /// A dictionary that contains itself: a lookup that comes back to a container it is inside fails as the tree
    /// reader fails (a cycle), never a loop; materialising it is a cycle error too.
    @Test func cyclesCannotMakeALookupLoop() throws {
        let bytes = F([[0xD1, 1, 0], [0x51, 0x61]]).bytes  // {a: <itself>}
        let eager = #expect(throws: PlistError.self) { try PropertyList.read(bytes) }
        let document = try BinaryPlistDocument(bytes)
        #expect(try document.object(at: KeyPath(components: []))?.typeName == "dictionary")
        for steps in [1, 2, 10_000] {
            let path = KeyPath(components: Array(repeating: "a", count: steps))
            let lookup = #expect(throws: PlistError.self) { try document.object(at: path) }
            #expect(lookup?.kind == .cycle && lookup?.kind == eager?.kind && lookup?.keyPath == "a")
            let e = #expect(throws: PlistError.self) { try document.value(at: path) }
            #expect(e?.kind == .cycle)
        }
        let root = #expect(throws: PlistError.self) { try document.value(at: KeyPath(components: [])) }
        #expect(root?.kind == .cycle)
    }

    /// A mapped file gives the same answers as the bytes; an empty file and a missing one are errors.
    @Test func mappedFilesAreOpenedWithoutReading() throws {
        let value: PlistValue = ["k": [1, 2, ["deep": "x"]]]
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("lazy-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("p.bplist")
        try PropertyList.write(value, format: .binary).write(to: file)
        let document = try BinaryPlistDocument(contentsOfFile: file.path)
        #expect(try document.value(at: "k.2.deep") == "x")
        #expect(try document.value() == value)
        let empty = dir.appendingPathComponent("empty")
        try Data().write(to: empty)
        #expect(throws: PlistError.self) { try BinaryPlistDocument(contentsOfFile: empty.path) }
        let missing = #expect(throws: PlistError.self) { try BinaryPlistDocument(contentsOfFile: dir.appendingPathComponent("none").path) }
        #expect(missing?.kind == .io)
    }
}

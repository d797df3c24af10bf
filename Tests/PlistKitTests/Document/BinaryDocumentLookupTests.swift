import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// Lookups in large dictionaries (indexed on the first lookup) and in dictionaries whose keys repeat, against a model
/// of the file and against the eager tree, under every duplicate-key policy; and hostile lookups.
@Suite struct BinaryDocumentLookupTests {
    typealias F = BinaryFixture

    /// A document as written: dictionaries keep every entry (a key may repeat, spelled in ASCII or UTF-16).
    indirect enum Node {
        case integer(UInt8)
        case string(String)
        case array([Node])
        case dictionary([(key: String, wide: Bool, value: Node)])

        /// Whether some key repeats, here or below.
        var repeatsAKey: Bool {
            switch self {
            case .integer, .string: return false
            case .array(let a): return a.contains { $0.repeatsAKey }
            case .dictionary(let d): return repeatsOwnKey || d.contains { $0.value.repeatsAKey }
            }
        }

        var repeatsOwnKey: Bool {
            guard case .dictionary(let d) = self else { return false }
            return Set(d.map { Array($0.key.unicodeScalars.map(\.value)) }).count != d.count
        }

        /// The tree value under `policy` (nil under `.reject` when a key repeats).
        func value(_ policy: DuplicateKeyPolicy) -> PlistValue? {
            let policy = policy == .coreFoundation ? .firstWins : policy  // as CF's binary reader
            switch self {
            case .integer(let n): return .integer(PlistInteger(Int64(n)))
            case .string(let s): return .string(s)
            case .array(let a):
                var out: [PlistValue] = []
                for e in a {
                    guard let v = e.value(policy) else { return nil }
                    out.append(v)
                }
                return .array(out)
            case .dictionary(let d):
                if policy == .reject, repeatsOwnKey { return nil }
                var out = PlistDictionary()
                for (k, _, e) in d {
                    guard let v = e.value(policy) else { return nil }
                    if out[k] == nil || policy == .lastWins { out[k] = v }
                }
                return .dictionary(out)
            }
        }

        /// The node at `path` under `policy`: `.success(nil)` for no value, `.failure` for a repeated key on the way.
        func lookUp(_ path: ArraySlice<String>, _ policy: DuplicateKeyPolicy) -> Result<Node?, Repeated> {
            let policy = policy == .coreFoundation ? .firstWins : policy  // as CF's binary reader
            guard let first = path.first else { return .success(self) }
            switch self {
            case .integer, .string: return .success(nil)
            case .array(let a):
                guard let i = KeyPath.arrayIndex(first), i < a.count else { return .success(nil) }
                return a[i].lookUp(path.dropFirst(), policy)
            case .dictionary(let d):
                if policy == .reject, repeatsOwnKey { return .failure(Repeated()) }
                let wanted = Array(first.unicodeScalars)
                let matches = d.filter { Array($0.key.unicodeScalars) == wanted }
                guard let match = policy == .firstWins ? matches.first : matches.last else { return .success(nil) }
                return match.value.lookUp(path.dropFirst(), policy)
            }
        }

        /// Every path into the node, and some that lead nowhere.
        func paths(_ prefix: [String] = [], into out: inout [[String]]) {
            out.append(prefix)
            switch self {
            case .integer, .string: out.append(prefix + ["0"])
            case .array(let a):
                out.append(prefix + [String(a.count)])
                for (i, e) in a.enumerated() { e.paths(prefix + [String(i)], into: &out) }
            case .dictionary(let d):
                out.append(prefix + ["missing"])
                out.append(prefix + ["k\u{301}"])
                for (k, _, e) in d { e.paths(prefix + [k], into: &out) }
            }
        }
    }

    struct Repeated: Error {}

    /// A random document: dictionaries of up to `large` entries (crossing the index threshold), keys from a small
    /// pool so that some repeat, ASCII keys sometimes written as UTF-16, some keys not ASCII at all.
    static func randomNode(_ rng: inout SeededGenerator, depth: Int = 0, large: Int = 150) -> Node {
        let roll = Int.random(in: 0 ..< 10, using: &rng)
        if depth >= 3 || roll < 3 {
            return roll % 2 == 0 ? .integer(UInt8.random(in: 0 ... 200, using: &rng)) : .string("s\(Int.random(in: 0 ..< 50, using: &rng))")
        }
        let count = Int.random(in: 0 ..< 10, using: &rng) == 0 ? Int.random(in: 60 ... large, using: &rng) : Int.random(in: 0 ... 6, using: &rng)
        if roll < 5 { return .array((0 ..< min(count, 20)).map { _ in randomNode(&rng, depth: depth + 1, large: large) }) }
        let pool = max(2, count + count / 8 + Int.random(in: 0 ... 2, using: &rng))
        var entries: [(key: String, wide: Bool, value: Node)] = []
        for _ in 0 ..< count {
            let n = Int.random(in: 0 ..< pool, using: &rng)
            let key: String
            switch n % 17 {
            case 0: key = "é\(n)"
            case 1: key = "😀\(n)"
            case 2: key = "e\u{301}\(n)"
            default: key = n % 5 == 0 ? "a long key, longer than a short string \(n)" : "k\(n)"
            }
            let nonASCII = key.utf8.contains { $0 >= 0x80 }
            let wide = nonASCII || Int.random(in: 0 ..< 6, using: &rng) == 0
            entries.append((key, wide, count > 20 ? .integer(UInt8(truncatingIfNeeded: n)) : randomNode(&rng, depth: depth + 1, large: large)))
        }
        return .dictionary(entries)
    }

    /// The node as a binary plist (each key its own object; 2-byte references).
    static func bytes(_ root: Node) -> [UInt8] {
        var objects: [[UInt8]] = []
        func add(_ node: Node) -> UInt64 {
            let index = objects.count
            objects.append([])
            switch node {
            case .integer(let n): objects[index] = F.int(n)
            case .string(let s): objects[index] = F.ascii(s)
            case .array(let a):
                let refs = a.map { add($0) }
                objects[index] = F.array(refs, refSize: 2)
            case .dictionary(let d):
                var keys: [UInt64] = []
                var values: [UInt64] = []
                for (k, wide, v) in d {
                    keys.append(UInt64(objects.count))
                    objects.append(wide ? F.utf16(Array(k.utf16)) : F.ascii(k))
                    values.append(add(v))
                }
                objects[index] = F.dict(keys, values, refSize: 2)
            }
            return UInt64(index)
        }
        _ = add(root)
        var fixture = F(objects, offsetSize: 4, refSize: 2)
        fixture.top = 0
        return fixture.bytes
    }

    @Test(arguments: [DuplicateKeyPolicy.lastWins, .firstWins, .reject, .coreFoundation])
    func randomDocumentsWithRepeatedKeysAnswerAsTheModelAndTheTree(_ policy: DuplicateKeyPolicy) throws {
        var options = PlistReadOptions()
        options.duplicateKeys = policy
        var indexed = 0
        for seed in 0 ..< 60 {
            var rng = SeededGenerator(seed: UInt64(seed) &* 7919 &+ 3)
            let root = Self.randomNode(&rng)
            let bytes = Self.bytes(root)
            let eager = try? PropertyList.read(bytes, options: options).value
            #expect((eager == nil) == (policy == .reject && root.repeatsAKey), "seed \(seed)")
            // A tiny index allowance on odd seeds: every large dictionary is scanned each time instead.
            let document = try BinaryPlistDocument(bytes, options: options, lookupIndexMemory: seed % 2 == 0 ? 1 << 20 : 0)
            var paths: [[String]] = []
            root.paths(into: &paths)
            for round in 0 ..< 2 {  // (the second time through, the indexes are built)
                for path in paths {
                    let keyPath = KeyPath(components: path)
                    let label = "seed \(seed) round \(round) \(path)"
                    switch root.lookUp(path[...], policy) {
                    case .failure:
                        let e = #expect(throws: PlistError.self, "\(label)") { try document.object(at: keyPath) }
                        #expect(e?.kind == .duplicateKey, "\(label): \(String(describing: e))")
                    case .success(.none):
                        #expect(try document.object(at: keyPath) == nil, "\(label)")
                        if let eager { #expect(eager[path: keyPath] == nil, "\(label)") }
                    case .success(.some(let node)):
                        let expected = node.value(policy)
                        if let expected {
                            #expect(try document.value(at: keyPath) == expected, "\(label)")
                        } else {
                            let e = #expect(throws: PlistError.self, "\(label)") { try document.value(at: keyPath) }
                            #expect(e?.kind == .duplicateKey, "\(label)")
                        }
                        if let eager { #expect(eager[path: keyPath] == expected, "\(label)") }
                    }
                }
            }
            indexed += document.cachedIndexCount
        }
        #expect(policy == .reject || indexed > 5)
    }

    /// A dictionary of 20,000 entries (its index sorted in several passes) whose keys repeat, some spelled once in
    /// ASCII and once in UTF-16: every key, and some missing ones, answer as the tree — or, under `.reject`, fail
    /// with the tree's error.
    @Test(arguments: [DuplicateKeyPolicy.lastWins, .firstWins, .reject, .coreFoundation])
    func aHugeDictionaryWithRepeatedKeys(_ policy: DuplicateKeyPolicy) throws {
        var rng = SeededGenerator(seed: 20_000)
        var entries: [(key: String, wide: Bool, value: Node)] = []
        for i in 0 ..< 20_000 {
            let n = Int.random(in: 0 ..< 16_000, using: &rng)
            let key = n % 97 == 0 ? "ü\(n)" : "key \(n)"
            entries.append((key, key.utf8.count != key.utf16.count || n % 3 == 0, .integer(UInt8(truncatingIfNeeded: i))))
        }
        let root = Node.dictionary(entries)
        let bytes = Self.bytes(root)
        var options = PlistReadOptions()
        options.duplicateKeys = policy
        let document = try BinaryPlistDocument(bytes, options: options)
        guard policy != .reject else {
            let eager = #expect(throws: PlistError.self) { try PropertyList.read(bytes, options: options) }
            for _ in 0 ..< 2 {
                let lazy = #expect(throws: PlistError.self) { try document.object(at: "key 1") }
                #expect(lazy?.kind == .duplicateKey && lazy?.offset == eager?.offset && lazy?.keyPath == eager?.keyPath,
                        "\(String(describing: lazy)) vs \(String(describing: eager))")
            }
            return
        }
        let eager = try PropertyList.read(bytes, options: options).value
        for round in 0 ..< 2 {
            for n in 0 ..< 16_100 {
                let path = KeyPath(components: [n % 97 == 0 ? "ü\(n)" : "key \(n)"])
                #expect(try document.object(at: path).map { try document.value(of: $0) } == eager[path: path], "round \(round) \(path)")
            }
        }
        #expect(document.cachedIndexCount == 1)
    }

    /// Generated documents with large dictionaries, written by the library's writer (uniqued keys and values).
    @Test func largeDictionariesWrittenByTheWriterAnswerAsTheTree() throws {
        var config = RandomPlist.Config()
        config.maxCollection = 150
        config.maxDepth = 3
        for seed in 0 ..< 40 {
            var generator = RandomPlist(seed: UInt64(seed), config: config)
            let value = generator.value()
            let bytes = try PropertyList.writeBytes(value, format: .binary)
            try BinaryPlistDocumentTests.expectLookupsAgree(bytes, "seed \(seed)")
            let document = try BinaryPlistDocument(bytes)
            for path in BinaryPlistDocumentTests.paths(in: value, limit: 400) {
                _ = try document.object(at: path)
                #expect(try document.object(at: path).map { try document.value(of: $0) } == value[path: path], "seed \(seed) \(path)")
            }
        }
    }

    /// Short ASCII keys of every length a one-byte marker holds (compared as two words) beside longer and UTF-16
    /// keys that share their prefixes, in a dictionary large enough to be scanned: each key finds its own value, and
    /// keys that differ only past a word, or only in length, are told apart.
    @Test func shortKeysOfEveryLengthInALargeDictionary() throws {
        var entries: [(String, PlistValue)] = []
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz")
        for length in 0 ... 17 {
            for variant in 0 ..< 4 {
                var key = String(repeating: "k", count: length)
                if length > 0, variant > 0 {
                    // The same key with one byte changed: at the start, in the middle, at the end.
                    var chars = Array(key)
                    chars[[0, length / 2, length - 1][variant - 1]] = alphabet[(length + variant) % 26]
                    key = String(chars)
                }
                entries.append((key, .integer(PlistInteger(Int64(entries.count)))))
            }
        }
        entries.append(("kkkké", .string("wide")))
        entries.append(("kkkk\u{80}", .string("wide too")))
        var seen = Set<String>()
        entries = entries.filter { seen.insert($0.0).inserted }
        let value = PlistValue.dictionary(PlistDictionary(entries))
        let bytes = try PropertyList.writeBytes(value, format: .binary)
        // A new document for each: a document's first lookup in a dictionary is the pass over its keys (the second
        // builds an index).
        for (key, expected) in entries {
            let document = try BinaryPlistDocument(bytes)
            #expect(try document.value(at: KeyPath(components: [key])) == expected, "\(key.debugDescription)")
        }
        for missing in ["kkkkkkkkkkkkkkx", "kkkkkkkkq", "x", "kkkkkkkkkkkkkkkkkkkk"] {
            let document = try BinaryPlistDocument(bytes)
            #expect(try document.object(at: KeyPath(components: [missing])) == nil, "\(missing)")
        }
    }

    /// A large dictionary whose keys are one string object: the same key 200 times (under `.reject` an error),
    /// however long that key is, costs one check of it.
    @Test(arguments: [DuplicateKeyPolicy.lastWins, .firstWins, .reject, .coreFoundation])
    func manyEntriesNamingOneLongKeyObject(_ policy: DuplicateKeyPolicy) throws {
        let long = String(repeating: "x", count: 60_000)
        var objects: [[UInt8]] = [[], F.ascii(long)]
        let count = 5_000
        for i in 0 ..< count { objects.append(F.int(UInt8(i % 200))) }
        objects[0] = F.dict(Array(repeating: 1, count: count), (0 ..< UInt64(count)).map { $0 + 2 }, refSize: 2)
        let bytes = F(objects, offsetSize: 4, refSize: 2).bytes
        var options = PlistReadOptions()
        options.duplicateKeys = policy
        let eager = Result { try PropertyList.read(bytes, options: options).value }
        let clock = ContinuousClock()
        let start = clock.now
        let document = try BinaryPlistDocument(bytes, options: options)
        let lazy = Result { try document.value(at: KeyPath(components: [long])) }
        #expect(clock.now - start < .seconds(5))
        switch (eager, lazy) {
        case (.success(let tree), .success(let found)): #expect(tree[path: KeyPath(components: [long])] == found)
        case (.failure(let a as PlistError), .failure(let b as PlistError)): #expect(a.kind == b.kind && b.kind == .duplicateKey)
        default: Issue.record("eager \(eager), lazy \(lazy)")
        }
    }

    /// Key objects at distinct offsets inside one long string, each claiming the rest of it: the tree reader refuses
    /// the overlap, and so does a lookup, in bounded time.
    @Test func overlappingKeyObjectsRunOutOfBudget() throws {
        // One ASCII string of n headers "_\u{11}\u{7F}\u{7F}" and then 0x7F7F bytes: at each header starts a string
        // claiming those bytes and more (every byte stays ASCII).
        let n = 3_000
        var body: [UInt8] = []
        for _ in 0 ..< n { body += [0x5F, 0x11, 0x7F, 0x7F] }
        body += Array(repeating: 0x61, count: 0x7F7F)
        var objects: [[UInt8]] = [[], [0x5F, 0x12] + F.bigEndian(UInt64(body.count), 4) + body, F.int(1)]
        objects[0] = F.dict((0 ..< UInt64(n)).map { $0 + 3 }, Array(repeating: 2, count: n), refSize: 2)
        var fixture = F(objects, offsetSize: 4, refSize: 2)
        // Objects 3… are the headers inside object 1's string.
        var offsets = (0 ..< objects.count).map { UInt64(fixture.offset(of: $0)) }
        let stringStart = UInt64(fixture.offset(of: 1) + 6)
        offsets += (0 ..< UInt64(n)).map { stringStart + 4 * $0 }
        fixture.offsetsOverride = offsets
        fixture.countOverride = UInt64(offsets.count)
        let bytes = fixture.bytes
        let eager = #expect(throws: PlistError.self) { try PropertyList.read(bytes) }
        let clock = ContinuousClock()
        let start = clock.now
        let lazy = #expect(throws: PlistError.self) { try BinaryPlistDocument(bytes).object(at: "x") }
        #expect(clock.now - start < .seconds(5))
        #expect(lazy?.kind == eager?.kind && lazy?.kind == .invalidReference, "\(String(describing: lazy)) vs \(String(describing: eager))")
    }

    /// Keys that are not strings, badly encoded keys and a key that is the dictionary itself fail a lookup that reads
    /// them as they fail the tree reader — in small and large dictionaries alike. A lookup reads them when the key
    /// sought is absent, and under `.lastWins`; under the default (binary: first wins) the first equal key ends it,
    /// as it ends Core Foundation's lookup, so a key before the broken one answers — the second time too, when a
    /// large dictionary's index is tried and cannot be built.
    @Test(arguments: [3, 100])
    func brokenKeysFailAsInTheTree(_ count: Int) throws {
        func document(badKey: [UInt8]?, selfKey: Bool = false) -> [UInt8] {
            var objects: [[UInt8]] = [[], F.int(7)]
            var keys: [UInt64] = []
            for i in 0 ..< count {
                keys.append(UInt64(objects.count))
                objects.append(F.ascii("key \(i)"))
            }
            if let badKey { objects[objects.count - 1] = badKey }
            if selfKey { keys[count / 2] = 0 }
            objects[0] = F.dict(keys, Array(repeating: 1, count: count), refSize: 2)
            return F(objects, offsetSize: 4, refSize: 2).bytes
        }
        let cases: [(String, [UInt8], PlistError.Kind)] = [
            ("integer key", document(badKey: F.int(3)), .nonStringKey),
            ("a key past the object area", document(badKey: [0x5F, 0x10, 0xFF]), .truncated),
            ("the dictionary as its own key", document(badKey: nil, selfKey: true), .cycle),
        ]
        var lastWins = PlistReadOptions()
        lastWins.duplicateKeys = .lastWins
        for (label, bytes, kind) in cases {
            let eager = #expect(throws: PlistError.self, "\(label)") { try PropertyList.read(bytes) }
            let document = try BinaryPlistDocument(bytes)
            let readingEveryKey = try BinaryPlistDocument(bytes, options: lastWins)
            for _ in 0 ..< 2 {
                for (lazyDocument, path) in [(document, "absent"), (readingEveryKey, "key 0")] {
                    let lazy = #expect(throws: PlistError.self, "\(label)") { try lazyDocument.object(at: KeyPath(components: [path])) }
                    #expect(lazy?.kind == kind && eager?.kind == kind && lazy?.offset == eager?.offset,
                            "\(label), \(path): \(String(describing: lazy)) vs \(String(describing: eager))")
                }
                #expect(try document.value(at: "key 0") == 7, "\(label)")
            }
        }
        // The same file without a broken key answers, twice (the second time from the index).
        let good = try BinaryPlistDocument(document(badKey: nil))
        #expect(try good.value(at: KeyPath(components: ["key \(count - 1)"])) == 7)
        #expect(try good.value(at: KeyPath(components: ["key \(count - 1)"])) == 7)
        #expect(try good.object(at: "key") == nil)
    }

    /// A large dictionary is scanned until its lookups have read eight times its keys, then indexed; one whose index
    /// cannot be built (a broken key after those the lookups reach) keeps answering by scans.
    @Test func aDictionaryIsIndexedAfterEightPassesOfScans() throws {
        let count = 1_000
        var objects: [[UInt8]] = [[], F.int(7)]
        var keys: [UInt64] = []
        for i in 0 ..< count {
            keys.append(UInt64(objects.count))
            objects.append(F.ascii("key \(i)"))
        }
        objects[0] = F.dict(keys, Array(repeating: 1, count: count), refSize: 2)
        let good = F(objects, offsetSize: 4, refSize: 2).bytes
        objects[objects.count - 1] = F.int(3)  // the last key is not a string
        let broken = F(objects, offsetSize: 4, refSize: 2).bytes
        #expect(throws: PlistError.self) { try PropertyList.read(broken) }

        let document = try BinaryPlistDocument(good)
        for _ in 0 ..< 8 { #expect(try document.value(at: KeyPath(components: ["key \(count - 1)"])) == 7) }
        #expect(document.cachedIndexCount == 0, "eight full passes: still scanned")
        #expect(try document.value(at: KeyPath(components: ["key \(count - 1)"])) == 7)
        #expect(document.cachedIndexCount == 1, "the ninth lookup builds the index")
        #expect(try document.object(at: "absent") == nil)

        let unindexable = try BinaryPlistDocument(broken)
        for _ in 0 ..< 12 { #expect(try unindexable.value(at: KeyPath(components: ["key \(count - 2)"])) == 7) }
        #expect(unindexable.cachedIndexCount == 0)
        let e = #expect(throws: PlistError.self) { try unindexable.object(at: "absent") }
        #expect(e?.kind == .nonStringKey)
    }

    /// Keys the tree reads as CF does — bytes ≥ 0x80 under the ASCII marker (Latin-1), lone surrogates (U+FFFD) —
    /// answer lookups as the tree, in small and indexed dictionaries, whichever way they are spelled, and repeat
    /// under the duplicate-key policy where they read the same.
    @Test(arguments: [3, 100])
    func irregularKeysAnswerAsTheTree(_ count: Int) throws {
        var objects: [[UInt8]] = [[]]
        var keys: [UInt64] = []
        var values: [UInt64] = []
        func add(_ object: [UInt8]) -> UInt64 {
            objects.append(object)
            return UInt64(objects.count - 1)
        }
        for i in 0 ..< count {
            keys.append(add(F.ascii("key \(i)")))
            values.append(add(F.int(UInt8(i % 200))))
        }
        let irregular: [[UInt8]] = [[0x52, 0x61, 0xFF], F.utf16([0x61, 0xD800]), F.utf16([0x61, 0xFF]), F.utf16([0x61, 0xDC00]),
                                    [0x53, 0x63, 0x61, 0xE9]]
        for (j, key) in irregular.enumerated() {
            keys.append(add(key))
            values.append(add(F.int(UInt8(200 + j))))
        }
        objects[0] = F.dict(keys, values, refSize: 2)
        let bytes = F(objects, offsetSize: 4, refSize: 2).bytes
        for policy in [DuplicateKeyPolicy.coreFoundation, .lastWins] {
            var options = PlistReadOptions()
            options.duplicateKeys = policy
            let tree = try #require(try PropertyList.read(bytes, options: options).value.dictionaryValue)
            #expect(tree["a\u{FF}"] == (policy == .lastWins ? 202 : 200))
            #expect(tree["a\u{FFFD}"] == (policy == .lastWins ? 203 : 201))
            #expect(tree["ca\u{E9}"] == 204)
            let document = try BinaryPlistDocument(bytes, options: options)
            for _ in 0 ..< 3 {  // later rounds through the index, for the large dictionary
                for key in ["a\u{FF}", "a\u{FFFD}", "ca\u{E9}", "key 1", "a", "ca\u{E9}x", "a\u{D7FF}"] {
                    let lazy = try document.object(at: KeyPath(components: [key])).map { try document.value(of: $0) }
                    #expect(lazy == tree[key], "\(policy) \(count): \(key)")
                }
            }
            #expect(try document.value() == .dictionary(tree))
        }
    }

    /// Containers nested past `maxDepth` fail a lookup that reaches them, as they fail the tree reader.
    @Test func nestingPastTheLimitFailsALookup() throws {
        // {a: {a: … {a: 1}}} 600 deep.
        var objects: [[UInt8]] = [F.ascii("a")]
        for i in 0 ..< 600 { objects.append(F.dict([0], [UInt64(i + 2)], refSize: 2)) }
        objects.append(F.int(1))
        var fixture = F(objects, offsetSize: 4, refSize: 2)
        fixture.top = 1
        let bytes = fixture.bytes
        let eager = #expect(throws: PlistError.self) { try PropertyList.read(bytes) }
        #expect(eager?.kind == .depthLimit)
        let document = try BinaryPlistDocument(bytes)
        #expect(try document.object(at: KeyPath(components: Array(repeating: "a", count: 100)))?.typeName == "dictionary")
        #expect(try document.object(at: KeyPath(components: Array(repeating: "a", count: 511)))?.typeName == "dictionary")
        for depth in [512, 600] {
            let lazy = #expect(throws: PlistError.self) { try document.object(at: KeyPath(components: Array(repeating: "a", count: depth))) }
            #expect(lazy?.kind == .depthLimit, "\(depth): \(String(describing: lazy))")
        }
        // Materialised, a subtree counts the containers above it.
        let sub = #expect(throws: PlistError.self) { try document.value(at: KeyPath(components: Array(repeating: "a", count: 100))) }
        #expect(sub?.kind == .depthLimit)
        var shallow = PlistReadOptions()
        shallow.maxDepth = 1000
        #expect(try BinaryPlistDocument(bytes, options: shallow).value(at: KeyPath(components: Array(repeating: "a", count: 600))) == 1)
    }

    /// Every invalid binary Corpus file: lookups of random paths of common keys and small indexes end, in bounded
    /// time, with a value or a `PlistError` (never a crash or a hang), and the root through a lookup fails as `read`.
    @Test func hostileFilesBoundLookups() throws {
        for entry in try CorpusTests.entries() where entry.section == "invalid/binary" {
            let bytes = try [UInt8](Data(contentsOf: CorpusTests.root.appendingPathComponent(entry.path)))
            guard let document = try? BinaryPlistDocument(bytes) else { continue }
            let eager = #expect(throws: PlistError.self, "\(entry.path)") { try PropertyList.read(bytes) }
            let root = #expect(throws: PlistError.self, "\(entry.path)") { try document.value(at: KeyPath(components: [])) }
            #expect(root?.kind == eager?.kind && root?.offset == eager?.offset, "\(entry.path)")
            let clock = ContinuousClock()
            let start = clock.now
            var rng = SeededGenerator(seed: 19)
            let words = ["0", "1", "2", "a", "b", "key", "x", "$objects", "$top", "root"]
            for _ in 0 ..< 200 {
                let path = (0 ..< Int.random(in: 0 ... 6, using: &rng)).map { _ in words.randomElement(using: &rng)! }
                // (A lookup, and the value when it is not a container: materialising a container is `read`'s
                // work, checked above.)
                do {
                    if let object = try document.object(at: KeyPath(components: path)), object.count == nil {
                        _ = try document.value(of: object)
                    }
                } catch is PlistError {}
            }
            #expect(clock.now - start < .seconds(10), "\(entry.path)")
        }
    }
}

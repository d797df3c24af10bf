import Foundation
import Testing
@testable import PlistKit

/// `PlistDecoder.decode(_:from: BinaryPlistDocument)`: the same values and errors as decoding the bytes, reading
/// only what the type asks for, and the document's checks on what it reads.
@Suite struct DocumentDecodingTests {
    func binary<T: Encodable>(_ value: T) throws -> [UInt8] {
        let encoder = PlistEncoder()
        encoder.outputFormat = .binary
        return try encoder.encodeToBytes(value)
    }

    /// Decodes `bytes` both ways; the document's result must equal the tree's.
    func bothWays<T: Decodable & Equatable>(_ type: T.Type, _ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) throws -> T {
        let eager = try PlistDecoder().decode(type, from: bytes)
        let lazy = try PlistDecoder().decode(type, from: try BinaryPlistDocument(bytes))
        #expect(lazy == eager, sourceLocation: sourceLocation)
        return lazy
    }

    /// What a decoding error says: its case, coding path and description.
    func summary(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "not a DecodingError: \(error)" }
        func path(_ c: DecodingError.Context) -> String { c.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".") }
        switch error {
        case .typeMismatch(let t, let c): return "typeMismatch \(t) at \(path(c)): \(c.debugDescription)"
        case .valueNotFound(let t, let c): return "valueNotFound \(t) at \(path(c)): \(c.debugDescription)"
        case .keyNotFound(let k, let c): return "keyNotFound \(k.stringValue) at \(path(c)): \(c.debugDescription)"
        case .dataCorrupted(let c): return "dataCorrupted at \(path(c)): \(c.debugDescription)"
        @unknown default: return "\(error)"
        }
    }

    @Test func modelsDecodeAsFromTheBytes() throws {
        for seed in 0..<5 { #expect(try bothWays(Rich.self, binary(Rich.sample(seed))) == Rich.sample(seed)) }
        var r = Rich.sample()
        r.nestedOptional = Address(street: "n", zip: -1, tags: ["t"])
        #expect(try bothWays(Rich.self, binary(r)) == r)
        #expect(try bothWays(Hand.self, binary(Hand(a: 1, inner: ["p", "q"], deep: -4))) == Hand(a: 1, inner: ["p", "q"], deep: -4))
        let dog = try PlistDecoder().decode(Dog.self, from: try BinaryPlistDocument(binary(Dog(name: "Rex", legs: 3))))
        #expect(dog.name == "Rex" && dog.legs == 3)
        var gen = RandomPlist(seed: 4, config: .init(uids: true, float32: true))
        let only = PlistOnly(url: URL(string: "https://x.org/a%20b")!, uid: UID(7), any: gen.value(), list: [gen.value()])
        #expect(try bothWays(PlistOnly.self, binary(only)) == only)
    }

    /// Records of one type in several layouts — keys in other orders, an optional key present or not, a key
    /// repeated — each decode to their own values (the decoder reuses a layout's keys only for the same key objects).
    @Test func recordsInManyLayoutsDecodeEachToItsOwnValues() throws {
        struct R: Decodable, Equatable { var a: Int; var b: String; var c: Double? }
        var records: [PlistValue] = []
        for i in 0..<60 {
            switch i % 4 {
            case 0: records.append(["a": .integer(PlistInteger(i)), "b": .string("x\(i)")])
            case 1: records.append(["b": .string("y\(i)"), "a": .integer(PlistInteger(i)), "c": .real(PlistReal(Double(i)))])
            case 2: records.append(["c": .real(PlistReal(-Double(i))), "a": .integer(PlistInteger(i)), "b": .string("z\(i)")])
            default: records.append(["a": .integer(PlistInteger(-i)), "b": .string(""), "extra": true])
            }
        }
        let bytes = try PropertyList.writeBytes(["records": .array(records)], format: .binary)
        struct All: Decodable, Equatable { var records: [R] }
        let decoded = try bothWays(All.self, bytes)
        #expect(decoded.records.count == 60 && decoded.records[5] == R(a: 5, b: "y5", c: 5) && decoded.records[3].c == nil)
    }

    /// A dictionary past the decoder's key limit (a library's tracks by ID) is not decoded key by key for a few
    /// fields: they are looked up in the document. Values, `allKeys` and the missing-key message are as from the bytes.
    @Test func aHugeDictionaryIsLookedUpNotDecodedWhole() throws {
        var tracks = PlistDictionary()
        for i in 0..<5_000 { tracks[String(i * 7)] = ["Name": .string("track \(i)"), "Plays": .integer(PlistInteger(i))] }
        let bytes = try PropertyList.writeBytes(["Tracks": .dictionary(tracks), "Title": "lib"], format: .binary)
        struct Track: Decodable, Equatable { var Name: String; var Plays: Int }
        struct Few: Decodable, Equatable {
            var first: Track
            var last: Track
            enum CodingKeys: String, CodingKey { case first = "0", last = "34993" }
        }
        struct Library<T: Decodable & Equatable>: Decodable, Equatable { var Tracks: T; var Title: String }
        let few = try bothWays(Library<Few>.self, bytes)
        #expect(few.Tracks == Few(first: Track(Name: "track 0", Plays: 0), last: Track(Name: "track 4999", Plays: 4999)))
        let all = try bothWays(Library<[String: Track]>.self, bytes)
        #expect(all.Tracks.count == 5_000 && all.Tracks["700"] == Track(Name: "track 100", Plays: 100))
        struct Missing: Decodable { var Tracks: Absent }
        struct Absent: Decodable { var nope: Int }
        let eager = #expect(throws: DecodingError.self) { try PlistDecoder().decode(Missing.self, from: bytes) }
        let lazy = #expect(throws: DecodingError.self) { try PlistDecoder().decode(Missing.self, from: try BinaryPlistDocument(bytes)) }
        if let eager, let lazy { #expect(summary(lazy) == summary(eager)) }
    }

    /// One data object referred to by 200 records: the document would read it for each; past its budget the decoding
    /// is done from the bytes, whose tree holds the data once — so the records share one buffer, as they do when
    /// decoded from the bytes (a 1 MiB object referred to a million times must not become a terabyte).
    @Test func aMuchSharedObjectIsNotReadAgainAndAgain() throws {
        struct Rec: Decodable, Equatable { var blob: Data }
        let blob = Data(repeating: 7, count: 1 << 20)
        let bytes = try PropertyList.writeBytes(.array(Array(repeating: ["blob": .data(blob)], count: 200)), format: .binary)
        #expect(bytes.count < 2 << 20)  // the writer shares the data object
        let records = try bothWays([Rec].self, bytes)
        #expect(records.count == 200 && records[199].blob == blob)
        // (The tree reader decodes an object a second time before it knows it is shared, then shares that copy.)
        let buffers = Set(records.map { $0.blob.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) } })
        #expect(buffers.count <= 2, "\(buffers.count) buffers for one data object")
        // Records of many layouts sharing one set of key objects (each read again per layout) are bounded the same way.
        var layouts: [PlistValue] = []
        for i in 0..<3_000 {
            var d = PlistDictionary()
            for k in 0..<40 { d[String((k + i % 5) % 40)] = .integer(PlistInteger(k)) }
            layouts.append(.dictionary(d))
        }
        struct Small: Decodable, Equatable { var value: Int; enum CodingKeys: String, CodingKey { case value = "3" } }
        #expect(try bothWays([Small].self, PropertyList.writeBytes(.array(layouts), format: .binary)).count == 3_000)
    }

    /// The keys of a dictionary past the key limit are read by `allKeys` (which cannot throw): a broken key there ends
    /// the decoding with its error when it returns, instead of reading as no keys.
    @Test func aBrokenKeyOfAHugeDictionaryIsAnErrorNotNoKeys() throws {
        var tracks = PlistDictionary()
        for i in 0..<5_000 { tracks["k\(i)"] = .integer(PlistInteger(i)) }
        var bytes = try PropertyList.writeBytes(["Tracks": .dictionary(tracks)], format: .binary)
        let marker = try #require(bytes.indices.first { bytes[$0] == 0x55 && Array(bytes[($0 + 1)...].prefix(5)) == Array("k4999".utf8) })
        bytes[marker] = 0x7A  // no object type has the high nibble 7
        struct Library: Decodable { var Tracks: [String: Int] }
        #expect(throws: DecodingError.self) { try PlistDecoder().decode(Library.self, from: bytes) }
        let error = try #require(throws: DecodingError.self) { try PlistDecoder().decode(Library.self, from: try BinaryPlistDocument(bytes)) }
        guard case .dataCorrupted(let context) = error else { Issue.record("got \(error)"); return }
        #expect(context.underlyingError is PlistError)
    }

    /// A container that escapes the decoding cannot read the document's bytes afterwards.
    @Test func anEscapedContainerIsRefused() throws {
        final class Box: @unchecked Sendable { var container: KeyedDecodingContainer<AnyKey>? }
        struct AnyKey: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        struct Grab: Decodable {
            init(from decoder: any Decoder) throws {
                (decoder.userInfo[CodingUserInfoKey(rawValue: "box")!] as? Box)?.container = try decoder.container(keyedBy: AnyKey.self)
            }
        }
        let box = Box()
        let decoder = PlistDecoder()
        decoder.userInfo[CodingUserInfoKey(rawValue: "box")!] = box
        _ = try decoder.decode(Grab.self, from: try BinaryPlistDocument(PropertyList.writeBytes(["x": 1], format: .binary)))
        let escaped = try #require(box.container)
        #expect(throws: DecodingError.self) { try escaped.decode(Int.self, forKey: AnyKey(stringValue: "x")) }
    }

    /// Any document decoded as `PlistValue` (materialised whole) or as a dictionary of values (a key at a time).
    @Test func randomDocumentsDecodeAsTheirValue() throws {
        for seed in 0..<100 {
            var gen = RandomPlist(seed: UInt64(seed), config: .init(uids: true, float32: true))
            let value = gen.value()
            let bytes = try PropertyList.writeBytes(["root": value, "n": 1], format: .binary)
            #expect(try bothWays(PlistValue.self, bytes) == ["root": value, "n": 1])
            #expect(try bothWays([String: PlistValue].self, bytes) == ["root": value, "n": 1])
        }
    }

    @Test func errorsAreTheTreeDecodersWithTheirCodingPaths() throws {
        struct Zip: Decodable { var street: String; var zip: UInt8; var tags: [String] }
        struct Book: Decodable { var addresses: [Zip]; var home: Zip }
        let cases: [PlistValue] = [
            ["addresses": [], "home": ["street": "s", "zip": 300, "tags": []]],  // does not fit UInt8
            ["addresses": [], "home": ["street": "s", "zip": "12", "tags": []]],  // a string for a number
            ["addresses": [], "home": ["street": "s", "tags": []]],  // no zip
            ["addresses": [], "home": ["street": "$null", "zip": 1, "tags": []]],  // Foundation's null
            ["addresses": [], "home": ["street": "s", "zip": 1, "tags": [1]]],  // a number in a string array
            ["addresses": [["street": 5, "zip": 1, "tags": []]], "home": ["street": "s", "zip": 1, "tags": []]],
            ["addresses": "none", "home": ["street": "s", "zip": 1, "tags": []]],
            ["addresses": [], "home": "nowhere"],
            ["addresses": []],
        ]
        for value in cases {
            let bytes = try PropertyList.writeBytes(value, format: .binary)
            let eager = #expect(throws: DecodingError.self) { try PlistDecoder().decode(Book.self, from: bytes) }
            let lazy = #expect(throws: DecodingError.self) { try PlistDecoder().decode(Book.self, from: try BinaryPlistDocument(bytes)) }
            if let eager, let lazy { #expect(summary(lazy) == summary(eager), "\(value)") }
        }
    }

    /// Only what the type reads is read: a broken object the type never asks for fails the whole-file decoding and
    /// not the document's; the same object asked for fails both, with the reader's error underneath.
    @Test func whatIsNotAskedForIsNotRead() throws {
        struct Head: Decodable { var a: Int }
        struct Both: Decodable { var a: Int; var broken: String }
        var bytes = try PropertyList.writeBytes(["a": 1, "broken": "unread string"], format: .binary)
        let marker = try #require(bytes.indices.first { bytes[$0] == 0x5D && Array(bytes[($0 + 1)...].prefix(6)) == Array("unread".utf8) })
        bytes[marker] = 0x7D  // no object type has the high nibble 7
        #expect(throws: DecodingError.self) { try PlistDecoder().decode(Head.self, from: bytes) }
        #expect(try PlistDecoder().decode(Head.self, from: try BinaryPlistDocument(bytes)).a == 1)
        let error = try #require(throws: DecodingError.self) { try PlistDecoder().decode(Both.self, from: try BinaryPlistDocument(bytes)) }
        guard case .dataCorrupted(let context) = error else { Issue.record("got \(error)"); return }
        #expect(context.underlyingError is PlistError)
        #expect(context.codingPath.map(\.stringValue) == ["broken"])
    }

    /// A broken element of an array of strings: the same error from the document (which decodes such an array on
    /// its own) as from the bytes, element index included.
    @Test func aBrokenElementOfAnArrayIsTheTreeReadersError() throws {
        struct Tags: Decodable { var n: Int; var tags: [String] }
        var bytes = try PropertyList.writeBytes(["n": 1, "tags": ["first", "second element"]], format: .binary)
        let marker = try #require(bytes.indices.first { bytes[$0] == 0x5E && Array(bytes[($0 + 1)...].prefix(6)) == Array("second".utf8) })
        bytes[marker] = 0x7E
        let eager = try #require(throws: DecodingError.self) { try PlistDecoder().decode(Tags.self, from: bytes) }
        let lazy = try #require(throws: DecodingError.self) { try PlistDecoder().decode(Tags.self, from: try BinaryPlistDocument(bytes)) }
        guard case .dataCorrupted(let e) = eager, case .dataCorrupted(let l) = lazy,
              let eagerError = e.underlyingError as? PlistError, let lazyError = l.underlyingError as? PlistError
        else { Issue.record("got \(eager) and \(lazy)"); return }
        #expect(lazyError.kind == eagerError.kind && lazyError.offset == eagerError.offset)
        #expect(eagerError.keyPath?.components == ["tags", "1"])
        #expect(lazyError.keyPath?.components == ["1"] && l.codingPath.map(\.stringValue) == ["tags"])
    }

    final class Node: Decodable {
        let next: Node?
        let name: String?
    }

    /// `bplist00` with object 0 a one-entry dictionary whose value is object 0 itself.
    static let selfContaining: [UInt8] = Array("bplist00".utf8) + [0xD1, 0x01, 0x00, 0x54] + Array("next".utf8)
        + [0x08, 0x0B] + [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 2] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, 16]

    /// A recursive type over a dictionary that contains itself stops at the cycle, as the tree reader does.
    @Test func aCycleIsAnErrorNotALoop() throws {
        let eager = #expect(throws: DecodingError.self) { try PlistDecoder().decode(Node.self, from: Self.selfContaining) }
        let lazy = #expect(throws: DecodingError.self) { try PlistDecoder().decode(Node.self, from: try BinaryPlistDocument(Self.selfContaining)) }
        for error in [eager, lazy] {
            guard case .dataCorrupted(let context)? = error else { Issue.record("got \(String(describing: error))"); continue }
            #expect((context.underlyingError as? PlistError)?.kind == .cycle)
        }
    }

    /// Nesting past the document's depth limit fails as reading the file fails.
    @Test func nestingIsLimitedByTheDocumentsOptions() throws {
        var value: PlistValue = ["name": "leaf"]
        for _ in 0..<40 { value = ["next": value] }
        let bytes = try PropertyList.writeBytes(value, format: .binary)
        var options = PlistReadOptions()
        options.maxDepth = 20
        let error = try #require(throws: DecodingError.self) {
            try PlistDecoder().decode(Node.self, from: try BinaryPlistDocument(bytes, options: options))
        }
        guard case .dataCorrupted(let context) = error else { Issue.record("got \(error)"); return }
        #expect((context.underlyingError as? PlistError)?.kind == .depthLimit)
        #expect(try PlistDecoder().decode(Node.self, from: try BinaryPlistDocument(bytes)).next?.next != nil)
    }

    /// The document's duplicate-key policy applies to the keys a type looks up and lists.
    @Test func duplicateKeysFollowTheDocumentsPolicy() throws {
        // Corpus file: one dictionary with the key "a" twice (values 1 and 2).
        let bytes = Array("bplist00".utf8) + [0xD2, 0x01, 0x01, 0x02, 0x03, 0x51, 0x61, 0x10, 0x01, 0x10, 0x02]
            + [0x08, 0x0D, 0x0F, 0x11] + [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 4] + [0, 0, 0, 0, 0, 0, 0, 0]
            + [0, 0, 0, 0, 0, 0, 0, 19]
        struct A: Decodable, Equatable { var a: Int }
        for policy in [DuplicateKeyPolicy.firstWins, .lastWins, .coreFoundation] {
            var options = PlistReadOptions()
            options.duplicateKeys = policy
            let eager = try PlistDecoder().decode(PlistValue.self, from: try BinaryPlistDocument(bytes, options: options))
            let lazy = try PlistDecoder().decode(A.self, from: try BinaryPlistDocument(bytes, options: options))
            #expect(eager == ["a": .integer(PlistInteger(lazy.a))], "\(policy)")
            #expect(try PlistDecoder().decode([String: Int].self, from: try BinaryPlistDocument(bytes, options: options)) == ["a": lazy.a])
        }
        var reject = PlistReadOptions()
        reject.duplicateKeys = .reject
        let error = try #require(throws: DecodingError.self) {
            try PlistDecoder().decode(A.self, from: try BinaryPlistDocument(bytes, options: reject))
        }
        guard case .dataCorrupted(let context) = error else { Issue.record("got \(error)"); return }
        #expect((context.underlyingError as? PlistError)?.kind == .duplicateKey)
    }

    @Test func userInfoReachesTheTypes() throws {
        struct Probe: Decodable {
            var seen: String
            init(from decoder: any Decoder) throws {
                seen = decoder.userInfo[CodingUserInfoKey(rawValue: "k")!] as? String ?? "none"
            }
        }
        struct Outer: Decodable { var inner: Probe }
        let decoder = PlistDecoder()
        decoder.userInfo[CodingUserInfoKey(rawValue: "k")!] = "v"
        let bytes = try PropertyList.writeBytes(["inner": ["x": 1]], format: .binary)
        #expect(try decoder.decode(Outer.self, from: try BinaryPlistDocument(bytes)).inner.seen == "v")
    }
}

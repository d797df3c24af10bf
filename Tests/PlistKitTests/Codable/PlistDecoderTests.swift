import Foundation
import Testing
@testable import PlistKit

/// Decoding from value trees: round trips, conversions, and the errors (with coding paths) for bad input.
@Suite struct PlistDecoderTests {
    func roundTrip<T: Codable & Equatable>(_ value: T) throws -> T {
        try PlistDecoder().decode(T.self, fromValue: PlistEncoder().encodeToValue(value))
    }

    @Test func richModelRoundTripsThroughTheTree() throws {
        for seed in 0..<5 { #expect(try roundTrip(Rich.sample(seed)) == Rich.sample(seed)) }
        var r = Rich.sample()
        r.nestedOptional = Address(street: "n", zip: -1, tags: ["t"])
        #expect(try roundTrip(r) == r)
    }

    @Test func plistOnlyTypesRoundTrip() throws {
        var gen = RandomPlist(seed: 9, config: .init(uids: true, float32: true))
        let v = PlistOnly(url: URL(string: "file:///tmp/a%20b")!, uid: UID(UInt64(UInt32.max)), any: gen.value(), list: [gen.value(), gen.value()])
        #expect(try roundTrip(v) == v)
    }

    @Test func classHierarchyAndHandWrittenContainers() throws {
        let dog = Dog(name: "Rex", legs: 3)
        let back = try roundTrip(dog)
        #expect(back.name == "Rex" && back.legs == 3)
        #expect(try roundTrip(Hand(a: 1, inner: ["p", "q"], deep: -4)) == Hand(a: 1, inner: ["p", "q"], deep: -4))
    }

    @Test func plistValueDecodesWhateverIsThere() throws {
        for seed in 0..<50 {
            var gen = RandomPlist(seed: UInt64(seed), config: .init(uids: true, float32: true))
            let v = gen.value()
            #expect(try PlistDecoder().decode(PlistValue.self, fromValue: v) == v)
            #expect(try PlistDecoder().decode([String: PlistValue].self, fromValue: ["k": v]) == ["k": v])
        }
    }

    @Test func numbersConvertWithoutLoss() throws {
        #expect(try PlistDecoder().decode(Int.self, fromValue: .real(3.0)) == 3)
        #expect(try PlistDecoder().decode(Double.self, fromValue: 7) == 7.0)
        #expect(try PlistDecoder().decode(UInt64.self, fromValue: .integer(PlistInteger(UInt64.max))) == .max)
        #expect(try PlistDecoder().decode(Float.self, fromValue: 0.5) == 0.5)
        #expect(throws: DecodingError.self) { try PlistDecoder().decode(Int.self, fromValue: 3.5) }
        #expect(throws: DecodingError.self) { try PlistDecoder().decode(Float.self, fromValue: .real(1e300)) }
    }

    @Test func urlFromFoundationsDictionaryForm() throws {
        let url = try PlistDecoder().decode(URL.self, fromValue: ["relative": "b/c", "base": ["relative": "https://x.org/a/"]])
        #expect(url.absoluteString == "https://x.org/a/b/c")
    }

    /// A plain string is read as the URL it spells, never percent-encoded into a different one.
    @Test func urlFromAStringIsStrict() throws {
        #expect(try PlistDecoder().decode(URL.self, fromValue: "https://x.org/a%20b?c=d").absoluteString == "https://x.org/a%20b?c=d")
        for bad in ["not a url", "https://x.org/a b", ""] {
            let error = try #require(throws: DecodingError.self) { try PlistDecoder().decode(URL.self, fromValue: .string(bad)) }
            guard case .dataCorrupted(let context) = error else { Issue.record("got \(error) for \(bad)"); continue }
            #expect(context.debugDescription.contains("not a valid URL"))
        }
    }

    @Test func uidFromItsXMLDictionaryForm() throws {
        #expect(try PlistDecoder().decode(UID.self, fromValue: ["CF$UID": 12]) == UID(12))
    }

    @Test func openStepStringsDecodeAsScalars() throws {
        struct S: Codable, Equatable { var i: Int; var d: Double; var b: Bool; var t: Date; var u: UInt8 }
        let tree: PlistValue = ["i": "-12", "d": "2.5", "b": "YES", "t": "2001-01-02 00:00:00 +0100", "u": "255"]
        let s = try PlistDecoder().decode(S.self, fromValue: tree, format: .openStep)
        #expect(s == S(i: -12, d: 2.5, b: true, t: Date(timeIntervalSinceReferenceDate: 86_400 - 3600), u: 255))
        // Other formats keep types strict.
        #expect(throws: DecodingError.self) { try PlistDecoder().decode(S.self, fromValue: tree, format: .xml) }
    }

    // MARK: Errors

    struct Small: Codable { var name: String; var level: UInt8 }
    struct Holder: Codable { var items: [Small] }

    @Test func integerOutOfRangeNamesPathAndTypes() throws {
        let tree: PlistValue = ["items": [["name": "a", "level": 1], ["name": "b", "level": 300]]]
        let error = try #require(throws: DecodingError.self) { try PlistDecoder().decode(Holder.self, fromValue: tree) }
        // `dataCorrupted`, as Foundation's decoder says (FoundationInteropTests.decodingErrorCasesMatchFoundation).
        guard case .dataCorrupted(let context) = error else { Issue.record("got \(error)"); return }
        #expect(context.codingPath.map(\.stringValue) == ["items", "Index 1", "level"])
        #expect(context.codingPath[1].intValue == 1)
        #expect(context.debugDescription.contains("items[1].level"))
        #expect(context.debugDescription.contains("UInt8"))
        #expect(context.debugDescription.contains("integer 300"))
        #expect(context.debugDescription.contains("0…255"))
    }

    @Test func typeMismatchNamesPathExpectedAndFound() throws {
        let tree: PlistValue = ["items": [["name": 5, "level": 1]]]
        let error = try #require(throws: DecodingError.self) { try PlistDecoder().decode(Holder.self, fromValue: tree) }
        guard case .typeMismatch(let type, let context) = error else { Issue.record("got \(error)"); return }
        #expect(ObjectIdentifier(type) == ObjectIdentifier(String.self))
        #expect(context.codingPath.map(\.stringValue) == ["items", "Index 0", "name"])
        #expect(context.debugDescription.contains("Expected to decode String at items[0].name but found integer 5"))
    }

    @Test func errorInsideAnArrayOfScalarsNamesTheElement() throws {
        struct Lists: Codable, Equatable { var ints: [Int]; var names: [String]; var flags: [Bool]; var reals: [Double] }
        let good: PlistValue = ["ints": [1, 2], "names": ["a"], "flags": [true], "reals": [0.5, 2]]
        #expect(try PlistDecoder().decode(Lists.self, fromValue: good) == Lists(ints: [1, 2], names: ["a"], flags: [true], reals: [0.5, 2]))
        let bad: PlistValue = ["ints": [1, 2], "names": ["a", "b", 3], "flags": [true], "reals": []]
        let error = try #require(throws: DecodingError.self) { try PlistDecoder().decode(Lists.self, fromValue: bad) }
        guard case .typeMismatch(_, let context) = error else { Issue.record("got \(error)"); return }
        #expect(context.codingPath.map(\.stringValue) == ["names", "Index 2"])
        #expect(context.debugDescription.contains("names[2]"))
        let notArray = try #require(throws: DecodingError.self) {
            try PlistDecoder().decode(Lists.self, fromValue: ["ints": "x", "names": [], "flags": [], "reals": []])
        }
        guard case .typeMismatch(_, let context2) = notArray else { Issue.record("got \(notArray)"); return }
        #expect(context2.codingPath.map(\.stringValue) == ["ints"])
    }

    @Test func containerMismatch() throws {
        let error = try #require(throws: DecodingError.self) { try PlistDecoder().decode(Holder.self, fromValue: ["items": ["x"]]) }
        guard case .typeMismatch(_, let context) = error else { Issue.record("got \(error)"); return }
        #expect(context.codingPath.map(\.stringValue) == ["items", "Index 0"])
        #expect(context.debugDescription.contains("a dictionary"))
        #expect(context.debugDescription.contains("string \"x\""))
    }

    @Test func missingKeyNamesContainerPathAndKeys() throws {
        let tree: PlistValue = ["items": [["name": "a"]]]
        let error = try #require(throws: DecodingError.self) { try PlistDecoder().decode(Holder.self, fromValue: tree) }
        guard case .keyNotFound(let key, let context) = error else { Issue.record("got \(error)"); return }
        #expect(key.stringValue == "level")
        #expect(context.codingPath.map(\.stringValue) == ["items", "Index 0"])
        #expect(context.debugDescription.contains("\"name\""))
    }

    @Test func nullForANonOptionalIsValueNotFound() throws {
        let error = try #require(throws: DecodingError.self) { try PlistDecoder().decode([Int].self, fromValue: [1, "$null"]) }
        guard case .valueNotFound(_, let context) = error else { Issue.record("got \(error)"); return }
        #expect(context.codingPath.map(\.stringValue) == ["Index 1"])
        #expect(try PlistDecoder().decode([Int?].self, fromValue: [1, "$null"]) == [1, nil])
    }

    @Test func errorsInsideNestedContainersUseTheirPath() throws {
        let tree: PlistValue = ["a": 1, "list": ["p"], "box": ["deep": "no"]]
        let error = try #require(throws: DecodingError.self) { try PlistDecoder().decode(Hand.self, fromValue: tree) }
        guard case .typeMismatch(_, let context) = error else { Issue.record("got \(error)"); return }
        #expect(context.codingPath.map(\.stringValue) == ["box", "deep"])
    }

    @Test func unreadableBytesAreDataCorruptedWithThePlistError() throws {
        let bytes = Data("bplist00 this is not a binary plist".utf8)
        let error = try #require(throws: DecodingError.self) { try PlistDecoder().decode(Holder.self, from: bytes) }
        guard case .dataCorrupted(let context) = error else { Issue.record("got \(error)"); return }
        let underlying = try #require(context.underlyingError as? PlistError)
        #expect(context.debugDescription.contains(underlying.description))
    }

    @Test
    func xmlSyntaxErrorCarriesLineAndOffset() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0">
            <dict>
            \t<key>name</key>
            \t<string>a</strin>
            </dict>
            </plist>
            """
        let error = try #require(throws: DecodingError.self) { try PlistDecoder().decode(Small.self, from: Data(xml.utf8)) }
        guard case .dataCorrupted(let context) = error else { Issue.record("got \(error)"); return }
        let underlying = try #require(context.underlyingError as? PlistError)
        #expect(underlying.format == .xml)
        #expect(underlying.line == 5)
        #expect(underlying.offset != nil)
        #expect(context.debugDescription.contains("line 5"))
    }

    @Test func userInfoReachesInitFrom() throws {
        struct Probe: Decodable {
            var seen: String
            init(from decoder: any Decoder) throws { seen = decoder.userInfo[CodingUserInfoKey(rawValue: "k")!] as? String ?? "" }
        }
        let d = PlistDecoder()
        d.userInfo[CodingUserInfoKey(rawValue: "k")!] = "v"
        #expect(try d.decode(Probe.self, fromValue: 1).seen == "v")
    }
}

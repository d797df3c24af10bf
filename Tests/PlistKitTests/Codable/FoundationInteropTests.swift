import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// Foundation's `PropertyListEncoder`/`PropertyListDecoder` as the oracle: what it writes we read into the same
/// model, what we write it reads into the same model, and both produce the same property-list tree.
@Suite struct FoundationInteropTests {
    static let formats: [PropertyListSerialization.PropertyListFormat] = [.xml, .binary]

    func foundationEncoder(_ format: PropertyListSerialization.PropertyListFormat) -> PropertyListEncoder {
        let e = PropertyListEncoder()
        e.outputFormat = format
        return e
    }

    /// The tree Foundation's own reader makes of Foundation-encoded bytes.
    func foundationTree<T: Encodable>(_ value: T, _ format: PropertyListSerialization.PropertyListFormat) throws -> PlistValue {
        let data = try foundationEncoder(format).encode(value)
        return try FoundationBridge.fromFoundation(PropertyListSerialization.propertyList(from: data, options: [], format: nil))
    }

    @Test(arguments: formats)
    func ourTreeEqualsFoundationsTree(_ format: PropertyListSerialization.PropertyListFormat) throws {
        for seed in 0..<3 {
            let ours = try PlistEncoder().encodeToValue(Rich.sample(seed))
            #expect(ours == (try foundationTree(Rich.sample(seed), format)))
        }
        let dog = Dog(name: "Rex", legs: 4)
        #expect(try PlistEncoder().encodeToValue(dog) == (try foundationTree(dog, format)))
        let hand = Hand(a: 1, inner: ["x"], deep: 2)
        #expect(try PlistEncoder().encodeToValue(hand) == (try foundationTree(hand, format)))
    }

    /// Records of one type whose optional keys come and go (the encoder shares key arrays between containers of a
    /// type while their keys match, and must notice when they do not).
    @Test func varyingKeysAcrossRecordsOfOneType() throws {
        struct Sparse: Codable, Equatable { var a: Int?; var b: String?; var c: [Int]?; var d: Bool }
        var records: [Sparse] = []
        for i in 0..<40 {
            records.append(Sparse(a: i % 2 == 0 ? i : nil, b: i % 3 == 0 ? "b\(i)" : nil, c: i % 5 == 0 ? [i] : nil, d: i % 7 == 0))
        }
        var rich: [Rich] = (0..<4).map { Rich.sample($0) }
        rich[1].nestedOptional = Address(street: "n", zip: 2, tags: [])
        rich[2].present = nil
        let ours = try PlistEncoder().encodeToValue(records)
        #expect(ours == (try foundationTree(records, .binary)))
        #expect(try PlistDecoder().decode([Sparse].self, fromValue: ours) == records)
        let oursRich = try PlistEncoder().encodeToValue(rich)
        #expect(oursRich == (try foundationTree(rich, .binary)))
        #expect(try PlistDecoder().decode([Rich].self, fromValue: oursRich) == rich)
    }

    @Test(arguments: formats)
    func foundationEncodedTreesDecode(_ format: PropertyListSerialization.PropertyListFormat) throws {
        for seed in 0..<3 {
            let tree = try foundationTree(Rich.sample(seed), format)
            #expect(try PlistDecoder().decode(Rich.self, fromValue: tree) == Rich.sample(seed))
        }
        // Foundation writes a URL as {relative = …}; we read that form too.
        struct Link: Codable, Equatable { var url: URL }
        let link = Link(url: URL(string: "https://example.com/x?y=1")!)
        #expect(try PlistDecoder().decode(Link.self, fromValue: try foundationTree(link, format)) == link)
    }

    @Test(arguments: formats)
    func foundationDecodesOurTrees(_ format: PropertyListSerialization.PropertyListFormat) throws {
        for seed in 0..<3 {
            let tree = try PlistEncoder().encodeToValue(Rich.sample(seed))
            let data = try PropertyListSerialization.data(fromPropertyList: FoundationBridge.toFoundation(tree), format: format, options: 0)
            #expect(try PropertyListDecoder().decode(Rich.self, from: data) == Rich.sample(seed))
        }
    }

    // MARK: Bytes

    @Test
    func xmlBytesBothWays() throws { try bytesBothWays(.xml, .xml) }

    @Test
    func binaryBytesBothWays() throws { try bytesBothWays(.binary, .binary) }

    func bytesBothWays(_ ours: PlistFormat, _ theirs: PropertyListSerialization.PropertyListFormat) throws {
        for seed in 0..<3 {
            let model = Rich.sample(seed)
            // Foundation's bytes → our decoder, with the format reported.
            var detected = PlistFormat.json
            let fromFoundation = try PlistDecoder().decode(Rich.self, from: foundationEncoder(theirs).encode(model), format: &detected)
            #expect(fromFoundation == model)
            #expect(detected == ours)
            // Our bytes → Foundation's decoder, in both key orders.
            for sorted in [true, false] {
                let e = PlistEncoder()
                e.outputFormat = ours
                e.writeOptions.sortKeys = sorted
                let data = try e.encode(model)
                var seen = PropertyListSerialization.PropertyListFormat.openStep
                let obj = try PropertyListSerialization.propertyList(from: data, options: [], format: &seen)
                #expect(seen == theirs)
                #expect(try FoundationBridge.fromFoundation(obj) == (try e.encodeToValue(model)))
                #expect(try PropertyListDecoder().decode(Rich.self, from: data) == model)
            }
        }
    }
}

import Foundation
import Testing
@testable import PlistKit

/// What the encoder produces, checked against the plist forms the formats define (and Foundation uses).
@Suite struct PlistEncoderTests {
    @Test func standardTypesGetTheirNativeForms() throws {
        let tree = try PlistEncoder().encodeToValue(Rich.sample())
        #expect(tree["uint64"] == .integer(PlistInteger(UInt64.max)))
        #expect(tree["int64"] == .integer(PlistInteger(Int64.min)))
        // Float is a 32-bit real (written as such in binary), Double a 64-bit one.
        let float = try #require(tree["float"]?.realValue)
        #expect(float.isFloat32 && float.value == 1.25)
        #expect(tree["double"]?.realValue?.isFloat32 == false)
        #expect(tree["date"] == .date(PlistDate(secondsSinceReferenceDate: 700_000_000)))
        #expect(tree["data"] == .data(Data([0, 1, 2, 255, 0])))
        #expect(tree["bool"] == .bool(true))
        // An absent optional is an absent key; nil inside an array is Foundation's "$null".
        #expect(tree["absent"] == nil)
        #expect(tree["sparse"] == [1, "$null", 3])
        #expect(tree["kind"] == "beta")
        #expect(tree["byNumber"] == .dictionary(["1": "one", "20": "twenty"]))
        #expect(tree["matrix"] == [[1, 2], [], [3]])
    }

    @Test func plistOnlyTypes() throws {
        let v = PlistOnly(url: URL(string: "https://example.com/a?b=c")!, uid: UID(7), any: ["k": [1, 2.5, true]], list: ["s", 1])
        let tree = try PlistEncoder().encodeToValue(v)
        #expect(tree["url"] == ["relative": "https://example.com/a?b=c"])
        #expect(tree["uid"] == .uid(UID(7)))
        #expect(tree["any"] == ["k": [1, 2.5, true]])
        #expect(tree["list"] == ["s", 1])
    }

    @Test func declarationOrderIsKeptInTheTree() throws {
        let tree = try PlistEncoder().encodeToValue(Address(street: "s", zip: 1, tags: []))
        #expect(tree.dictionaryValue?.keys == ["street", "zip", "tags"])
    }

    @Test func superEncoderAndNestedContainers() throws {
        let tree = try PlistEncoder().encodeToValue(Dog(name: "Rex", legs: 4))
        #expect(tree == ["name": "Rex", "super": ["legs": 4]])
        let hand = try PlistEncoder().encodeToValue(Hand(a: 1, inner: ["x", "y"], deep: 5))
        #expect(hand == ["box": ["deep": 5], "list": ["x", "y"], "a": 1])
        #expect(hand.dictionaryValue?.keys == ["box", "list", "a"])
    }

    @Test func enumsWithPayloads() throws {
        let tree = try PlistEncoder().encodeToValue([Shape.circle(radius: 2), .labeled("l", 9), .point])
        #expect(tree == [["circle": ["radius": 2.0]], ["labeled": ["_0": "l", "_1": 9]], ["point": [:]]])
    }

    @Test func topLevelScalarsAndEmptyValues() throws {
        #expect(try PlistEncoder().encodeToValue(5) == 5)
        #expect(try PlistEncoder().encodeToValue("s") == "s")
        #expect(try PlistEncoder().encodeToValue([String: Int]()) == .dictionary([:]))
        #expect(try PlistEncoder().encodeToValue(Kind.alpha) == "alpha")
    }

    struct Nothing: Encodable { func encode(to encoder: any Encoder) throws {} }

    @Test func topLevelValueThatEncodesNothingIsAnError() throws {
        #expect(throws: EncodingError.self) { try PlistEncoder().encodeToValue(Nothing()) }
        // Nested, it is an empty dictionary (as in Foundation).
        #expect(try PlistEncoder().encodeToValue([Nothing()]) == [[:]])
    }

    @Test func repeatedKeyKeepsLastValue() throws {
        struct Twice: Encodable {
            enum K: String, CodingKey { case a, b }
            func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: K.self)
                try c.encode(1, forKey: .a)
                try c.encode(2, forKey: .b)
                try c.encode(3, forKey: .a)
            }
        }
        let tree = try PlistEncoder().encodeToValue(Twice())
        #expect(tree == ["a": 3, "b": 2])
        #expect(tree.dictionaryValue?.keys == ["a", "b"])
    }

    @Test func userInfoReachesEncodeTo() throws {
        struct Probe: Encodable {
            func encode(to encoder: any Encoder) throws {
                var c = encoder.singleValueContainer()
                try c.encode(encoder.userInfo[CodingUserInfoKey(rawValue: "k")!] as? String ?? "missing")
            }
        }
        let e = PlistEncoder()
        e.userInfo[CodingUserInfoKey(rawValue: "k")!] = "v"
        #expect(try e.encodeToValue(Probe()) == "v")
    }

    @Test func codingPathSeenByNestedEncoders() throws {
        struct Probe: Encodable {
            func encode(to encoder: any Encoder) throws {
                var c = encoder.singleValueContainer()
                try c.encode(encoder.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: "/"))
            }
        }
        struct Outer: Encodable { var list: [Probe]; var one: Probe }
        let tree = try PlistEncoder().encodeToValue(Outer(list: [Probe(), Probe()], one: Probe()))
        #expect(tree == ["list": ["list/0", "list/1"], "one": "one"])
    }

    @Test func randomPlistValuesEncodeAsThemselves() throws {
        for seed in 0..<50 {
            var gen = RandomPlist(seed: UInt64(seed), config: .init(uids: true, float32: true))
            let v = gen.value()
            #expect(try PlistEncoder().encodeToValue(v) == v)
            #expect(try PlistEncoder().encodeToValue(["wrapped": v]) == ["wrapped": v])
        }
    }
}

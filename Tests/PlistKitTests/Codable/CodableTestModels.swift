import Foundation
@testable import PlistKit

// Models shared by the Codable tests: every standard type, nesting, enums with payloads, keyed dictionaries and a
// class hierarchy that uses superEncoder/superDecoder.

struct Address: Codable, Equatable {
    var street: String
    var zip: Int32
    var tags: [String]
}

enum Shape: Codable, Equatable {
    case circle(radius: Double)
    case rect(width: Double, height: Double)
    case point
    case labeled(String, Int)
}

enum Kind: String, Codable, Equatable { case alpha, beta }

/// Everything Foundation's coders can also carry (no UID; URLs have their own tests).
struct Rich: Codable, Equatable {
    var int: Int
    var int8: Int8
    var int16: Int16
    var int32: Int32
    var int64: Int64
    var uint: UInt
    var uint8: UInt8
    var uint16: UInt16
    var uint32: UInt32
    var uint64: UInt64
    var float: Float
    var double: Double
    var bool: Bool
    var string: String
    var data: Data
    var date: Date
    var present: String?
    var absent: Int?
    var address: Address
    var addresses: [Address]
    var shapes: [Shape]
    var kind: Kind
    var byName: [String: Int]
    var byNumber: [Int: String]
    var matrix: [[Int]]
    var sparse: [Int?]
    var nestedOptional: Address?

    static func sample(_ seed: Int = 0) -> Rich {
        Rich(
            int: -42 + seed, int8: .min, int16: .max, int32: -7, int64: .min, uint: 7, uint8: .max, uint16: 65535,
            uint32: .max, uint64: .max, float: 1.25, double: -0.1 * Double(seed + 1), bool: seed % 2 == 0,
            string: "héllo \u{1F600} <&> \"q\" \(seed)", data: Data([0, 1, 2, 255, UInt8(seed & 0xFF)]),
            date: Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(seed)), present: "here", absent: nil,
            address: Address(street: "Main", zip: 12345, tags: ["a", "b"]),
            addresses: [Address(street: "x", zip: 1, tags: []), Address(street: "y", zip: 2, tags: ["z"])],
            shapes: [.circle(radius: 2), .rect(width: 1, height: 3), .point, .labeled("l", 9)], kind: .beta,
            byName: ["one": 1, "two": 2], byNumber: [1: "one", 20: "twenty"], matrix: [[1, 2], [], [3]],
            sparse: [1, nil, 3], nestedOptional: nil)
    }
}

/// Types only PlistKit carries natively.
struct PlistOnly: Codable, Equatable {
    var url: URL
    var uid: UID
    var any: PlistValue
    var list: [PlistValue]
}

class Animal: Codable, Equatable {
    var legs: Int
    init(legs: Int) { self.legs = legs }
    static func == (a: Animal, b: Animal) -> Bool { a.legs == b.legs && type(of: a) == type(of: b) && a.isEqual(b) }
    func isEqual(_ other: Animal) -> Bool { true }
}

final class Dog: Animal {
    var name: String
    init(name: String, legs: Int) {
        self.name = name
        super.init(legs: legs)
    }
    private enum CodingKeys: String, CodingKey { case name }
    required init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        try super.init(from: c.superDecoder())
    }
    override func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try super.encode(to: c.superEncoder())
    }
    override func isEqual(_ other: Animal) -> Bool { (other as? Dog)?.name == name }
}

/// Hand-written containers: nested keyed and unkeyed containers filled out of order.
struct Hand: Codable, Equatable {
    var a: Int
    var inner: [String]
    var deep: Int
    private enum K: String, CodingKey { case a, box, list, deep }
    init(a: Int, inner: [String], deep: Int) { self.a = a; self.inner = inner; self.deep = deep }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: K.self)
        var box = c.nestedContainer(keyedBy: K.self, forKey: .box)
        var list = c.nestedUnkeyedContainer(forKey: .list)
        try c.encode(a, forKey: .a)
        for s in inner { try list.encode(s) }
        try box.encode(deep, forKey: .deep)
    }
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: K.self)
        a = try c.decode(Int.self, forKey: .a)
        var list = try c.nestedUnkeyedContainer(forKey: .list)
        var out: [String] = []
        while !list.isAtEnd { out.append(try list.decode(String.self)) }
        inner = out
        deep = try c.nestedContainer(keyedBy: K.self, forKey: .box).decode(Int.self, forKey: .deep)
    }
}


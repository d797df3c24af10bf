import Foundation
import Testing
@testable import PlistKit

/// Encode → bytes → decode in every format whose codec is in the build.
@Suite struct CodableRoundTripTests {
    func roundTrip<T: Codable & Equatable>(_ value: T, _ format: PlistFormat, sortKeys: Bool = true) throws -> T {
        let e = PlistEncoder()
        e.outputFormat = format
        e.writeOptions.sortKeys = sortKeys
        var detected = PlistFormat.json
        let back = try PlistDecoder().decode(T.self, from: e.encode(value), format: &detected)
        #expect(detected == format || (format == .openStep && detected == .gnustep) || (format == .gnustep && detected == .openStep))
        return back
    }

    /// Rich models and `PlistValue`s (everything the format can hold) through `format`.
    func richAndRandom(_ format: PlistFormat, config: RandomPlist.Config) throws {
        for seed in 0..<4 {
            for sortKeys in [true, false] {
                #expect(try roundTrip(Rich.sample(seed), format, sortKeys: sortKeys) == Rich.sample(seed))
            }
        }
        #expect(try roundTrip(Hand(a: 3, inner: ["a"], deep: 1), format) == Hand(a: 3, inner: ["a"], deep: 1))
        let dog = try roundTrip(Dog(name: "d", legs: 2), format)
        #expect(dog.name == "d" && dog.legs == 2)
        for seed in 0..<40 {
            var gen = RandomPlist(seed: UInt64(seed), config: config)
            let v: PlistValue = ["root": gen.value()]
            #expect(try roundTrip(v, format) == v)
        }
    }

    @Test
    func xml() throws {
        // XML 1.0 cannot carry most C0 controls, which the random Unicode strings include; Rich covers non-ASCII text.
        try richAndRandom(.xml, config: .init(uids: true, unicode: false, nonFiniteReals: false, dateYears: 1...9999))
        let v = PlistOnly(url: URL(string: "https://a.b/c")!, uid: UID(3), any: [1, "x"], list: [.date(PlistDate(secondsSinceReferenceDate: 0))])
        #expect(try roundTrip(v, .xml) == v)
    }

    @Test
    func binary() throws {
        try richAndRandom(.binary, config: .init(uids: true, float32: true, fractionalDates: true))
        let v = PlistOnly(url: URL(string: "https://a.b/c")!, uid: UID(3), any: [1, "x"], list: [.real(PlistReal(Float(0.1)))])
        #expect(try roundTrip(v, .binary) == v)
    }

    @Test
    func gnustep() throws {
        struct Typed: Codable, Equatable { var i: Int; var d: Double; var b: Bool; var s: String; var data: Data; var list: [Int] }
        let t = Typed(i: -5, d: 0.25, b: true, s: "a b", data: Data([1, 2]), list: [1, 2])
        #expect(try roundTrip(t, .gnustep) == t)
    }

    @Test
    func openStep() throws {
        // OpenStep has only strings, data, arrays and dictionaries: scalars are written as text and read back from it.
        struct Flat: Codable, Equatable {
            var i: Int; var u: UInt8; var d: Double; var b: Bool; var s: String; var data: Data; var list: [Int]; var when: Date
        }
        let f = Flat(
            i: -5, u: 200, d: 0.25, b: false, s: "quoted \"text\"", data: Data([1, 2, 255]), list: [1, 2],
            when: Date(timeIntervalSinceReferenceDate: 123_456_789))
        #expect(try roundTrip(f, .openStep) == f)
    }

    @Test
    func json() throws {
        struct Plain: Codable, Equatable { var i: Int; var d: Double; var b: Bool; var s: String; var list: [Address]; var map: [String: Int] }
        let p = Plain(i: 1, d: 2.5, b: true, s: "é", list: [Address(street: "s", zip: 1, tags: ["t"])], map: ["a": 1])
        #expect(try roundTrip(p, .json) == p)
        // A date has no JSON form: an EncodingError carrying the writer's PlistError.
        let error = try #require(throws: EncodingError.self) {
            let e = PlistEncoder()
            e.outputFormat = .json
            _ = try e.encode(["d": Date()])
        }
        guard case .invalidValue(_, let context) = error else { return }
        #expect(context.underlyingError is PlistError)
    }
}

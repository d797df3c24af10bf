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

    /// The decoder remembers where the k-th key a type asks for sat in the previous record. Foundation's XML sorts
    /// keys, so that place is rarely the declared one; records here change shape (optional keys come and go, which
    /// moves the keys after them) and ask for different keys at the same turn (a custom `init(from:)` whose reading
    /// order depends on a field), so a remembered place that is wrong must be noticed every time.
    @Test func recordsOfChangingShapeDecodeFromSortedKeys() throws {
        struct Shifty: Codable, Equatable {
            var zulu: Int, alpha: String?, mike: [Int], bravo: Bool?, yankee: Double, reversed: Bool
            enum CodingKeys: String, CodingKey { case zulu, alpha, mike, bravo, yankee, reversed }
            init(zulu: Int, alpha: String?, mike: [Int], bravo: Bool?, yankee: Double, reversed: Bool) {
                (self.zulu, self.alpha, self.mike, self.bravo, self.yankee, self.reversed) = (zulu, alpha, mike, bravo, yankee, reversed)
            }
            init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                reversed = try c.decode(Bool.self, forKey: .reversed)
                if reversed {
                    yankee = try c.decode(Double.self, forKey: .yankee)
                    bravo = try c.decodeIfPresent(Bool.self, forKey: .bravo)
                    mike = try c.decode([Int].self, forKey: .mike)
                    alpha = try c.decodeIfPresent(String.self, forKey: .alpha)
                    zulu = try c.decode(Int.self, forKey: .zulu)
                } else {
                    zulu = try c.decode(Int.self, forKey: .zulu)
                    alpha = try c.decodeIfPresent(String.self, forKey: .alpha)
                    mike = try c.decode([Int].self, forKey: .mike)
                    bravo = try c.decodeIfPresent(Bool.self, forKey: .bravo)
                    yankee = try c.decode(Double.self, forKey: .yankee)
                }
            }
        }
        var r = SeededGenerator(seed: 3)
        var records: [Shifty] = []
        for i in 0..<500 {
            let alpha: String? = Bool.random(using: &r) ? "a\(i)" : nil
            let bravo: Bool? = i % 3 == 0 ? nil : i % 2 == 0
            let reversed = Int.random(in: 0..<4, using: &r) == 0
            records.append(Shifty(zulu: i, alpha: alpha, mike: Array(0..<(i % 4)), bravo: bravo, yankee: Double(i) / 8, reversed: reversed))
        }
        for format in Self.formats {
            let data = try foundationEncoder(format).encode(records)
            #expect(try PlistDecoder().decode([Shifty].self, from: data) == records)
        }
    }

    @Test(arguments: formats)
    func foundationEncodedTreesDecode(_ format: PropertyListSerialization.PropertyListFormat) throws {
        for seed in 0..<3 {
            let tree = try foundationTree(Rich.sample(seed), format)
            #expect(try PlistDecoder().decode(Rich.self, fromValue: tree) == Rich.sample(seed))
        }
        // Foundation writes a URL as {relative = …}; we read that form too.
        for link in Link.samples {
            #expect(try PlistDecoder().decode(Link.self, fromValue: try foundationTree(link, format)) == link)
        }
    }

    struct Link: Codable, Equatable {
        var url: URL
        var more: [URL]
        static let samples = [
            Link(url: URL(string: "https://example.com/x?y=1")!, more: []),
            Link(url: URL(fileURLWithPath: "/tmp/a b/é.txt"),
                 more: [URL(string: "b/c?d#e", relativeTo: URL(string: "https://x.org/a/")!)!, URL(string: "mailto:a@b.c")!]),
        ]
    }

    /// A URL in our output is in the form Foundation writes and reads, `{relative = …; base = …}`.
    @Test(arguments: formats)
    func urlsInFoundationsForm(_ format: PropertyListSerialization.PropertyListFormat) throws {
        for link in Link.samples {
            #expect(try PlistEncoder().encodeToValue(link) == (try foundationTree(link, format)))
            let encoder = PlistEncoder()
            encoder.outputFormat = format == .xml ? .xml : .binary
            let decoded = try PropertyListDecoder().decode(Link.self, from: try encoder.encode(link))
            #expect(decoded == link)
            #expect(decoded.more.first?.baseURL == link.more.first?.baseURL)
        }
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

    // MARK: Errors

    /// The `DecodingError` case (or "ok") each decoder gives for one XML value.
    func outcomes<T: Decodable>(_ type: T.Type, _ body: String) -> (ours: String, foundation: String) {
        let data = Data("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n\(body)\n</plist>\n".utf8)
        func kind(_ attempt: () throws -> T) -> String {
            do { _ = try attempt(); return "ok" } catch let error as DecodingError {
                switch error {
                case .typeMismatch: return "typeMismatch"
                case .valueNotFound: return "valueNotFound"
                case .keyNotFound: return "keyNotFound"
                case .dataCorrupted: return "dataCorrupted"
                @unknown default: return "\(error)"
                }
            } catch { return "\(error)" }
        }
        return (kind { try PlistDecoder().decode(T.self, from: data) }, kind { try PropertyListDecoder().decode(T.self, from: data) })
    }

    /// Where Foundation's XML decoder turns a real too large for `Float` into infinity, ours refuses it.
    @Test func aRealTooLargeForFloatIsRefused() {
        #expect(outcomes(Float.self, "<real>1e39</real>") == (ours: "dataCorrupted", foundation: "ok"))
        #expect(outcomes(Float.self, "<real>3.4028234663852886e+38</real>") == (ours: "ok", foundation: "ok"))
    }

    /// Code that catches a particular `DecodingError` case behaves the same with either decoder.
    @Test func decodingErrorCasesMatchFoundation() {
        struct Box<V: Decodable>: Decodable { var v: V }
        let cases: [(String, (ours: String, foundation: String))] = [
            ("Int8 300", outcomes(Int8.self, "<integer>300</integer>")),
            ("UInt -1", outcomes(UInt.self, "<integer>-1</integer>")),
            ("Int64 2^64-1", outcomes(Int64.self, "<integer>18446744073709551615</integer>")),
            ("Int 1.5", outcomes(Int.self, "<real>1.5</real>")),
            ("Int 1e20", outcomes(Int.self, "<real>1e20</real>")),
            ("Int nan", outcomes(Int.self, "<real>nan</real>")),
            ("Int 2.0", outcomes(Int.self, "<real>2.0</real>")),
            ("Int true", outcomes(Int.self, "<true/>")),
            ("Int string", outcomes(Int.self, "<string>5</string>")),
            ("String 1", outcomes(String.self, "<integer>1</integer>")),
            ("Bool 1", outcomes(Bool.self, "<integer>1</integer>")),
            ("Date string", outcomes(Date.self, "<string>2020-01-01T00:00:00Z</string>")),
            ("Data string", outcomes(Data.self, "<string>AAEC</string>")),
            ("[Int] dict", outcomes([Int].self, "<dict/>")),
            ("[String: Int] array", outcomes([String: Int].self, "<array/>")),
            ("[Int: String] bad key", outcomes([Int: String].self, "<dict><key>x</key><string>a</string></dict>")),
            ("Int $null", outcomes(Int.self, "<string>$null</string>")),
            ("String $null", outcomes(String.self, "<string>$null</string>")),
            ("String? $null", outcomes(String?.self, "<string>$null</string>")),
            ("[String] $null", outcomes([String].self, "<array><string>a</string><string>$null</string></array>")),
            ("[String: String] $null", outcomes([String: String].self, "<dict><key>k</key><string>$null</string></dict>")),
            ("Box<String> $null", outcomes(Box<String>.self, "<dict><key>v</key><string>$null</string></dict>")),
            ("Box<String?> $null", outcomes(Box<String?>.self, "<dict><key>v</key><string>$null</string></dict>")),
            ("Box missing", outcomes(Box<Int>.self, "<dict/>")),
            ("Box $null", outcomes(Box<Int>.self, "<dict><key>v</key><string>$null</string></dict>")),
            ("[Int] $null", outcomes([Int].self, "<array><string>$null</string></array>")),
            ("UUID bad", outcomes(UUID.self, "<string>bad</string>")),
            ("URL {relative} with a space", outcomes(URL.self, "<dict><key>relative</key><string>a b</string></dict>")),
            ("URL {relative} empty", outcomes(URL.self, "<dict><key>relative</key><string></string></dict>")),
            ("URL {} ", outcomes(URL.self, "<dict/>")),
        ]
        for (label, outcome) in cases {
            #expect(outcome.ours == outcome.foundation, "\(label)")
        }
    }
}

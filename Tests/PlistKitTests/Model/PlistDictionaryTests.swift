import Testing
@testable import PlistKit

@Suite struct PlistDictionaryTests {
    @Test func keysCompareByExactScalars() {
        var d = PlistDictionary()
        d["\u{E9}"] = 1
        d["e\u{301}"] = 2
        #expect(d.count == 2)
        #expect(d["\u{E9}"] == 1)
        #expect(d["e\u{301}"] == 2)
    }

    @Test func keepsInsertionOrderAndLastWins() {
        var d = PlistDictionary()
        for k in ["z", "a", "m"] { d[k] = .string(k) }
        d["a"] = "again"
        #expect(d.keys == ["z", "a", "m"])
        #expect(d["a"] == "again")
    }

    @Test func largeDictionaryUsesIndexCorrectly() {
        var d = PlistDictionary()
        for i in 0..<1000 { d["k\(i)"] = .integer(PlistInteger(i)) }
        d["\u{E9}"] = 1
        d["e\u{301}"] = 2
        #expect(d.count == 1002)
        #expect(d["k999"] == 999)
        #expect(d["e\u{301}"] == 2)
        d.removeValue(forKey: "k0")
        #expect(d["k1"] == 1)
        #expect(d.keys.first == "k1")
        #expect(d.count == 1001)
    }

    @Test func equalityIgnoresOrder() {
        let a: PlistDictionary = ["x": 1, "y": 2]
        let b: PlistDictionary = ["y": 2, "x": 1]
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
    }

    @Test func utf16KeyOrderMatchesCoreFoundation() {
        // Order observed from CF (reference §2.1 item 4): U+1F600 sorts before U+FF5E in UTF-16.
        let keys = ["\u{FF5E}", "b", "\u{1F600}", "aa", "Z", "\u{E9}", "a", "A"]
        let d = PlistDictionary(keys.map { ($0, PlistValue.bool(true)) })
        #expect(d.sortedByUTF16Keys().map(\.key) == ["A", "Z", "a", "aa", "b", "\u{E9}", "\u{1F600}", "\u{FF5E}"])
    }
}

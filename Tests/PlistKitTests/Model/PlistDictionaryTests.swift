import Testing
@testable import PlistKit
import TestSupport

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
        // CF sorts by UTF-16 code units (`CFStringCompare`): U+1F600 (a surrogate pair) sorts before U+FF5E.
        let keys = ["\u{FF5E}", "b", "\u{1F600}", "aa", "Z", "\u{E9}", "a", "A"]
        let d = PlistDictionary(keys.map { ($0, PlistValue.bool(true)) })
        #expect(d.sortedByUTF16Keys().map(\.key) == ["A", "Z", "a", "aa", "b", "\u{E9}", "\u{1F600}", "\u{FF5E}"])
    }

    /// Random edits through every mutating API, on a dictionary and on copies taken along the way, against a plain
    /// array of pairs (keys compared by exact scalars): copies never see each other's edits, the index stays right
    /// as dictionaries cross the size where it is built and dropped.
    @Test(arguments: [1, 2, 3, 4])
    func editsMatchAnArrayModel(seed: UInt64) {
        var rng = SeededGenerator(seed: seed)
        let keyPool = (0..<40).map { "k\($0)" } + ["\u{E9}", "e\u{301}", "", String(repeating: "long key ", count: 4)]
        var d = PlistDictionary()
        var model: [(String, PlistValue)] = []
        var snapshots: [(PlistDictionary, [(String, PlistValue)])] = []
        var wasIndexed = false, shrankBack = false
        func position(_ key: String) -> Int? { model.firstIndex { $0.0.unicodeScalars.elementsEqual(key.unicodeScalars) } }
        for step in 0..<3000 {
            let key = keyPool[Int.random(in: 0..<keyPool.count, using: &rng)]
            let value: PlistValue = step % 3 == 0 ? .string("value \(step) with a heap-allocated text") : .integer(PlistInteger(step))
            // The last third mostly removes, so dictionaries shrink back through the index threshold.
            let draw = Int.random(in: 0..<10, using: &rng)
            switch step >= 2000 && draw < 8 ? 4 : draw {
            case 0..<4:
                d[key] = value
                if let p = position(key) { model[p].1 = value } else { model.append((key, value)) }
            case 4..<6:
                let removed = d.removeValue(forKey: key)
                #expect(removed == position(key).map { model[$0].1 })
                if let p = position(key) { model.remove(at: p) }
            case 6:
                let at = Int.random(in: 0...model.count, using: &rng)
                d.insert(value, forKey: key, at: at)
                if let p = position(key) { model[p].1 = value } else { model.insert((key, value), at: at) }
            case 7:
                #expect(d.insertIfAbsent(value, forKey: key) == (position(key) == nil))
                if position(key) == nil { model.append((key, value)) }
            case 8:
                snapshots.append((d, model))
            default:
                let old = d.updateValue(value, forKey: key)
                #expect(old == position(key).map { model[$0].1 })
                if let p = position(key) { model[p].1 = value } else { model.append((key, value)) }
            }
            #expect(d.count == model.count)
            // After a lookup the index exists exactly past the threshold: built on the way up (by the first lookup,
            // then kept up to date by appends), dropped on the way down.
            _ = d.index(forKey: key)
            #expect((d.sharedIndex != nil) == (d.count > PlistDictionary.indexThreshold))
            if d.count > PlistDictionary.indexThreshold { wasIndexed = true } else if wasIndexed { shrankBack = true }
        }
        #expect(wasIndexed && shrankBack, "the edits crossed the index threshold both ways")
        snapshots.append((d, model))
        for (snapshot, expected) in snapshots {
            #expect(snapshot.count == expected.count)
            for (i, (key, value)) in expected.enumerated() {
                #expect(snapshot[i].key.unicodeScalars.elementsEqual(key.unicodeScalars))
                #expect(snapshot[i].value == value)
                #expect(snapshot.index(forKey: key) == i)
            }
            for key in keyPool where !expected.contains(where: { $0.0.unicodeScalars.elementsEqual(key.unicodeScalars) }) {
                #expect(snapshot[key] == nil)
            }
        }
    }

    /// A dictionary is one reference wide, so a value is three words (a `String` plus the case tag), not four.
    @Test func valuesStayThreeWordsWide() {
        #expect(MemoryLayout<PlistDictionary>.size == MemoryLayout<Int>.size)
        #expect(MemoryLayout<PlistValue>.stride == 3 * MemoryLayout<Int>.size)
    }
}

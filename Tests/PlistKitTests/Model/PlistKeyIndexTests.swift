import Foundation
import Testing
import Synchronization
@testable import PlistKit
import TestSupport

/// The hash index large dictionaries keep. Expected contents come from the test's own construction (a Swift
/// `[String: Int]` shadow keyed by scalars) or from Foundation's `PropertyListSerialization`.
@Suite struct PlistKeyIndexTests {
    /// Keys that differ only late, share lengths, or are canonically equivalent but not the same scalars.
    static func trickyKeys(_ n: Int) -> [String] {
        var keys: [String] = []
        for i in 0..<n {
            switch i % 5 {
            case 0: keys.append("k\(i)")
            case 1: keys.append(String(repeating: "x", count: 40) + "\(i)")  // long common prefix
            case 2: keys.append("caf\u{E9}\(i)")
            case 3: keys.append("cafe\u{301}\(i)")  // canonically equal to case 2's form, different scalars
            default: keys.append(String(repeating: "\u{1F600}", count: i % 7) + "#\(i)")
            }
        }
        return keys
    }

    @Test(arguments: [5, 13, 17, 100, 5000])
    func manyKeysAllFound(count: Int) {
        let keys = Self.trickyKeys(count) + ["", "\u{E9}", "e\u{301}"]
        var d = PlistDictionary()
        for (i, k) in keys.enumerated() { d[k] = .integer(PlistInteger(i)) }
        #expect(d.count == keys.count)
        for (i, k) in keys.enumerated() {
            #expect(d.index(forKey: k) == i)
        }
        // Lookups have built the index exactly when the dictionary is past the threshold.
        #expect((d.sharedIndex != nil) == (keys.count > PlistDictionary.indexThreshold))
        // Absent keys: prefixes, canonical equivalents of present keys, and a long miss.
        #expect(d.index(forKey: "k") == nil)
        #expect(d.index(forKey: "caf\u{E9}") == nil)
        #expect(d.index(forKey: String(repeating: "x", count: 40)) == nil)
        #expect(d.index(forKey: "e\u{301}\u{301}") == nil)
        #expect(d["\u{E9}"] == .integer(PlistInteger(keys.count - 2)))
        #expect(d["e\u{301}"] == .integer(PlistInteger(keys.count - 1)))
    }

    /// 200k keys fill the table's buckets densely, so probing runs through long collision chains.
    @Test func denseTableWithManyCollisions() {
        let n = 200_000
        var d = PlistDictionary()
        for i in 0..<n { d.updateValue(.integer(PlistInteger(i)), forKey: String(i, radix: 36)) }
        #expect(d.count == n)
        var misses = 0
        for i in stride(from: 0, to: n, by: 7) where d.index(forKey: String(i, radix: 36)) != i { misses += 1 }
        #expect(misses == 0)
        for i in n..<(n + 1000) where d.index(forKey: String(i, radix: 36)) != nil { misses += 1 }
        #expect(misses == 0)
    }

    /// Random updates, insertions at positions and removals, checked against a shadow model after each step.
    @Test func mutationsMatchAShadowModel() {
        var rng = SystemRandomNumberGenerator()
        let pool = Self.trickyKeys(60)
        var d = PlistDictionary()
        var order: [String] = []
        var values: [String: Int] = [:]  // keyed by scalars via a unicodeScalars description
        func id(_ k: String) -> String { k.unicodeScalars.map { String($0.value) }.joined(separator: ",") }
        for step in 0..<3000 {
            let k = pool[Int.random(in: 0..<pool.count, using: &rng)]
            switch Int.random(in: 0..<4, using: &rng) {
            case 0, 1:
                d[k] = .integer(PlistInteger(step))
                if values[id(k)] == nil { order.append(k) }
                values[id(k)] = step
            case 2:
                let old = d.removeValue(forKey: k)
                #expect(old == values[id(k)].map { .integer(PlistInteger($0)) })
                values[id(k)] = nil
                order.removeAll { id($0) == id(k) }
            default:
                let at = order.isEmpty ? 0 : Int.random(in: 0...order.count, using: &rng)
                d.insert(.integer(PlistInteger(step)), forKey: k, at: at)
                if values[id(k)] == nil { order.insert(k, at: at) }
                values[id(k)] = step
            }
            #expect(d.keys.map(id) == order.map(id))
            for (j, key) in order.enumerated() where d.index(forKey: key) != j {
                Issue.record("step \(step): \(key) not at \(j)")
            }
        }
    }

    @Test func removeAndReinsertAroundTheThreshold() {
        var d = PlistDictionary()
        let keys = (0..<20).map { "key\($0)" }
        for k in keys { d[k] = .string(k) }
        for k in keys.prefix(15) { d.removeValue(forKey: k) }
        #expect(d.sharedIndex == nil)
        #expect(d.keys == Array(keys.suffix(5)))
        for k in keys.prefix(15).reversed() { d[k] = .string(k + "!") }
        #expect(d.sharedIndex != nil)
        #expect(d.keys == Array(keys.suffix(5)) + keys.prefix(15).reversed())
        for k in keys.prefix(15) { #expect(d[k] == .string(k + "!")) }
        for k in keys.suffix(5) { #expect(d[k] == .string(k)) }
        #expect(d.insertIfAbsent("no", forKey: "key3") == false)
        #expect(d.insertIfAbsent("yes", forKey: "key20") == true)
        #expect(d.keys.last == "key20")
    }

    @Test func copiesDoNotShareMutations() {
        var a = PlistDictionary()
        for i in 0..<30 { a["k\(i)"] = .integer(PlistInteger(i)) }
        var b = a
        b["new"] = 1
        b.removeValue(forKey: "k3")
        a["other"] = 2
        #expect(a.index(forKey: "new") == nil)
        #expect(a.index(forKey: "k3") == 3)
        #expect(a.index(forKey: "other") == 30)
        #expect(b.index(forKey: "other") == nil)
        #expect(b.index(forKey: "new") == 29)
        #expect(b.index(forKey: "k4") == 3)
    }

    @Test func equalityAndHashUseExactScalars() {
        let keys = Self.trickyKeys(40)
        let a = PlistDictionary(keys.map { ($0, PlistValue.bool(true)) })
        let b = PlistDictionary(keys.reversed().map { ($0, PlistValue.bool(true)) })
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        var c = a
        c.removeValue(forKey: "caf\u{E9}2")
        c["cafe\u{301}2"] = true
        #expect(c != a)
    }

    // MARK: Dictionaries built by the readers

    static let recordKeys = (0..<40).map { "field \($0) \u{E9}" } + ["e\u{301}", "\u{E9}"]

    /// An array of records with the same keys (so the binary reader shares key arrays and indexes between them).
    static func foundationRecords(_ recordKeys: [String] = recordKeys) -> NSArray {
        let records = NSMutableArray()
        for r in 0..<50 {
            let d = NSMutableDictionary()
            for (i, k) in recordKeys.enumerated() { d.setObject(NSNumber(value: r * 1000 + i), forKey: NSString(string: k)) }
            records.add(d)
        }
        return records
    }

    static func checkRecords(_ value: PlistValue, _ recordKeys: [String] = recordKeys) throws {
        guard case .array(let records) = value else { Issue.record("not an array"); return }
        #expect(records.count == 50)
        var all: [PlistDictionary] = []
        for (r, record) in records.enumerated() {
            guard case .dictionary(let d) = record else { Issue.record("not a dictionary"); return }
            #expect(d.count == recordKeys.count)
            for (i, k) in recordKeys.enumerated() where d[k] != .integer(PlistInteger(r * 1000 + i)) {
                Issue.record("record \(r) key \(k)")
            }
            #expect(d.sharedIndex != nil, "lookups in a large dictionary build its index")
            all.append(d)
        }
        // Mutating one record must leave the others (which may share its key array and index) alone.
        // (Foundation writes keys in its own order, so positions come from the records read.)
        let first = all[0].keys[0], second = all[0].keys[1]
        all[0]["added"] = true
        all[0].removeValue(forKey: first)
        #expect(all[0].index(forKey: second) == 0)
        #expect(all[0].index(forKey: "added") == recordKeys.count - 1)
        for d in all.dropFirst() {
            #expect(d.index(forKey: "added") == nil)
            #expect(d.count == recordKeys.count)
            for (j, k) in d.keys.enumerated() where d.index(forKey: k) != j { Issue.record("\(k) not at \(j)") }
        }
    }

    /// A large dictionary whose keys the binary reader already knows to be distinct has no index until its first
    /// lookup, which builds it (with the answers a scan gives); records with one key set share a single index.
    @Test func indexesAreBuiltByTheFirstLookupAndSharedByRecords() throws {
        // Written by PlistKit's binary writer, which writes each key string once and keys in insertion order.
        // Records whose key sets all differ (so none is built from another's): from the third on, the key objects
        // are in the reader's key table, and a record's keys come as a checked, distinct set.
        var varied: [PlistValue] = []
        for r in 0..<6 {
            var d = PlistDictionary()
            for i in 0..<(20 + r) { d["field \(i)"] = .integer(PlistInteger(r * 1000 + i)) }
            varied.append(.dictionary(d))
        }
        let keys = Array(Self.recordKeys.prefix(40))
        var same: [PlistValue] = []
        for r in 0..<50 {
            var d = PlistDictionary()
            for (i, k) in keys.enumerated() { d[k] = .integer(PlistInteger(r * 1000 + i)) }
            same.append(.dictionary(d))
        }
        let data = try PropertyList.write(["varied": .array(varied), "records": .array(same)], format: .binary)
        let value = try PropertyList.read(data).value
        guard case .array(let records)? = value["varied"], records.count == 6 else { Issue.record("unexpected shape"); return }
        for (r, record) in records.enumerated().dropFirst(2) {
            let d = try #require(record.dictionaryValue)
            #expect(d.sharedIndex == nil, "record \(r): no lookup yet")
            for i in 0..<(20 + r) { #expect(d["field \(i)"] == .integer(PlistInteger(r * 1000 + i))) }
            #expect(d.index(forKey: "field \(20 + r)") == nil)
            #expect(d.sharedIndex != nil, "record \(r): indexed by its lookups")
        }
        // Every record of one key set after the first is made from the first one's keys, and shares its index.
        guard case .array(let read)? = value["records"] else { Issue.record("no records"); return }
        let shared = read.dropFirst().compactMap { $0.dictionaryValue?.sharedIndex }
        #expect(shared.count == read.count - 1)
        #expect(shared.allSatisfy { $0 === shared[0] })
        try Self.checkRecords(value["records"]!, keys)
    }

    /// Threads that look up keys in one shared, not yet indexed dictionary all get the right answers, and one index
    /// is left in it (each first lookup publishes its index or adopts the one another thread published).
    @Test(arguments: 1...4)
    func concurrentFirstLookups(round: Int) throws {
        let keys = Self.trickyKeys(3000)
        let values = keys.indices.map { PlistValue.integer(PlistInteger($0)) }
        let d = keys.withUnsafeBufferPointer { k in
            values.withUnsafeBufferPointer { v in PlistDictionary(uniqueKeys: k, values: v, sharing: nil) }
        }
        #expect(d.sharedIndex == nil)
        let wrong = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            var misses = 0
            for (i, k) in keys.enumerated() where (i + thread + round) % 3 == 0 && d.index(forKey: k) != i { misses += 1 }
            if d.index(forKey: "absent \(thread)") != nil { misses += 1 }
            wrong.withLock { $0 += misses }
        }
        #expect(wrong.withLock { $0 } == 0)
        #expect(d.sharedIndex != nil)
        let first = d.sharedIndex
        _ = d.index(forKey: keys[0])
        #expect(d.sharedIndex === first, "a published index is kept")
    }

    @Test(arguments: [PropertyListSerialization.PropertyListFormat.xml, .binary])
    func recordsWrittenByFoundation(format: PropertyListSerialization.PropertyListFormat) throws {
        // Foundation on Linux may merge canonically equivalent keys when writing, so not the é pair here (the
        // JSON and OpenStep tests cover it).
        let keys = Array(Self.recordKeys.prefix(40))
        let data = try PropertyListSerialization.data(fromPropertyList: Self.foundationRecords(keys), format: format, options: 0)
        let ours = try PropertyList.read(data).value
        try Self.checkRecords(ours, keys)
        let theirs = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        #expect(ours == (try FoundationBridge.fromFoundation(theirs)))
    }

    @Test func recordsInJSONText() throws {
        // Written by the test (JSONSerialization would merge the canonically equivalent keys); \u escapes for
        // non-ASCII, so the reader's escape path makes the keys.
        func quote(_ s: String) -> String {
            "\"" + s.utf16.map { $0 < 0x80 ? String(UnicodeScalar(UInt8($0))) : String(format: "\\u%04x", $0) }.joined() + "\""
        }
        let records = (0..<50).map { r in
            "{" + Self.recordKeys.enumerated().map { "\(quote($1)): \(r * 1000 + $0)" }.joined(separator: ",") + "}"
        }
        try Self.checkRecords(try PropertyList.read(Array(("[" + records.joined(separator: ",\n") + "]").utf8)).value)
    }

    @Test func recordsInOpenStepText() throws {
        // Quoted OpenStep strings with \U escapes, written by the test from the same key list.
        func quote(_ s: String) -> String {
            "\"" + s.unicodeScalars.map { $0.isASCII ? String($0) : String(format: "\\U%04X", $0.value) }.joined() + "\""
        }
        var text = "(\n"
        for r in 0..<50 {
            text += "{ " + Self.recordKeys.enumerated().map { "\(quote($1)) = \(r * 1000 + $0);" }.joined(separator: " ") + " },\n"
        }
        text += ")"
        guard case .array(let records) = try PropertyList.read(Array(text.utf8)).value else {
            Issue.record("not an array"); return
        }
        // OpenStep has no integers: the values are strings.
        for (r, record) in records.enumerated() {
            guard case .dictionary(let d) = record else { Issue.record("not a dictionary"); return }
            #expect(d.count == Self.recordKeys.count)
            for (i, k) in Self.recordKeys.enumerated() where d[k] != .string("\(r * 1000 + i)") {
                Issue.record("record \(r) key \(k)")
            }
        }
    }

    @Test func codableEncodesLargeKeyedContainers() throws {
        // Swift's Dictionary merges canonically equivalent keys, so only the first 40 record keys.
        var records: [[String: Int]] = []
        for r in 0..<20 { records.append(Dictionary(uniqueKeysWithValues: Self.recordKeys.prefix(40).enumerated().map { ($1, r + $0) })) }
        let value = try PlistEncoder().encodeToValue(records)
        let theirs = try PropertyListSerialization.propertyList(
            from: PropertyListEncoder().encode(records), options: [], format: nil)
        #expect(value == (try FoundationBridge.fromFoundation(theirs)))
        var format = PlistFormat.xml
        let back = try PlistDecoder().decode([[String: Int]].self, from: PlistEncoder().encode(records), format: &format)
        #expect(back == records)
    }

    /// A duplicate past the index threshold, under each policy, in each reader that builds large dictionaries.
    @Test(arguments: [DuplicateKeyPolicy.lastWins, .firstWins, .reject])
    func duplicateKeysInLargeDictionaries(policy: DuplicateKeyPolicy) throws {
        let keys = (0..<30).map { "k\($0)" } + ["k20"]
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist version=\"1.0\"><dict>"
        var json = "{"
        var openStep = "{"
        for (i, k) in keys.enumerated() {
            xml += "<key>\(k)</key><integer>\(i)</integer>"
            json += (i == 0 ? "" : ",") + "\"\(k)\": \(i)"
            openStep += "\(k) = \(i);"
        }
        xml += "</dict></plist>"
        json += "}"
        openStep += "}"
        var options = PlistReadOptions()
        options.duplicateKeys = policy
        for (text, isOpenStep) in [(xml, false), (json, false), (openStep, true)] {
            do {
                let v = try PropertyList.read(Array(text.utf8), options: options).value
                guard case .dictionary(let d) = v else { Issue.record("not a dictionary"); continue }
                #expect(policy != .reject, "\(text.prefix(10)) accepted a duplicate")
                #expect(d.count == 30)
                let expected = policy == .lastWins ? 30 : 20
                #expect(d["k20"] == (isOpenStep ? .string("\(expected)") : .integer(PlistInteger(expected))))
                #expect(d.index(forKey: "k20") == 20)
                #expect(d.index(forKey: "k29") == 29)
            } catch let e as PlistError {
                #expect(policy == .reject)
                #expect(e.kind == .duplicateKey)
            }
        }
    }
}

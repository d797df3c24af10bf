import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// The archiver against swift-corelibs-foundation's `NSKeyedArchiver`/`NSKeyedUnarchiver` in this process (an
/// independent implementation): XML bytes, and Foundation reading ours back.
@Suite struct KeyedArchiverFoundationTests {
    /// Values whose archives have a deterministic order in Foundation (no dictionary of two or more entries).
    static let deterministic: [PlistValue] = [
        "hello", "", "é", "日本語", "😀", "&<>\"'", "$null", "$class", " spaced ", "tab\there",
        0, -1, 1, 12, 13, .integer(PlistInteger(Int64.max)), .integer(PlistInteger(Int64.min)), .integer(PlistInteger(UInt64.max)),
        0.1, -0.0, 1e300, .real(PlistReal(Double.nan)), .real(PlistReal(Double.infinity)), .real(PlistReal(-Double.infinity)),
        2.0, .real(PlistReal(Float(0.1))), .real(PlistReal(Float(2.5))),
        true, false,
        .data(Data()), .data(Data([1, 2, 3])), .data(Data((0..<200).map { UInt8($0) })),
        .date(PlistDate(secondsSinceReferenceDate: 0)), .date(PlistDate(secondsSinceReferenceDate: 1.5)),
        .date(PlistDate(secondsSinceReferenceDate: -1e9)),
        [], ["baa", "baa", "black", "sheep"], [[]], [[[[1]]]], [1, 1.0, true], [true, 1, 1.0], [0.0, -0.0], [[1], [1]],
        [["k": 1], ["k": 1]], ["k": [1, "k"]], [:], ["only": [:]], ["a": ["b": ["c": .data(Data([0xff]))]]],
        [.date(PlistDate(secondsSinceReferenceDate: 5)), .date(PlistDate(secondsSinceReferenceDate: 5)), 5],
        ["x", 1, 2.5, true, .data(Data([9]))], [.data(Data((0..<100).map { UInt8($0 & 0xff) }))],
        ["1", 1, "1.0", 1.0],
    ]

    @Test(arguments: deterministic)
    func xmlIsFoundationsBytes(_ value: PlistValue) throws {
        let ours = try KeyedArchiver.archivedData(value, format: .xml)
        let theirs = FoundationArchiving.archive(value, xml: true)
        #expect(Data(ours) == theirs, "\(value)\nours:\n\(String(decoding: ours, as: UTF8.self))\nFoundation:\n\(String(decoding: theirs, as: UTF8.self))")
    }

    @Test(.enabled(if: ArchiveFixtures.directory != nil, "../shared/fixtures/keyed-archives is absent"))
    func arrayTestFixtureBytes() throws {
        let fixture = try ArchiveFixtures.bytes("NSKeyedUnarchiver-ArrayTest.plist")
        let ours = try KeyedArchiver.archivedData(["baa", "baa", "black", "sheep"], format: .xml)
        #expect(Data(ours) == fixture)
    }

    @Test func thousandRandomValuesWithoutMultiEntryDictionariesAreFoundationsXML() throws {
        var mismatches = 0
        for seed in 0..<1000 as Range<UInt64> {
            var g = RandomArchiveValue(seed: seed, multiEntryDictionaries: false)
            let value = g.value()
            let ours = Data(try KeyedArchiver.archivedData(value, format: .xml))
            let theirs = FoundationArchiving.archive(value, xml: true)
            if ours != theirs {
                mismatches += 1
                if mismatches <= 3 { Issue.record("seed \(seed): \(value)\nours:\n\(String(decoding: ours, as: UTF8.self))\nFoundation:\n\(String(decoding: theirs, as: UTF8.self))") }
            }
        }
        #expect(mismatches == 0)
    }

    /// Foundation's unarchiver reads our binary and XML archives of 1,000 random values (dictionaries of any size) back
    /// equal to the objects Foundation archives for them (`isEqual`, Foundation's own equality).
    @Test func foundationReadsOurArchivesBackEqual() throws {
        for seed in 0..<1000 as Range<UInt64> {
            var g = RandomArchiveValue(seed: seed &+ 50_000, multiEntryDictionaries: true)
            let value = g.value()
            let expected = FoundationArchiving.object(value)
            for format in [PlistFormat.binary, .xml] {
                let ours = Data(try KeyedArchiver.archivedData(value, format: format))
                let (decoded, error) = FoundationArchiving.unarchive(ours)
                #expect(error == nil, "seed \(seed) \(format): \(String(describing: error))")
                guard let object = decoded as? NSObject else {
                    Issue.record("seed \(seed) \(format): Foundation decoded \(String(describing: decoded))")
                    continue
                }
                // Compared leaf by leaf with isEqual: NSArray's own isEqual on Linux says false for some pairs whose
                // elements are all equal.
                let difference = FoundationArchiving.difference(object, expected)
                #expect(difference == nil, "seed \(seed) \(format): \(difference ?? "")")
            }
        }
    }

    /// Multi-entry dictionaries: Foundation's order changes from run to run, so the comparison is of the decoded
    /// values; ours decode to the value archived, and Foundation's archive of it decodes (with our reader) the same.
    @Test func multiEntryDictionariesDecodeAlike() throws {
        for seed in 0..<300 as Range<UInt64> {
            var g = RandomArchiveValue(seed: seed &+ 90_000, multiEntryDictionaries: true)
            let value = g.value()
            let theirs = FoundationArchiving.archive(value, xml: seed % 2 == 0)
            let fromFoundation = try KeyedArchive(theirs).plainValue()
            let fromOurs = try KeyedArchive(KeyedArchiver.archivedData(value, format: .binary)).plainValue()
            // Foundation merges 1, 1.0 and true (and -0.0 into 0.0) into whichever it met first, and it meets them in
            // hash order: compared as Foundation compares numbers.
            let difference = FoundationArchiving.difference(FoundationArchiving.object(fromOurs), FoundationArchiving.object(fromFoundation))
            #expect(difference == nil, "seed \(seed): \(difference ?? "")")
        }
    }

    /// Foundation's archive of an object read by our reader: the class chains it writes.
    @Test func classChainsOfFoundationsObjects() throws {
        let url = NSURL(string: "foo.xml", relativeTo: URL(string: "https://www.example.com")!)!
        let objects: [(NSObject, [String], PlistValue)] = [
            (NSMutableArray(array: [1]), ["NSMutableArray", "NSArray", "NSObject"], [1]),
            (NSMutableDictionary(dictionary: ["k": "v"]), ["NSMutableDictionary", "NSDictionary", "NSObject"], ["k": "v"]),
            (NSSet(array: [NSNumber(value: 3)]), ["NSSet", "NSObject"], [3]),
            (NSOrderedSet(array: ["valgeir", "nico", "puzzle"]), ["NSOrderedSet", "NSObject"], ["valgeir", "nico", "puzzle"]),
            (NSMutableData(bytes: [1, 2, 3] as [UInt8], length: 3), ["NSMutableData", "NSData", "NSObject"], .data(Data([1, 2, 3]))),
            (url, ["NSURL", "NSObject"], "https://www.example.com/foo.xml"),
            (NSUUID(uuidString: "0AD863BA-7584-40CF-8896-BD87B3280C34")!, ["NSUUID", "NSObject"], "0AD863BA-7584-40CF-8896-BD87B3280C34"),
            (NSNull(), ["NSNull", "NSObject"], "$null"),
            (NSDate(timeIntervalSinceReferenceDate: 7), ["NSDate", "NSObject"], .date(PlistDate(secondsSinceReferenceDate: 7))),
            (NSValue(range: NSRange(location: 97345, length: 98345)), ["NSValue", "NSObject"], ["location": 97345, "length": 98345]),
            (NSIndexSet(indexesIn: NSRange(location: 3, length: 4)), ["NSIndexSet", "NSObject"], [["location": 3, "length": 4]]),
            (NSIndexPath(indexes: [4, 8, 15], length: 3), ["NSIndexPath", "NSObject"], [4, 8, 15]),
        ]
        for (object, chain, plain) in objects {
            let data = try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: false)
            let archive = try KeyedArchive(data)
            let root = try #require(archive.rootUID)
            #expect(archive.classChain(of: root) == chain, "\(object)")
            #expect(try archive.plainValue() == plain, "\(object)")
        }
    }

    /// What Foundation decodes from an archive equals our plain decoding, for objects it writes of every class the
    /// plain rules name (the counted set's repeats and the index set's ranges checked by value).
    @Test func countedSetAndIndexSetFromFoundation() throws {
        let counted = NSCountedSet(array: [NSNumber(value: 1), NSNumber(value: 1), NSNumber(value: 2)])
        let data = try NSKeyedArchiver.archivedData(withRootObject: counted, requiringSecureCoding: false)
        let plain = try #require(try KeyedArchive(data).plainValue().arrayValue)
        #expect(plain.count == 3)
        #expect(plain.filter { $0 == 1 }.count == 2 && plain.filter { $0 == 2 }.count == 1)
        let indexes = NSMutableIndexSet(indexesIn: NSRange(location: 0, length: 50))
        indexes.add(in: NSRange(location: 100, length: 50))
        indexes.add(in: NSRange(location: 1000, length: 50))
        let idata = try NSKeyedArchiver.archivedData(withRootObject: indexes, requiringSecureCoding: false)
        #expect(try KeyedArchive(idata).plainValue() == [["location": 0, "length": 50], ["location": 100, "length": 50],
                                                          ["location": 1000, "length": 50]])
    }

    /// Foundation's output really does change from run to run for a two-entry dictionary (why byte comparison stops
    /// there): two archivers over equal dictionaries built in different orders.
    @Test func foundationsDictionaryOrderIsHashOrder() throws {
        var outputs = Set<Data>()
        for i in 0..<20 {
            let keys = (0..<8).map { "key\($0 + i * 0)" }
            let d = NSMutableDictionary()
            for k in (i % 2 == 0 ? keys : keys.reversed()) { d[k] = NSNumber(value: 1) }
            outputs.insert(FoundationArchiving.archive(.dictionary(PlistDictionary(keys.map { ($0, 1) })), xml: true))
            let a = NSKeyedArchiver(requiringSecureCoding: false)
            a.outputFormat = .xml
            a.encode(d, forKey: "root")
            a.finishEncoding()
            outputs.insert(a.encodedData)
        }
        #expect(outputs.count > 1)
    }
}

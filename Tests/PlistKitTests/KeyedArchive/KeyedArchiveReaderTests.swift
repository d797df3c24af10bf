import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// The reader and plain decoding on Apple-made and Foundation-made fixtures (expected values from
/// swift-corelibs-foundation's `TestNSKeyedUnarchiver.swift` and `FixtureValues.swift`), and on hostile archives.
@Suite struct KeyedArchiveReaderTests {
    static let hasFixtures = ArchiveFixtures.directory != nil

    static let expectations: [(String, PlistValue)] = [
        ("NSKeyedUnarchiver-ArrayTest.plist", ["baa", "baa", "black", "sheep"]),
        ("NSKeyedUnarchiver-ComplexTest.plist", [
            "array": ["$null", "hello", 34545, ["key": "val"]], "string": "hello",
            "url": "https://www.swift.org/index.xml", "uuid": "71DC068E-3420-45FF-919E-3A267D55EC22",
        ]),
        ("NSKeyedUnarchiver-URLTest.plist", "https://www.example.com/foo.xml"),
        ("NSKeyedUnarchiver-UUIDTest.plist", "0AD863BA-7584-40CF-8896-BD87B3280C34"),
        ("NSKeyedUnarchiver-OrderedSetTest.plist", ["valgeir", "nico", "puzzle"]),
        ("NSKeyedUnarchiver-RangeTest.plist", ["location": 97345, "length": 98345]),
        ("NSKeyedUnarchiver-RectTest.plist", ["x": 400.0, "y": 300.0, "width": 200.0, "height": 300.0]),
        ("NSKeyedUnarchiver-EdgeInsetsTest.plist", ["top": 1.0, "left": 2.0, "bottom": 3.0, "right": 4.0]),
        ("NSKeyedUnarchiver-ConcreteValueTest.plist", ["type": "[3i]", "value": [1, 2, 3]]),
        ("macOS-10.14/NSSet-Empty.archive", []),
        ("macOS-10.14/NSIndexPath-ManyIndices.archive", [4, 8, 15, 16, 23, 42]),
        ("macOS-10.14/NSIndexPath-Empty.archive", []),
        ("macOS-10.14/NSIndexSet-Empty.archive", []),
        ("macOS-10.14/NSIndexSet-ManyRanges.archive", [
            ["location": 0, "length": 50], ["location": 100, "length": 50], ["location": 1000, "length": 50],
            ["location": .integer(PlistInteger(Int64.max - 50)), "length": 50],
        ]),
        ("macOS-10.14/NSOrderedSet-Empty.archive", []),
    ]

    /// Found by the keyed-archive fuzz harness (Corpus/regressions/xml/keyedarchive-top-keys-out-of-order.plist): a
    /// `$top` whose keys are out of order, written back (the binary writer sorts keys), must read as the same archive
    /// — `$top` is a dictionary — and hash alike.
    @Test func anArchiveWrittenBackWithItsTopReorderedIsTheSameArchive() throws {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        let bytes = try Data(contentsOf: url.appendingPathComponent("Corpus/regressions/xml/keyedarchive-top-keys-out-of-order.plist"))
        let archive = try KeyedArchive(bytes)
        #expect(archive.top.map(\.key) == ["sifrt", "second"])
        let again = try KeyedArchive(archive.write(format: .binary))
        #expect(again.top.map(\.key) == ["second", "sifrt"])
        #expect(again == archive && again.hashValue == archive.hashValue)
        // Order aside, a different $top is a different archive.
        let other = try KeyedArchive(Data(String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "<integer>2</integer>", with: "<integer>1</integer>").utf8))
        #expect(other != archive)
    }

    @Test(.enabled(if: hasFixtures, "../shared/fixtures/keyed-archives is absent"), arguments: expectations.map(\.0))
    func fixtureDecodesAsFoundationsTestsSay(_ name: String) throws {
        let expected = try #require(Self.expectations.first { $0.0 == name }?.1)
        let archive = try KeyedArchive(ArchiveFixtures.bytes(name))
        #expect(try archive.plainValue() == expected, "\(name)")
    }

    /// Sets in stored order; checked as sets, and counted sets by their counts.
    @Test(.enabled(if: hasFixtures, "../shared/fixtures/keyed-archives is absent"))
    func setsAndCountedSets() throws {
        let numbers = try #require(try KeyedArchive(ArchiveFixtures.bytes("macOS-10.14/NSSet-Numbers.archive")).plainValue().arrayValue)
        #expect(Set(numbers) == Set([1, 2, 3, 4, 5] as [PlistValue]) && numbers.count == 5)
        let counted = try #require(try KeyedArchive(ArchiveFixtures.bytes("macOS-10.14/NSCountedSet-NumbersAppearingSeveralTimes.archive")).plainValue().arrayValue)
        #expect(counted.count == 25)
        for n in 1...5 { #expect(counted.filter { $0 == .integer(PlistInteger(n)) }.count == 5) }
    }

    /// The runs `01 00 01 01 04 02 02 01 01 03 01 00` over "0123456789" (lengths 1, 1, 4, 2, 1, 1).
    @Test(.enabled(if: hasFixtures, "../shared/fixtures/keyed-archives is absent"))
    func attributedStringRuns() throws {
        let v = try KeyedArchive(ArchiveFixtures.bytes("macOS-10.14/NSAttributedString.archive")).plainValue()
        #expect(v["string"] == "0123456789")
        let runs = try #require(v["runs"]?.arrayValue)
        #expect(runs.map { $0["length"] } == [1, 1, 4, 2, 1, 1])
        #expect(runs.map { $0["location"] } == [0, 1, 2, 6, 8, 9])
        #expect(runs[1]["attributes"] == ["Font": "Helvetica", "Size": 123])
        #expect(runs[0]["attributes"] == [:] && runs[5]["attributes"] == [:])
    }

    /// Every fixture reads, decodes, and writes back (XML and binary) to an equal graph.
    @Test(.enabled(if: hasFixtures, "../shared/fixtures/keyed-archives is absent"), arguments: ArchiveFixtures.all)
    func everyFixtureRoundTrips(_ name: String) throws {
        let archive = try KeyedArchive(ArchiveFixtures.bytes(name))
        _ = try archive.plainValue()
        for format in [PlistFormat.xml, .binary] {
            let again = try KeyedArchive(archive.write(format: format))
            #expect(again == archive, "\(name) via \(format)")
        }
        // The plain decoding archived again (sharing only identical values) decodes to itself.
        let plain = try archive.plainValue()
        let rearchived = try KeyedArchiver.archivedData(plain, format: .binary, options: KeyedArchiverOptions(uniquing: .exact))
        #expect(try KeyedArchive(rearchived).plainValue() == plain, "\(name)")
    }

    @Test(.enabled(if: hasFixtures, "../shared/fixtures/keyed-archives is absent"))
    func graphOfComplexTest() throws {
        let archive = try KeyedArchive(ArchiveFixtures.bytes("NSKeyedUnarchiver-ComplexTest.plist"))
        let root = try #require(archive.rootUID)
        #expect(archive.className(of: root) == "NSDictionary")
        #expect(archive.classChain(of: root) == ["NSDictionary", "NSObject"])
        let object = try #require(archive.object(root))
        #expect(object.fields["NS.keys"]?.arrayValue?.count == 4)
        guard case .value(.string("$null")) = archive.entry(UID(0)) else { return }
        Issue.record("UID 0 is .null, not a plain value")
    }

    @Test(.enabled(if: hasFixtures, "../shared/fixtures/keyed-archives is absent"))
    func pyObjCSubclassDecodesThroughHints() throws {
        let archive = try KeyedArchive(ArchiveFixtures.bytes("plaso-NSKeyedArchiver.plist"))
        // PyObjC's OC_BuiltinPython* classes decode as the Foundation class their $classes name (plaso's test data).
        #expect(try archive.plainValue() == [
            "MyArray": [], "MyBool": true, "MyData": .data(Data("DATA\n".utf8)),
            "MyDate": .date(PlistDate(secondsSinceReferenceDate: 729452449)), "MyDictionary": [:], "MyFloat": 2.7,
            "MyInteger": 98, "MyString": "Some string",
        ])
        // $classname, then the rest of $classes, then the $classhints not already named.
        #expect(archive.classChain(of: UID(2)) == ["OC_BuiltinPythonUnicode", "OC_PythonUnicode", "NSString", "NSObject", "OC_PythonString"])
    }

    // MARK: Key escaping

    @Test func escapedKeys() {
        #expect(ArchivedObject.escape("$ivar") == "$$ivar")
        #expect(ArchivedObject.escape("ivar") == "ivar")
        #expect(ArchivedObject.unescape("$$ivar") == "$ivar")
        #expect(ArchivedObject.unescape("$0") == nil)
        #expect(ArchivedObject.unescape("name") == "name")
    }

    @Test func xmlAndBinaryGiveTheSameGraph() throws {
        let plist = try KeyedArchiver.archive(["a": [1, "b", .date(PlistDate(secondsSinceReferenceDate: 3))]])
        let xml = try KeyedArchive(PropertyList.writeBytes(plist, format: .xml))
        let binary = try KeyedArchive(PropertyList.writeBytes(plist, format: .binary))
        #expect(xml == binary)
    }
}

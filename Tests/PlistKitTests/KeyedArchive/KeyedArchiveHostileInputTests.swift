import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// Hostile archives: each gives its own `PlistError` naming the UID and the key path, in bounded time, and never a
/// trap (the rows of the hostile-input table in the format reference, checked against the spec, not Foundation,
/// which traps on several).
@Suite struct KeyedArchiveHostileInputTests {
    static func uid(_ n: UInt64) -> PlistValue { .uid(UID(n)) }
    static let arrayClass: PlistValue = ["$classname": "NSArray", "$classes": ["NSArray", "NSObject"]]
    static let dictClass: PlistValue = ["$classname": "NSDictionary", "$classes": ["NSDictionary", "NSObject"]]
    static let customClass: PlistValue = ["$classname": "Node", "$classes": ["Node", "NSObject"]]

    static func archive(_ objects: [PlistValue], top: PlistValue = ["root": .uid(UID(1))],
                        archiver: PlistValue = "NSKeyedArchiver", version: PlistValue = 100000) -> PlistValue {
        ["$archiver": archiver, "$version": version, "$top": top, "$objects": .array(objects)]
    }

    /// Reads and plain-decodes `plist`, expecting an error of `kind` whose message names every string in `mentions`
    /// and whose key path is `path`.
    func expectError(_ plist: PlistValue, _ kind: PlistError.Kind, mentions: [String], path: String?,
                     options: KeyedArchiveOptions = KeyedArchiveOptions(), sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let a = try KeyedArchive(propertyList: plist, options: options)
            let v = try a.plainValue(options: options)
            Issue.record("expected a \(kind) error, got \(v)", sourceLocation: sourceLocation)
        } catch let e as PlistError {
            #expect(e.kind == kind, "\(e)", sourceLocation: sourceLocation)
            for m in mentions { #expect(e.message.contains(m), "\(e) does not mention \(m)", sourceLocation: sourceLocation) }
            #expect(e.keyPath?.description == path, "\(e): key path \(String(describing: e.keyPath))", sourceLocation: sourceLocation)
        } catch {
            Issue.record("not a PlistError: \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func notAnArchive() throws {
        expectError(["a": 1], .unsupportedFormat, mentions: ["no $archiver"], path: nil)
        expectError([1, 2], .unsupportedFormat, mentions: ["an array"], path: nil)
        #expect(throws: PlistError.self) { try KeyedArchive(Array("not a plist at all {".utf8)) }
    }

    @Test func anotherArchiver() {
        expectError(Self.archive(["$null", "x"], archiver: "MyArchiver"), .unsupportedFormat, mentions: ["\"MyArchiver\""], path: "$archiver")
        expectError(Self.archive(["$null", "x"], archiver: 5), .unsupportedFormat, mentions: ["an integer"], path: "$archiver")
    }

    @Test func versions() throws {
        expectError(Self.archive(["$null", "x"], version: 100001), .unsupportedVersion, mentions: ["100001"], path: "$version")
        // Foundation (int32Value) and both Python readers accept 100000.0.
        #expect(try KeyedArchive(propertyList: Self.archive(["$null", "x"], version: 100000.0)).plainValue() == "x")
    }

    @Test func missingTopAndObjects() {
        var d = Self.archive(["$null"]).dictionaryValue ?? [:]
        d["$top"] = nil
        expectError(.dictionary(d), .invalidValue, mentions: ["no $top"], path: "$top")
        d = Self.archive(["$null"]).dictionaryValue ?? [:]
        d["$objects"] = nil
        expectError(.dictionary(d), .invalidValue, mentions: ["no $objects"], path: "$objects")
        expectError(Self.archive([]), .invalidValue, mentions: ["empty"], path: "$objects")
        expectError(Self.archive(["x", "y"]), .invalidValue, mentions: ["UID 0", "\"$null\""], path: "$objects.0")
    }

    @Test func topValues() {
        expectError(Self.archive(["$null", "x"], top: ["root": 1]), .invalidValue, mentions: ["not a UID"], path: "$top.root")
        expectError(Self.archive(["$null", "x"], top: ["root": Self.uid(9)]), .invalidReference, mentions: ["UID 9", "2 entries"], path: "$top.root")
    }

    @Test func uidPastTheTable() {
        let plist = Self.archive(["$null", ["$class": Self.uid(2), "NS.objects": [Self.uid(1), Self.uid(40)]], Self.arrayClass])
        expectError(plist, .invalidReference, mentions: ["UID 1", "UID 40", "3 entries"], path: "$objects.1.NS\\.objects.1")
    }

    @Test func classThatIsNoClass() {
        expectError(Self.archive(["$null", ["$class": Self.uid(2)], "NSArray"]), .invalidReference,
                    mentions: ["UID 1", "UID 2", "not a class description"], path: "$objects.1.$class")
        expectError(Self.archive(["$null", ["$class": Self.uid(7)]]), .invalidReference, mentions: ["UID 1", "UID 7"], path: "$objects.1.$class")
        expectError(Self.archive(["$null", ["$class": 2]]), .invalidValue, mentions: ["UID 1", "not a UID"], path: "$objects.1.$class")
        // $class pointing at the object itself, and a loop of two: class chains that loop.
        expectError(Self.archive(["$null", ["$class": Self.uid(1)]]), .invalidReference, mentions: ["loops", "UID 1"], path: "$objects.1.$class")
        expectError(Self.archive(["$null", ["$class": Self.uid(2)], ["$class": Self.uid(1)]]), .invalidReference,
                    mentions: ["loops", "UID 1 → UID 2 → UID 1"], path: "$objects.1.$class")
        expectError(Self.archive(["$null", ["$class": Self.uid(2)], ["$classname": 3]]), .invalidValue,
                    mentions: ["UID 2", "$classname"], path: "$objects.2.$classname")
        expectError(Self.archive(["$null", ["$class": Self.uid(2)], ["$classname": "X", "$classes": [1]]]), .invalidValue,
                    mentions: ["UID 2", "$classes"], path: "$objects.2.$classes")
    }

    @Test func keysAndObjectsOfDifferentLengths() {
        let longer = Self.archive(["$null", ["$class": Self.uid(3), "NS.keys": [Self.uid(2), Self.uid(2)], "NS.objects": [Self.uid(2)]], "k", Self.dictClass])
        expectError(longer, .invalidValue, mentions: ["UID 1", "NS.keys has 2", "NS.objects has 1"], path: "root.NS\\.keys")
        let shorter = Self.archive(["$null", ["$class": Self.uid(3), "NS.keys": [], "NS.objects": [Self.uid(2)]], "k", Self.dictClass])
        expectError(shorter, .invalidValue, mentions: ["NS.keys has 0"], path: "root.NS\\.keys")
    }

    @Test func nonStringKeys() throws {
        let plist = Self.archive(["$null", ["$class": Self.uid(3), "NS.keys": [Self.uid(2)], "NS.objects": [Self.uid(2)]], 7, Self.dictClass])
        expectError(plist, .nonStringKey, mentions: ["UID 1", "the integer 7"], path: "root.NS\\.keys.0")
        var options = KeyedArchiveOptions()
        options.nonStringKeys = .describe
        #expect(try KeyedArchive(propertyList: plist).plainValue(options: options) == ["7": 7])
    }

    @Test func cyclesThroughEveryStandardContainer() {
        // NSArray containing itself; NSDictionary whose value is itself; NSSet, NSOrderedSet, NSCountedSet; URL base.
        let cases: [(String, PlistValue, [PlistValue], String)] = [
            ("NSArray", ["$class": Self.uid(2), "NS.objects": [Self.uid(1)]], [Self.arrayClass], "root.0"),
            ("NSDictionary", ["$class": Self.uid(3), "NS.keys": [Self.uid(2)], "NS.objects": [Self.uid(1)]], ["k", Self.dictClass], "root.k"),
            ("NSSet", ["$class": Self.uid(2), "NS.objects": [Self.uid(1)]], [["$classname": "NSSet", "$classes": ["NSSet", "NSObject"]]], "root.0"),
            ("NSOrderedSet", ["$class": Self.uid(2), "NS.object.0": Self.uid(1)], [["$classname": "NSOrderedSet"]], "root.0"),
            ("NSCountedSet", ["$class": Self.uid(2), "NS.count": 1, "NS.object0": Self.uid(1), "NS.count0": 1], [["$classname": "NSCountedSet"]], "root.NS\\.object0"),
            ("NSURL", ["$class": Self.uid(3), "NS.base": Self.uid(1), "NS.relative": Self.uid(2)], ["x", ["$classname": "NSURL"]], "root.NS\\.base"),
            ("NSMutableArray", ["$class": Self.uid(2), "NS.objects": [Self.uid(3)]],
             [["$classname": "NSMutableArray", "$classes": ["NSMutableArray", "NSArray", "NSObject"]], ["$class": Self.uid(2), "NS.objects": [Self.uid(1)]]], "root.0.0"),
        ]
        for (name, root, rest, path) in cases {
            expectError(Self.archive(["$null", root] + rest), .cycle, mentions: ["cycle", "UID 1", name], path: path)
        }
        // A raw array entry containing itself.
        expectError(Self.archive(["$null", [Self.uid(1)]]), .cycle, mentions: ["UID 1", "raw array"], path: "root.0")
    }

    @Test func cycleKeyPathNamesTheWayIn() throws {
        let plist = Self.archive(["$null", ["$class": Self.uid(2), "NS.objects": [Self.uid(3)]], Self.arrayClass,
                                  ["$class": Self.uid(2), "NS.objects": [Self.uid(4), Self.uid(1)]], "leaf"])
        do {
            _ = try KeyedArchive(propertyList: plist).plainValue()
            Issue.record("no error")
        } catch let e as PlistError {
            #expect(e.kind == .cycle && e.message.contains("UID 1"))
            #expect(e.keyPath?.description == "root.0.1")
        }
    }

    /// A parent ↔ child cycle through custom classes (as UI archives have): legitimate, decoded with a reference
    /// marker instead of recursing.
    @Test func customClassCycleBecomesReferenceMarker() throws {
        let plist = Self.archive(["$null",
                                  ["$class": Self.uid(2), "children": [Self.uid(3)], "name": "parent"], Self.customClass,
                                  ["$class": Self.uid(2), "parent": Self.uid(1), "name": "child"]])
        let v = try KeyedArchive(propertyList: plist).plainValue()
        #expect(v == ["$class": "Node", "name": "parent", "children": [["$class": "Node", "name": "child", "parent": ["$ref": 1]]]])
    }

    @Test func deepChainIsADepthErrorNotACrash() {
        // 100,000 nested arrays: one object each.
        let n = 100_000
        var objects: [PlistValue] = ["$null"]
        for i in 1...n { objects.append(["$class": Self.uid(UInt64(n + 1)), "NS.objects": i < n ? [Self.uid(UInt64(i + 1))] : []]) }
        objects.append(Self.arrayClass)
        expectError(Self.archive(objects), .depthLimit, mentions: ["UID 513", "512"], path: "root." + Array(repeating: "0", count: 512).joined(separator: "."))
    }

    /// A DAG of depth 64 (each level's array holds the next one twice) describes 2^64 values: the budget stops it at
    /// once instead of materialising it.
    @Test func sharedObjectsCannotBlowUp() {
        var objects: [PlistValue] = ["$null"]
        let depth = 64
        for i in 1...depth {
            let next = Self.uid(UInt64(i + 1))
            objects.append(["$class": Self.uid(UInt64(depth + 2)), "NS.objects": i < depth ? [next, next] : ["leaf" == "" ? next : Self.uid(UInt64(depth + 1))]])
        }
        objects.append("leaf")
        objects.append(Self.arrayClass)
        let start = ContinuousClock.now
        do {
            _ = try KeyedArchive(propertyList: Self.archive(objects)).plainValue()
            Issue.record("no error")
        } catch let e as PlistError {
            #expect(e.kind == .countLimit && e.message.contains("maxPlainNodes"))
        } catch { Issue.record("\(error)") }
        #expect(ContinuousClock.now - start < .seconds(5))
    }

    @Test func wideGraphAgainstCaps() {
        var options = KeyedArchiveOptions()
        options.maxObjectCount = 10
        expectError(Self.archive(["$null"] + Array(repeating: "x", count: 20)), .countLimit, mentions: ["21 entries", "10"], path: "$objects", options: options)
        options = KeyedArchiveOptions()
        options.maxFieldCount = 100
        let wide: PlistValue = .dictionary(PlistDictionary((0..<200).map { ("f\($0)", PlistValue.integer(PlistInteger($0))) } + [("$class", Self.uid(2))]))
        expectError(Self.archive(["$null", wide, Self.customClass]), .countLimit, mentions: ["100 fields"], path: "$objects.1", options: options)
    }

    @Test func classesWithWrongFields() {
        let uuidClass: PlistValue = ["$classname": "NSUUID"]
        expectError(Self.archive(["$null", ["$class": Self.uid(2), "NS.uuidbytes": .data(Data([1, 2]))], uuidClass]), .invalidValue,
                    mentions: ["UID 1", "NSUUID", "16 bytes"], path: "root.NS\\.uuidbytes")
        let stringClass: PlistValue = ["$classname": "NSMutableString"]
        expectError(Self.archive(["$null", ["$class": Self.uid(2)], stringClass]), .invalidValue, mentions: ["UID 1", "NS.string"], path: "root")
        let dateClass: PlistValue = ["$classname": "NSDate"]
        expectError(Self.archive(["$null", ["$class": Self.uid(2), "NS.time": "soon"], dateClass]), .invalidValue,
                    mentions: ["NS.time"], path: "root.NS\\.time")
        let indexSet: PlistValue = ["$classname": "NSIndexSet"]
        expectError(Self.archive(["$null", ["$class": Self.uid(2), "NSRangeCount": 2, "NSRangeData": .data(Data([0x80]))], indexSet]),
                    .invalidValue, mentions: ["ends inside a number"], path: "root.NSRangeData")
        let counted: PlistValue = ["$classname": "NSCountedSet"]
        expectError(Self.archive(["$null", ["$class": Self.uid(2), "NS.count": 1_000_000_000_000], counted]), .invalidValue,
                    mentions: ["NS.count"], path: "root.NS\\.count")
    }

    /// UID 0 and "$null" entries inside NS.objects keep their places as "$null" (Foundation drops them).
    @Test func nilElementsKeepTheirPlace() throws {
        let plist = Self.archive(["$null", ["$class": Self.uid(3), "NS.objects": [Self.uid(0), Self.uid(2), Self.uid(4)]], "$null", Self.arrayClass, "x"])
        #expect(try KeyedArchive(propertyList: plist).plainValue() == ["$null", "$null", "x"])
    }

    @Test func objectWithoutClassIsRawWithUIDsResolved() throws {
        let plist = Self.archive(["$null", ["a": Self.uid(2)], "x"])
        #expect(try KeyedArchive(propertyList: plist).plainValue() == ["a": "x"])
    }

    /// Random bytes and random mutations of a real archive: a value or a PlistError, never anything else.
    @Test func mutatedArchivesOnlyThrowPlistErrors() throws {
        let base = try KeyedArchiver.archivedData(["a": [1, "b", .date(PlistDate(secondsSinceReferenceDate: 3)), ["k": .data(Data([1]))]]], format: .binary)
        var rng = SeededGenerator(seed: 7)
        for _ in 0..<3000 {
            var bytes = base
            for _ in 0..<(1 + rng.below(4)) { bytes[rng.below(bytes.count)] = UInt8(rng.below(256)) }
            do {
                let a = try KeyedArchive(bytes)
                _ = try a.plainValue()
            } catch is PlistError {
            } catch {
                Issue.record("not a PlistError: \(error)")
            }
        }
    }
}

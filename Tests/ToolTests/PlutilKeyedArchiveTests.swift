import Foundation
import PlistKit
import Testing
import TestSupport

/// `plutil -unarchive`, `-archive` and `-p` of keyed archives, run as the built binary and in-process. Expected values
/// come from Foundation (`NSKeyedArchiver`/`NSKeyedUnarchiver` and `PropertyListSerialization` in this process), the
/// fixtures' documented values (swift-corelibs-foundation's `TestNSKeyedUnarchiver.swift` and `FixtureValues.swift`)
/// and `Corpus/keyed-archives/manifest.json`.
@Suite struct PlutilKeyedArchiveTests {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let corpus = packageRoot.appendingPathComponent("Corpus/keyed-archives")
    /// `../shared/fixtures/keyed-archives` relative to the package root (a worktree one level deeper:
    /// `../../shared/…`), or nil when absent.
    static let fixturesRelative: String? = ["../", "../../"].lazy.map { $0 + "shared/fixtures/keyed-archives" }
        .first { FileManager.default.fileExists(atPath: packageRoot.appendingPathComponent($0 + "/README.md").path) }
    /// The same directory as an absolute path.
    static let fixtures: String? = fixturesRelative.map { packageRoot.appendingPathComponent($0).standardized.path }
    static let fixturesMissing: Comment = "../shared/fixtures/keyed-archives is absent"

    static var fixtureNames: [String] {
        guard let dir = fixtures, let all = FileManager.default.enumerator(atPath: dir)?.allObjects as? [String] else { return [] }
        return all.filter { $0.hasSuffix(".plist") || $0.hasSuffix(".archive") }.sorted()
    }

    /// Foundation's archive of `root` (secure coding off, as apps archive their own state).
    static func foundationArchive(_ root: Any, xml: Bool = false) -> Data {
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.outputFormat = xml ? .xml : .binary
        archiver.encode(root, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        return archiver.encodedData
    }

    /// Foundation's reading of an archive's root object.
    static func foundationUnarchive(_ data: Data) throws -> Any? {
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        unarchiver.decodingFailurePolicy = .setErrorAndReturn
        defer { unarchiver.finishDecoding() }
        return unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey)
    }

    static func foundationPlist(_ data: Data) throws -> PlistValue {
        try FoundationBridge.fromFoundation(PropertyListSerialization.propertyList(from: data, options: [], format: nil))
    }

    // MARK: The done-when check, over every fixture

    /// `plutil -unarchive xml1 -o - ../shared/fixtures/keyed-archives/<any>` prints the decoded value: for every one of
    /// the 47 fixtures, exit 0, nothing on stderr, and XML that Foundation parses.
    @Test(.enabled(if: ToolRunner.ours != nil, ToolRunner.oursMissing), .enabled(if: fixtures != nil, fixturesMissing),
          arguments: fixtureNames)
    func unarchivePrintsEveryFixtureDecoded(_ name: String) throws {
        let directory = try #require(Self.fixtures)
        let r = try ToolRunner.runOurs(["-unarchive", "xml1", "-o", "-", directory + "/" + name])
        #expect(r.status == 0 && r.stderr.isEmpty, "\(name): \(r)")
        #expect(r.out.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"), "\(name)")
        #expect(throws: Never.self, "\(name)") { try PropertyListSerialization.propertyList(from: r.stdout, options: [], format: nil) }
    }

    /// The values the fixtures are documented to hold, through the command line exactly as the issue spells it
    /// (relative to the package root), and Foundation's `NSKeyedUnarchiver` reading the same files.
    @Test(.enabled(if: ToolRunner.ours != nil, ToolRunner.oursMissing), .enabled(if: fixtures != nil, fixturesMissing))
    func unarchiveGivesTheFixturesDocumentedValues() throws {
        let relative = try #require(Self.fixturesRelative)
        let documented: [(String, NSObject)] = [
            ("NSKeyedUnarchiver-ArrayTest.plist", ["baa", "baa", "black", "sheep"] as NSArray),
            ("NSKeyedUnarchiver-URLTest.plist", "https://www.example.com/foo.xml" as NSString),
            ("NSKeyedUnarchiver-UUIDTest.plist", "0AD863BA-7584-40CF-8896-BD87B3280C34" as NSString),
            ("NSKeyedUnarchiver-OrderedSetTest.plist", ["valgeir", "nico", "puzzle"] as NSArray),
        ]
        for (name, expected) in documented {
            let r = try ToolRunner.runOurs(["-unarchive", "xml1", "-o", "-", relative + "/" + name], in: Self.packageRoot)
            #expect(r.status == 0, "\(name): \(r)")
            let printed = try PropertyListSerialization.propertyList(from: r.stdout, options: [], format: nil) as? NSObject
            #expect(printed == expected, "\(name): \(r.out)")
        }
        // Foundation decodes the array fixture to the same value.
        let array = try Data(contentsOf: URL(fileURLWithPath: try #require(Self.fixtures) + "/NSKeyedUnarchiver-ArrayTest.plist"))
        #expect((try Self.foundationUnarchive(array) as? NSArray) == (["baa", "baa", "black", "sheep"] as NSArray))
    }

    // MARK: Corpus archives: each gives its recorded value or error

    struct CorpusEntry: CustomStringConvertible, Sendable {
        var file: String
        var plain: PlistValue?
        var error: String?
        var mentions: [String]
        var keyPath: String?
        var description: String { file }
    }

    static let corpusEntries: [CorpusEntry] = {
        guard let data = try? Data(contentsOf: corpus.appendingPathComponent("manifest.json")),
              let manifest = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let files = manifest["files"] as? [[String: Any]] else { return [] }
        return files.compactMap { f in
            guard let file = f["file"] as? String else { return nil }
            return CorpusEntry(file: file, plain: f["plain"].flatMap { try? typedValue($0) }, error: f["error"] as? String,
                               mentions: f["mentions"] as? [String] ?? [], keyPath: f["key_path"] as? String)
        }
    }()

    struct BadTypedValue: Error {}

    /// The manifest's typed-JSON notation (`Corpus/README.md`): `{"string": …}`, `{"integer": "7"}`, `{"date": s}`,
    /// `{"array": […]}`, `{"dict": [[key, value], …]}`, and the other scalars.
    static func typedValue(_ any: Any) throws -> PlistValue {
        guard let object = any as? [String: Any], object.count == 1, let (tag, v) = object.first else { throw BadTypedValue() }
        switch tag {
        case "string": if let s = v as? String { return .string(s) }
        case "integer":
            if let s = v as? String, let i = Int64(s) { return .integer(PlistInteger(i)) }
            if let s = v as? String, let u = UInt64(s) { return .integer(PlistInteger(u)) }
            if let n = v as? NSNumber { return .integer(PlistInteger(n.int64Value)) }
        case "real": if let n = v as? NSNumber { return .real(PlistReal(n.doubleValue)) }
        case "bool": if let b = v as? Bool { return .bool(b) }
        case "date": if let n = v as? NSNumber { return .date(PlistDate(secondsSinceReferenceDate: n.doubleValue)) }
        case "data": if let s = v as? String, let d = Data(base64Encoded: s) { return .data(d) }
        case "array": if let a = v as? [Any] { return .array(try a.map(typedValue)) }
        case "dict":
            if let pairs = v as? [[Any]] {
                var d = PlistDictionary()
                for pair in pairs {
                    guard pair.count == 2, let key = pair[0] as? String else { throw BadTypedValue() }
                    d[key] = try typedValue(pair[1])
                }
                return .dictionary(d)
            }
        default: break
        }
        throw BadTypedValue()
    }

    @Test func corpusManifestIsRead() {
        #expect(Self.corpusEntries.count >= 19)
        #expect(Self.corpusEntries.filter { $0.error == nil }.allSatisfy { $0.plain != nil })
    }

    /// Valid archives: `-unarchive binary1` (binary keeps dates' fractions) gives what the manifest records, read back
    /// by Foundation. Hostile ones: exit 1, nothing on stdout, and `file: (message (at key path K))` naming the
    /// manifest's UIDs and key path.
    @Test(.enabled(if: ToolRunner.ours != nil, ToolRunner.oursMissing), arguments: corpusEntries)
    func corpusArchiveGivesItsRecordedValueOrError(_ entry: CorpusEntry) throws {
        let path = Self.corpus.appendingPathComponent(entry.file).path
        let r = try ToolRunner.runOurs(["-unarchive", "binary1", "-o", "-", path])
        if entry.error != nil {
            #expect(r.status == 1 && r.stdout.isEmpty, "\(entry.file): \(r)")
            #expect(r.stderr.hasPrefix(path + ": ("), "\(entry.file): \(r)")
            if let keyPath = entry.keyPath { #expect(r.stderr.hasSuffix(" (at key path \(keyPath)))\n"), "\(entry.file): \(r)") }
            for word in entry.mentions { #expect(r.stderr.contains(word), "\(entry.file): \(r) does not mention \(word)") }
            return
        }
        #expect(r.status == 0 && r.stderr.isEmpty, "\(entry.file): \(r)")
        #expect(try Self.foundationPlist(r.stdout) == entry.plain, "\(entry.file)")
    }

    // MARK: -archive

    /// What `-archive` writes, Foundation's unarchiver reads back equal to the input, and `-unarchive` gives back the
    /// input exactly: `true` and `1.0` beside a `1` keep their types (Foundation's own sharing would merge them).
    @Test(.enabled(if: ToolRunner.ours != nil, ToolRunner.oursMissing))
    func archiveIsReadByFoundationAndUnarchivesToTheInput() throws {
        let dir = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input: NSDictionary = [
            "name": "sheep é 😀", "count": 1, "yes": true, "one": 1.0, "neg": -0.5, "big": NSNumber(value: UInt64.max),
            "when": Date(timeIntervalSinceReferenceDate: 700_000_000), "bytes": Data([0, 1, 2, 250]),
            "list": [1, "two", ["nested": [true, false]] as NSDictionary, [Any]()] as NSArray, "empty": NSDictionary(),
        ]
        try ToolRunner.writeXML(input, to: dir.appendingPathComponent("in.plist"))
        for format in ["xml1", "binary1"] {
            let archive = dir.appendingPathComponent("a-\(format)").path
            let plain = dir.appendingPathComponent("p-\(format)").path
            let a = try ToolRunner.runOurs(["-archive", format, "-o", archive, "in.plist"], in: dir)
            #expect(a.status == 0 && a.stdout.isEmpty && a.stderr.isEmpty, "\(a)")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: archive))
            #expect(bytes.starts(with: Array((format == "xml1" ? "<?xml" : "bplist00").utf8)))
            let decoded = try #require(try Self.foundationUnarchive(bytes) as? NSDictionary, "\(format)")
            #expect(decoded == input, "\(format): \(decoded)")
            let u = try ToolRunner.runOurs(["-unarchive", "binary1", "-o", plain, archive])
            #expect(u.status == 0, "\(u)")
            #expect(try Self.foundationPlist(Data(contentsOf: URL(fileURLWithPath: plain)))
                    == FoundationBridge.fromFoundation(input), "\(format)")
        }
    }

    /// For a value Foundation archives deterministically (no dictionary of two or more entries), `-archive xml1`
    /// writes Foundation's own bytes.
    @Test(.enabled(if: ToolRunner.ours != nil, ToolRunner.oursMissing))
    func archiveXMLIsFoundationsBytes() throws {
        let dir = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let value: NSArray = ["baa", "baa", "black", 7, 2.5, ["one": "entry"] as NSDictionary, Date(timeIntervalSinceReferenceDate: 86_400)]
        try ToolRunner.writeXML(value, to: dir.appendingPathComponent("in.plist"))
        let r = try ToolRunner.runOurs(["-archive", "xml1", "-o", "-", "in.plist"], in: dir)
        #expect(r.status == 0, "\(r)")
        #expect(r.out == String(decoding: Self.foundationArchive(value, xml: true), as: UTF8.self))
    }

    /// Only XML and binary hold UIDs: other formats are refused before any file is touched.
    @Test(.enabled(if: ToolRunner.ours != nil, ToolRunner.oursMissing), arguments: ["json", "openstep", "gnustep", "strings", "swift", "objc", "raw"])
    func archiveRefusesFormatsWithoutUIDs(_ format: String) throws {
        let dir = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("in.plist")
        try ToolRunner.writeXML(["k": "v"] as NSDictionary, to: file)
        let before = try Data(contentsOf: file)
        let r = try ToolRunner.runOurs(["-archive", format, "in.plist"], in: dir)
        let expected = "-archive writes xml1 or binary1 (a keyed archive holds UIDs, which \(format) cannot hold).\n"
        #expect(r.status == 1 && r.stdout.isEmpty && r.stderr == expected, "\(r)")
        #expect(try Data(contentsOf: file) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["in.plist"])
    }

    // MARK: Writing in place, several files, stdin

    /// Without `-o`, `-unarchive` rewrites the file (atomically: a new inode, the old mode kept), `-e` writes beside it,
    /// and a failure in one file leaves it whole and does not stop the others.
    @Test(.enabled(if: ToolRunner.ours != nil, ToolRunner.oursMissing))
    func unarchiveRewritesFilesInPlace() throws {
        let dir = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let archive = Self.foundationArchive(["k": "v"] as NSDictionary)
        for name in ["a.plist", "b.plist"] { try archive.write(to: dir.appendingPathComponent(name)) }
        let notArchive = dir.appendingPathComponent("n.plist")
        try ToolRunner.writeXML(["k": "v"] as NSDictionary, to: notArchive)
        let notArchiveBytes = try Data(contentsOf: notArchive)
        let a = dir.appendingPathComponent("a.plist").path
        #expect(chmod(a, 0o640) == 0)
        var before = stat()
        #expect(stat(a, &before) == 0)

        let r = try ToolRunner.runOurs(["-unarchive", "xml1", "a.plist", "n.plist", "-e", "xml", "b.plist"], in: dir)
        // `-e` applies to every file: a.xml and b.xml are written, the inputs kept.
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr == "n.plist: (not a keyed archive: there is no $archiver key)\n", "\(r)")
        for name in ["a.xml", "b.xml"] {
            #expect(try Self.foundationPlist(Data(contentsOf: dir.appendingPathComponent(name))) == ["k": "v"], "\(name)")
        }
        #expect(try Data(contentsOf: notArchive) == notArchiveBytes)
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("n.xml").path))

        let inPlace = try ToolRunner.runOurs(["-unarchive", "json", "a.plist"], in: dir)
        #expect(inPlace.status == 0 && inPlace.stdout.isEmpty && inPlace.stderr.isEmpty, "\(inPlace)")
        #expect(try String(contentsOfFile: a, encoding: .utf8) == "{\"k\":\"v\"}")
        var after = stat()
        #expect(stat(a, &after) == 0)
        #expect(after.st_ino != before.st_ino && after.st_mode & 0o777 == 0o640)
    }

    @Test func unarchiveReadsStandardInputAndWritesStandardOutput() throws {
        let archive = Array(Self.foundationArchive(["baa", "sheep"] as NSArray))
        let run = PlutilCommandTests.inProcess(["-unarchive", "json", "-"], input: archive)
        #expect(run.status == 0 && run.io.errorText.isEmpty, "\(run.io.errorText)")
        #expect(run.io.outputText == "[\"baa\",\"sheep\"]")
        let bad = PlutilCommandTests.inProcess(["-unarchive", "xml1", "-"], input: Array("(1, 2)".utf8))
        #expect(bad.status == 1 && bad.io.output.isEmpty)
        #expect(bad.io.errorText == "<stdin>: (not a keyed archive: the root is an array, not a dictionary)\n")
        // A property list whose root is data holding an archive (a preference value saved on its own).
        let wrapped = try PropertyListSerialization.data(fromPropertyList: Data(archive), format: .xml, options: 0)
        let inData = PlutilCommandTests.inProcess(["-unarchive", "json", "-"], input: Array(wrapped))
        #expect(inData.status == 0 && inData.io.outputText == "[\"baa\",\"sheep\"]", "\(inData.io.errorText)")
    }

    // MARK: -p

    /// `-p` of an archive: a header (the entry count and root class, from Foundation's own archive), then the decoded
    /// value exactly as `-p` prints that value stored plainly (Foundation writes both files).
    @Test(.enabled(if: ToolRunner.ours != nil, ToolRunner.oursMissing))
    func printShowsAnArchiveDecoded() throws {
        let dir = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let value: NSDictionary = ["title": "Notes", "tags": ["a", "b"] as NSArray, "size": 12, "ratio": 0.5, "on": true,
                                   "saved": Date(timeIntervalSinceReferenceDate: 600_000_000), "blob": Data([1, 2, 3])]
        let archive = Self.foundationArchive(value)
        try archive.write(to: dir.appendingPathComponent("archive.plist"))
        try ToolRunner.writeXML(value, to: dir.appendingPathComponent("plain.plist"))
        let objects = try #require(try PropertyListSerialization.propertyList(from: archive, options: [], format: nil)
            as? NSDictionary)["$objects"] as? NSArray
        let printedArchive = try ToolRunner.runOurs(["-p", "archive.plist"], in: dir)
        let printedPlain = try ToolRunner.runOurs(["-p", "plain.plist"], in: dir)
        #expect(printedArchive.status == 0 && printedArchive.stderr.isEmpty, "\(printedArchive)")
        #expect(printedArchive.out == "NSKeyedArchiver archive: \(try #require(objects).count) objects, root NSDictionary\n"
                + printedPlain.out)
    }

    /// Objects of classes without a plain form print with their class names (`FixtureValues.swift`: 45 miles).
    @Test(.enabled(if: ToolRunner.ours != nil, ToolRunner.oursMissing), .enabled(if: fixtures != nil, fixturesMissing))
    func printShowsClassNames() throws {
        let r = try ToolRunner.runOurs(["-p", try #require(Self.fixtures) + "/macOS-10.14/NSMeasurement-Length.archive"])
        #expect(r.status == 0, "\(r)")
        #expect(r.out.hasPrefix("NSKeyedArchiver archive: "))
        for line in ["\"$class\" => \"NSMeasurement\"", "\"$class\" => \"NSUnitLength\"", "\"NS.value\" => 45", "\"NS.symbol\" => \"mi\""] {
            #expect(r.out.contains(line), "\(line)")
        }
    }

    /// An archive that does not decode is printed as stored, exit 0, with the reason on stderr.
    @Test(.enabled(if: ToolRunner.ours != nil, ToolRunner.oursMissing))
    func printOfADamagedArchiveShowsItAsStored() throws {
        let path = Self.corpus.appendingPathComponent("class-chain-loop.bplist").path
        let r = try ToolRunner.runOurs(["-p", path])
        #expect(r.status == 0, "\(r)")
        #expect(r.out.hasPrefix("{\n  \"$archiver\" => \"NSKeyedArchiver\"\n"), "\(r)")
        #expect(r.stderr.hasPrefix(path + ": not decoded as a keyed archive (UID 1: the class chain loops"), "\(r)")
        #expect(r.stderr.hasSuffix("; printed as stored\n"), "\(r)")
    }

    // MARK: In-process = binary, usage

    static let commandLines: [[String]] = [
        ["-unarchive", "xml1", "-o", "-", "array.bplist"],
        ["-unarchive", "json", "-r", "-o", "-", "dictionary.xml"],
        ["-unarchive", "swift", "-o", "-", "url-uuid-date.bplist"],
        ["-unarchive", "openstep", "-o", "-", "two-top-keys.xml", "array-cycle.bplist"],
        ["-p", "custom-cycle.xml"],
        ["-p", "class-chain-loop.bplist"],
        ["-archive", "xml1", "-o", "-", "array.bplist"],
        ["-archive", "binary1", "-o", "-", "dictionary.xml"],
        ["-archive", "json", "dictionary.xml"],
        ["-unarchive"],
        ["-archive"],
        ["-unarchive", "raw", "array.bplist"],
        ["-unarchive", "bogus", "array.bplist"],
    ]

    @Test(.enabled(if: ToolRunner.ours != nil, ToolRunner.oursMissing), arguments: commandLines)
    func inProcessGivesWhatTheBinaryGives(_ relativeArguments: [String]) throws {
        let arguments = relativeArguments.map { $0.contains(".") && !$0.hasPrefix("-") ? Self.corpus.appendingPathComponent($0).path : $0 }
        let here = PlutilCommandTests.inProcess(arguments)
        let binary = try ToolRunner.runOurs(arguments)
        #expect(here.status == binary.status, "\(arguments)")
        #expect(here.io.output == Array(binary.stdout), "\(arguments)")
        #expect(here.io.errorText == binary.stderr, "\(arguments)")
    }

    @Test func usageMarksTheArchiveVerbsAsExtensions() {
        let usage = PlutilCommand.usage("plutil")
        #expect(usage.contains("\n -unarchive fmt                (extension) "))
        #expect(usage.contains("\n -archive fmt                  (extension) "))
        #expect(usage.contains("(extension: an NSKeyedArchiver archive prints decoded"))
        #expect(PlutilCommandTests.inProcess(["-help"]).io.outputText == usage)
    }
}

import Foundation
import PlistKit
import Testing
import TestSupport
@testable import Preferences

/// `defaults read-archived DOMAIN KEY` (an extension): a preference holding an `NSKeyedArchiver` archive, printed
/// decoded. The domain files and the archives in them are written by Foundation (`PropertyListSerialization`,
/// `NSKeyedArchiver`), and the expected text is what Foundation's `NSKeyedUnarchiver` decodes, described as `defaults
/// read` describes values.
@Suite struct DefaultsReadArchivedTests {
    static let url = NSURL(string: "foo.xml", relativeTo: URL(string: "https://www.example.com/dir/"))!

    static func archive(_ root: Any) throws -> Data {
        try NSKeyedArchiver.archivedData(withRootObject: root, requiringSecureCoding: false)
    }

    /// Writes `values` as `domain`'s file with Foundation.
    static func writeDomain(_ values: NSDictionary, _ domain: String, in tool: DefaultsCommandTests.Tool) throws {
        let path = tool.dir.locations.path(domain: domain)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try PropertyListSerialization.data(fromPropertyList: values, format: .binary, options: 0).write(to: URL(fileURLWithPath: path))
    }

    @Test func printsAnArchivedURLAndDictionaryDecoded() throws {
        let t = DefaultsCommandTests.Tool()
        let dictionary: NSDictionary = ["arr": ["x", "y z", 3] as NSArray]
        let archivedDictionary = try Self.archive(dictionary)
        // The archive's own property list stored as a dictionary value (as some apps keep it) reads the same.
        let asDictionary = try PropertyListSerialization.propertyList(from: archivedDictionary, options: [], format: nil)
        try Self.writeDomain(["url": try Self.archive(Self.url), "dict": archivedDictionary, "inline": asDictionary], "com.example.archived", in: t)

        let url = t.run("read-archived", "com.example.archived", "url")
        #expect(url == (0, Self.url.absoluteString + "\n", ""))
        // Foundation's decoding of the same bytes, described as `read` describes a dictionary.
        let decoded = try #require(try NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(archivedDictionary) as? NSDictionary)
        #expect(decoded == dictionary)
        #expect(t.run("read-archived", "com.example.archived", "dict") == (0, decoded.description + "\n", ""))
        #expect(t.run("read-archived", "com.example.archived", "inline") == (0, decoded.description + "\n", ""))
        // `read` of the stored data is unchanged: the bytes.
        #expect(t.run("read", "com.example.archived", "url").out.hasPrefix("{length = "))
    }

    /// Objects of other classes keep their class name and fields (the keyed-archive README's plain-decoding rules).
    @Test func otherClassesKeepTheirNames() throws {
        let t = DefaultsCommandTests.Tool()
        try Self.writeDomain(["m": try Self.archive(NSMeasurement(doubleValue: 45, unit: UnitLength.miles))], "com.example.m", in: t)
        let r = t.run("read-archived", "com.example.m", "m")
        #expect(r.status == 0, "\(r.err)")
        #expect(r.out.contains("\"$class\" = NSMeasurement;") && r.out.contains("\"NS.value\" = 45;"), "\(r.out)")
    }

    @Test func errorsAreMessagesWithStatusOne() throws {
        let t = DefaultsCommandTests.Tool()
        let hostile = try Data(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Corpus/keyed-archives/array-cycle.bplist"))
        try Self.writeDomain(["text": "hello", "junk": Data([1, 2, 3]), "cycle": hostile], "com.example.bad", in: t)
        #expect(t.run("read-archived", "com.example.bad", "text")
            == (1, "", "The value of (com.example.bad, text) is not a keyed archive: the value is a string, not archived data\n"))
        let junk = t.run("read-archived", "com.example.bad", "junk")
        #expect(junk.status == 1 && junk.out.isEmpty && junk.err.hasPrefix("The value of (com.example.bad, junk) is not a keyed archive: "))
        let cycle = t.run("read-archived", "com.example.bad", "cycle")
        #expect(cycle.status == 1 && cycle.err.hasSuffix("UID 1 (NSArray) contains itself (at key path root.0.0)\n"), "\(cycle.err)")
        #expect(t.run("read-archived", "com.example.bad", "none")
            == (1, "", "The domain/default pair of (com.example.bad, none) does not exist\n"))
        #expect(t.run("read-archived", "com.example.bad") == (1, "", DefaultsCommand.usage))
        #expect(t.run("read-archived", "com.example.bad", "a", "b").status == 1)
    }

    @Test func usageMarksItAsAnExtension() {
        #expect(DefaultsCommand.usage.contains("\n  read-archived <domain> <key>         (extension) shows the NSKeyedArchiver archive at key, decoded\n"))
    }

    @Test func theBinaryPrintsTheSame() throws {
        let dir = TempDirectory("defaults-archived")
        let runner = ProcessRunner(directory: dir)
        let hex = try Self.archive(Self.url).map { String(format: "%02x", $0) }.joined()
        let w = try runner.run("defaults", ["write", "com.example.archived", "u", "-data", hex])
        #expect(w.status == 0, "\(w.stderr)")
        let r = try runner.run("defaults", ["read-archived", "com.example.archived", "u"])
        #expect(r.status == 0 && r.stdout == Self.url.absoluteString + "\n" && r.stderr.isEmpty, "\(r.stderr)")
        let bad = try runner.run("defaults", ["read-archived", "com.example.archived", "missing"])
        #expect(bad.status == 1 && bad.stderr == "The domain/default pair of (com.example.archived, missing) does not exist\n")
    }
}

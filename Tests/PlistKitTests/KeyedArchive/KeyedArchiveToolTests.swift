import Foundation
import Testing
@testable import PlistKit

/// The library side of the archive verbs, on archives Foundation writes.
@Suite struct KeyedArchiveToolTests {
    static let url = NSURL(string: "foo.xml", relativeTo: URL(string: "https://www.example.com")!)!

    @Test func unarchiveWritesThePlainDecoding() throws {
        let data = try NSKeyedArchiver.archivedData(withRootObject: NSArray(array: [Self.url, NSNumber(value: 3)]), requiringSecureCoding: false)
        let xml = try KeyedArchiveTool.unarchive(Array(data), to: .xml)
        #expect(try PropertyList.read(xml).value == ["https://www.example.com/foo.xml", 3])
        #expect(throws: PlistError.self) { try KeyedArchiveTool.unarchive(Array("not".utf8), to: .xml) }
    }

    @Test func archiveThenUnarchive() throws {
        let plist = try PropertyList.writeBytes(["a": [1, "b"]], format: .json)
        let archived = try KeyedArchiveTool.archive(plist, to: .binary)
        // Foundation reads what the verb writes.
        let back = try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSDictionary.self, NSArray.self, NSString.self, NSNumber.self], from: Data(archived))
        #expect((back as? NSDictionary)?.isEqual(NSDictionary(dictionary: ["a": NSArray(array: [1, "b"])])) == true)
        #expect(throws: PlistError.self) { try KeyedArchiveTool.archive(plist, to: .json) }
    }

    @Test func humanReadableOfAnArchive() throws {
        let data = try NSKeyedArchiver.archivedData(withRootObject: NSDictionary(dictionary: ["k": "v"]), requiringSecureCoding: false)
        let value = try PropertyList.read(data).value
        let text = try #require(try KeyedArchiveTool.humanReadable(value))
        #expect(text.hasPrefix("NSKeyedArchiver archive: 5 objects, root NSDictionary\n"))
        #expect(text.contains("\"k\" => \"v\""))
        #expect(try KeyedArchiveTool.humanReadable(["k": "v"]) == nil)
    }

    @Test func readArchivedPreference() throws {
        let data = try NSKeyedArchiver.archivedData(withRootObject: Self.url, requiringSecureCoding: false)
        #expect(try KeyedArchiveTool.unarchivedValue(.data(data)) == "https://www.example.com/foo.xml")
        #expect(throws: PlistError.self) { try KeyedArchiveTool.unarchivedValue("text") }
    }
}

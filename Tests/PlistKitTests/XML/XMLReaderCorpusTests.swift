import Foundation
import Testing
@testable import PlistKit

/// Foundation as a second oracle for the XML corpus: its reader must agree with each manifest entry, except on the
/// documented deviations listed here (each must still be a real difference, so the list cannot go stale).
@Suite struct XMLReaderCorpusTests {
    static let root = CorpusTests.root

    /// Valid files Foundation reads differently (or not at all), and why.
    static let valueDeviations: [String: String] = [
        "uid.plist": "UIDs have no public Foundation form, so the value cannot be bridged",
        "unicode-keys.plist": "Foundation on Linux merges the canonically equivalent keys é and e+U+0301",
        "utf16le.plist": "same document as unicode-keys.plist",
        "utf16be-no-bom.plist": "same document as unicode-keys.plist",
        "utf32le.plist": "same document as unicode-keys.plist",
        "attribute-with-gt.plist": "CF ends the tag at the first '>', reading the key '\">test' (CFPropertyList.c's hand-written tag scanner)",
        "base64-oddities.plist": "CF rejects the empty-element spelling <data/>; XML makes it equal to <data></data>",
    ]

    /// Invalid files Foundation accepts, and why we do not.
    static let acceptedByFoundation: [String: String] = [
        "text-after-plist.plist": "CF ignores anything after the root element",
        "two-top-level-elements.plist": "CF ignores anything after the root element",
    ]

    static func entries(_ section: String) throws -> [(String, JSONValue)] {
        let manifest = try JSONValue.parse(Data(contentsOf: root.appendingPathComponent(section).appendingPathComponent("manifest.json")))
        return (manifest["files"]?.array ?? []).compactMap { e in e["file"]?.string.map { ($0, e) } }
    }

    @Test func validFilesAgreeWithFoundation() throws {
        let entries = try Self.entries("xml")
        #expect(entries.count >= 20)
        for (file, entry) in entries {
            let bytes = try [UInt8](Data(contentsOf: Self.root.appendingPathComponent("xml").appendingPathComponent(file)))
            guard let typed = entry["value"] else { continue }
            let expected = try TypedJSON.decode(typed)
            let foundation = XMLReaderTesting.foundation(bytes)
            if Self.valueDeviations[file] != nil {
                #expect(foundation != expected, "\(file) is listed as a deviation but Foundation agrees")
            } else {
                #expect(foundation == expected, "\(file): Foundation read \(String(describing: foundation))")
            }
        }
    }

    @Test func invalidFilesAreRejectedByFoundation() throws {
        let entries = try Self.entries("invalid/xml")
        #expect(entries.count >= 25)
        for (file, _) in entries {
            let bytes = try [UInt8](Data(contentsOf: Self.root.appendingPathComponent("invalid/xml").appendingPathComponent(file)))
            let accepted = (try? PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)) != nil
            #expect(accepted == (Self.acceptedByFoundation[file] != nil), "\(file): Foundation accepted = \(accepted)")
        }
    }

    /// Every invalid file's error names a line and column (what `plutil -lint` prints).
    @Test func invalidFilesHaveLineAndColumn() throws {
        for (file, _) in try Self.entries("invalid/xml") {
            let bytes = try [UInt8](Data(contentsOf: Self.root.appendingPathComponent("invalid/xml").appendingPathComponent(file)))
            let e = try #require(XMLReaderTesting.error(bytes), "\(file) was accepted")
            #expect(e.line != nil && e.column != nil && e.offset != nil, "\(file): \(e)")
        }
    }
}

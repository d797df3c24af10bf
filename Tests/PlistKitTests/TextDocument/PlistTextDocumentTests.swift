import Foundation
import Testing
@testable import PlistKit

/// The preserving document: unedited documents write back their bytes and read to the plain reader's value; bad
/// input fails as the plain reader fails; edits of hand-written OpenStep and XML lay new text out like its
/// neighbours (expected texts written out by hand from the files' own layout).
@Suite struct PlistTextDocumentTests {
    @Test(.enabled(if: XcodeFixtures.available, XcodeFixtures.skipReason))
    func everyFixtureRoundTrips() throws {
        for name in XcodeFixtures.names {
            let bytes = try XcodeFixtures.bytes(name)
            let document = try PlistTextDocument(bytes)
            #expect(document.write() == bytes, "\(name)")
            #expect(document.value == (try PropertyList.read(bytes).value), "\(name)")
            #expect(document.layout == .xcodeProject, "\(name)")
            #expect(document.format == .openStep, "\(name)")
        }
    }

    static func text(_ s: String) -> [UInt8] { Array(s.utf8) }

    @Test(arguments: [
        "{\n\ta = \"unterminated;\n}\n",
        "{\n\ta = b; /* never closed\n}\n",
        "{\n\ta = (x, y;\n}\n",
        "{\n\ta = { b = c;\n",
        "{\n\ta = b\n}\n",
        "{\n<<<<<<< HEAD\n\ta = b;\n=======\n\ta = c;\n>>>>>>> other\n}\n",
        "<?xml version=\"1.0\"?>\n<plist version=\"1.0\"><dict><key>a</key></dict></plist>\n",
        "<?xml version=\"1.0\"?>\n<plist version=\"1.0\"><array><string>x</array></plist>\n",
    ])
    func badInputFailsAsThePlainReaderFails(_ source: String) throws {
        let bytes = Self.text(source)
        let plain = try #require(throws: PlistError.self) { try PropertyList.read(bytes) }
        #expect(throws: plain) { try PlistTextDocument(bytes) }
        #expect(plain.line != nil && plain.column != nil)
    }

    @Test func invalidUTF8AndUTF16FailAsThePlainReaderFails() throws {
        let bad = Self.text("{ a = \"") + [0xC3, 0x28] + Self.text("\"; }")
        let plain = try #require(throws: PlistError.self) { try PropertyList.read(bad) }
        #expect(throws: plain) { try PlistTextDocument(bad) }
        // UTF-16 with a BOM and an error inside.
        let utf16: [UInt8] = [0xFF, 0xFE] + Array("{ a = (b; }".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        let plain16 = try #require(throws: PlistError.self) { try PropertyList.read(utf16) }
        #expect(throws: plain16) { try PlistTextDocument(utf16) }
    }

    @Test func mergeConflictMarkersAreNamedWithTheirLine() throws {
        let bytes = Self.text("// !$*UTF8*$!\n{\n\tobjects = {\n<<<<<<< HEAD\n\t\tA = {isa = PBXGroup; };\n||||||| base\n=======\n\t\tB = {isa = PBXGroup; };\n>>>>>>> feature\n\t};\n}\n")
        let error = try #require(throws: PlistError.self) { try PlistTextDocument(bytes) }
        #expect(error.kind == .syntax && error.line == 4 && error.column == 1)
        #expect(error.message.contains("merge conflict") && error.message.contains("'|||||||' at line 6"))
        #expect(throws: error) { try PropertyList.read(bytes) }
    }

    @Test func nonXcodeLayoutsRoundTripAndReadLikeThePlainReader() throws {
        let sources: [[UInt8]] = [
            Self.text("{\r\n\tisa = PBXGroup;\r\n\tchildren = (\r\n\t\ta,\r\n\t);\r\n}\r\n"),  // CRLF
            [0xEF, 0xBB, 0xBF] + Self.text("{ a = b; }"),  // BOM, no final newline
            Self.text("{ isa = PBXSourcesBuildPhase; files = ( ); }"),  // minified
            Self.text("{key=value;list=(a,b,);'single'='q';}"),
            Self.text("\"a\" = \"b\";\n\"c\" = \"d\";\n"),  // strings
            [0xFE, 0xFF] + Array("{ a = b; }".utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }),  // UTF-16BE
        ]
        for bytes in sources {
            let doc = try PlistTextDocument(bytes)
            #expect(doc.write() == bytes)
            #expect(doc.value == (try PropertyList.read(bytes).value))
        }
    }

    @Test func editsOfHandWrittenOpenStep() throws {
        var doc = try PlistTextDocument(Self.text("{\n    alpha = one;\n    gamma = three;\n}\n"))
        try doc.insert("two", at: "beta")
        #expect(doc.bytes == Self.text("{\n    alpha = one;\n    beta = two;\n    gamma = three;\n}\n"))
        try doc.remove(at: "alpha")
        #expect(doc.bytes == Self.text("{\n    beta = two;\n    gamma = three;\n}\n"))
        try doc.renameKey(at: "gamma", to: "delta")
        #expect(doc.bytes == Self.text("{\n    beta = two;\n    delta = three;\n}\n"))
        try doc.replace(["x": "1"], at: "beta")
        #expect(doc.bytes == Self.text("{\n    beta = {\n        x = 1;\n    };\n    delta = three;\n}\n"))

        var line = try PlistTextDocument(Self.text("{a = 1; b = (x, y); c = 2;}"))
        try line.insert("z", at: "b.2")
        try line.insert("w", at: "b.0")
        try line.replace("3", at: "c")
        #expect(line.bytes == Self.text("{a = 1; b = (w, x, y, z); c = 3;}"))
        try line.insert(["k": "v"], at: "d")
        #expect(line.bytes == Self.text("{a = 1; b = (w, x, y, z); c = 3; d = {k = v; };}"))
        try line.remove(at: "b.3")
        try line.remove(at: "a")
        #expect(line.bytes == Self.text("{b = (w, x, y); c = 3; d = {k = v; };}"))

        // Comments and odd spacing around an untouched entry stay; `key;` shorthand gets a value.
        var commented = try PlistTextDocument(Self.text("// head\n{\n\ta = x; /* note */\n\tb;\n\tc=y;\n}\n"))
        try commented.replace("new value", at: "b")
        try commented.replace("z", at: "c")
        #expect(commented.bytes == Self.text("// head\n{\n\ta = x; /* note */\n\tb = \"new value\";\n\tc=z;\n}\n"))
        // CRLF lines stay CRLF.
        var crlf = try PlistTextDocument(Self.text("{\r\n\ta = (\r\n\t\tx,\r\n\t);\r\n}\r\n"))
        try crlf.insert("y", at: "a.1")
        #expect(crlf.bytes == Self.text("{\r\n\ta = (\r\n\t\tx,\r\n\t\ty,\r\n\t);\r\n}\r\n"))
    }

    @Test func editsOfXMLWithCommentsCDATAAndCharacterReferences() throws {
        let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict>\n"
        var doc = try PlistTextDocument(Self.text(head + "\t<!-- c -->\n\t<key>A&#x42;</key>\n\t<string><![CDATA[<x>]]></string>\n\t<key>list</key>\n\t<array/>\n</dict>\n</plist>\n"))
        #expect(doc.value["AB"] == "<x>")
        try doc.insert("one", at: "list.0")
        try doc.replace(.integer(7), at: "AB")
        try doc.insert(.dictionary([:]), at: "empty")
        #expect(doc.bytes == Self.text(head + "\t<!-- c -->\n\t<key>A&#x42;</key>\n\t<integer>7</integer>\n\t<key>empty</key>\n\t<dict/>\n\t<key>list</key>\n\t<array>\n\t\t<string>one</string>\n\t</array>\n</dict>\n</plist>\n"))
        try doc.remove(at: "list")
        #expect(doc.bytes == Self.text(head + "\t<!-- c -->\n\t<key>A&#x42;</key>\n\t<integer>7</integer>\n\t<key>empty</key>\n\t<dict/>\n</dict>\n</plist>\n"))
    }

    /// A new dictionary in XML text gets its keys in Core Foundation's order, as Foundation's writer (run here)
    /// writes the same dictionary — and as a whole-file rewrite would.
    @Test func aNewXMLDictionaryHasItsKeysInFoundationsOrder() throws {
        let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict>\n"
        var doc = try PlistTextDocument(Self.text(head + "\t<key>a</key>\n\t<string>x</string>\n</dict>\n</plist>\n"))
        let inserted: PlistDictionary = ["z": "1", "isa": "PBXBuildFile", "fileRef": "F", "b": "2"]
        try doc.insert(.dictionary(inserted), at: "n")
        let foundation = try PropertyListSerialization.data(
            fromPropertyList: ["a": "x", "n": ["z": "1", "isa": "PBXBuildFile", "fileRef": "F", "b": "2"]], format: .xml, options: 0)
        func keys(_ bytes: [UInt8]) -> [String] {
            String(decoding: bytes, as: UTF8.self).components(separatedBy: "<key>").dropFirst().map { $0.components(separatedBy: "</key>")[0] }
        }
        #expect(keys(doc.bytes) == keys(Array(foundation)))
        #expect(keys(doc.bytes) == ["a", "n", "b", "fileRef", "isa", "z"])
        #expect(try PropertyList.read(doc.bytes).value == doc.value)
    }

    @Test func editsThatCannotApplyLeaveTheDocumentAlone() throws {
        let source = Self.text("{\n\ta = (x);\n\tb = c;\n}\n")
        var doc = try PlistTextDocument(source)
        #expect(throws: PlistError.self) { try doc.insert("y", at: "a.5") }
        #expect(throws: PlistError.self) { try doc.insert("y", at: "b") }
        #expect(throws: PlistError.self) { try doc.remove(at: "nope") }
        #expect(throws: PlistError.self) { try doc.renameKey(at: "a", to: "b") }
        // OpenStep holds no integers: the plain writer's error, with the text unchanged.
        let error = try #require(throws: PlistError.self) { try doc.replace(.integer(5), at: "b") }
        #expect(error.kind == .unrepresentable)
        #expect(doc.bytes == source)
        // A value set to itself leaves the bytes alone.
        try doc.replace("c", at: "b")
        try doc.replace(["x"], at: "a")
        #expect(doc.bytes == source)
        // Edits of UTF-16 text are refused (it still writes back unchanged).
        var wide = try PlistTextDocument([0xFF, 0xFE] + Array("{ a = b; }".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }))
        #expect(throws: PlistError.self) { try wide.replace("c", at: "a") }
    }
}

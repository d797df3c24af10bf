import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// Character encodings: UTF-8, UTF-16 and UTF-32 by byte-order mark or `encoding=`, and invalid input.
@Suite struct XMLReaderEncodingTests {
    typealias T = XMLReaderTesting

    static let expected: PlistValue = ["é": "naïve 😀 ～ \u{E000}", "e\u{301}": [1, true]]

    static func document(encoding: String) -> String {
        """
        <?xml version="1.0" encoding="\(encoding)"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>é</key>
        \t<string>naïve 😀 ～ \u{E000}</string>
        \t<key>e\u{301}</key>
        \t<array><integer>1</integer><true/></array>
        </dict>
        </plist>

        """
    }

    static func encode(_ s: String, _ encoding: String.Encoding, bom: [UInt8]) -> [UInt8] {
        bom + Array(s.data(using: encoding) ?? Data())
    }

    @Test(arguments: [
        ("UTF-8", String.Encoding.utf8, [UInt8]()),
        ("UTF-8", .utf8, [0xEF, 0xBB, 0xBF]),
        ("UTF-16", .utf16LittleEndian, [0xFF, 0xFE]),
        ("UTF-16", .utf16BigEndian, [0xFE, 0xFF]),
        ("UTF-16LE", .utf16LittleEndian, []),
        ("UTF-16BE", .utf16BigEndian, []),
        ("UTF-32", .utf32LittleEndian, [0xFF, 0xFE, 0x00, 0x00]),
        ("UTF-32", .utf32BigEndian, [0x00, 0x00, 0xFE, 0xFF]),
    ])
    func unicodeEncodings(_ name: String, _ encoding: String.Encoding, _ bom: [UInt8]) throws {
        let bytes = Self.encode(Self.document(encoding: name), encoding, bom: bom)
        #expect(try T.read(bytes) == Self.expected, "\(name) BOM \(bom)")
        let (value, format) = try PropertyList.read(bytes)
        #expect(format == .xml)
        #expect(value == Self.expected)
        // Foundation reads the same document (its dictionary merges the two é keys on Linux, so compare one entry).
        if let f = T.foundation(bytes) {
            #expect(f["é"] == Self.expected["é"] || f["e\u{301}"] == Self.expected["é"] || f.dictionaryValue?.count == 1)
        }
    }

    /// Errors in a UTF-16 document are positioned in the caller's bytes: offset in UTF-16 bytes, line and column in
    /// characters.
    @Test func errorOffsetsInUTF16MapBackToTheInput() throws {
        let text = "<plist>\n<array>\n  <string>😀</string><integer>1 </integer>\n</array>\n</plist>\n"
        let bytes = Self.encode(text, .utf16LittleEndian, bom: [0xFF, 0xFE])
        let e = try #require(T.error(bytes))
        #expect(e.kind == .invalidValue)
        #expect(e.line == 3 && e.column == 21, "\(e)")
        // "<plist>\n<array>\n  <string>😀</string>" is 37 UTF-16 units (the emoji takes two).
        #expect(e.offset == 2 + 2 * 37, "\(e)")
        #expect(e.keyPath == KeyPath("1"))
    }

    @Test func shiftJISConversionErrorIsAnEncodingError() throws {
        let bytes = Array("<?xml version=\"1.0\" encoding=\"Shift_JIS\"?><plist><string>".utf8) + [0x81, 0x0A, 0xFF, 0xFF]
            + Array("</string></plist>".utf8)
        #expect(T.error(bytes)?.kind == .encoding)
    }

    @Test func latin1ByDeclaration() throws {
        var bytes = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><plist><string>caf".utf8)
        bytes += [0xE9]
        bytes += Array("</string></plist>".utf8)
        #expect(try T.read(bytes) == "café")
        #expect(T.foundation(bytes) == "café")
    }

    /// A document declared ASCII holding bytes ≥ 0x80 (UTF-8 text under a wrong declaration) reads as Foundation
    /// reads it: each such byte as the character of the same value. (It was an error, and a misleading one: libxml2's
    /// ASCII decoder reported a premature end of data.)
    @Test func highBytesUnderAnASCIIDeclarationReadAsFoundationReadsThem() throws {
        for name in ["US-ASCII", "ASCII", "us-ascii"] {
            let bytes = Array("<?xml version=\"1.0\" encoding=\"\(name)\"?><plist><string>café</string></plist>".utf8)
            let foundation = try #require(T.foundation(bytes), "Foundation could not read the \(name) document")
            #expect(try T.read(bytes) == foundation, "\(name)")
            #expect(foundation == "caf\u{C3}\u{A9}", "\(name)")
            // With or without such a byte, CR LF and control characters in text read as Foundation reads them.
            for text in ["x\r\ny", "a\u{01}b", "x\r\ny é"] {
                let doc = Array("<?xml version=\"1.0\" encoding=\"\(name)\"?><plist><string>\(text)</string></plist>".utf8)
                let expected = try #require(T.foundation(doc), "Foundation could not read \(text.debugDescription)")
                #expect(try T.read(doc) == expected, "\(name) \(text.debugDescription)")
            }
        }
    }

    /// Found by the foundation fuzzer (Corpus/regressions/xml): a document declaring UTF-7 (or any legacy encoding)
    /// went through libxml2's converter and XML end-of-line handling, so its CRs became LF where Foundation keeps
    /// them. Such documents are now converted with iconv first and read like UTF-8 ones.
    @Test func legacyEncodingsKeepCarriageReturnsAndControlsAsFoundationDoes() throws {
        let cases: [(String, [UInt8])] = [
            ("UTF-7", Array("line one\r\nline two\rthree +AOk-".utf8)),
            ("ISO-8859-1", Array("caf".utf8) + [0xE9, 0x0D, 0x0A, 0x0D, 0x01, 0x41]),
            ("windows-1252", [0x80, 0x20, 0x0D, 0x0A, 0x93, 0x71, 0x94]),
            ("ISO-8859-15", [0xA4, 0x0D]),
            // Spellings iconv does not know but Core Foundation matches loosely (and plistlib and libplist accept).
            ("Latin-1", Array("caf".utf8) + [0xE9, 0x0D]),
            ("ISO-8859-1:1987", Array("caf".utf8) + [0xE9, 0x0D]),
            (" windows-1252", [0x80, 0x0D]),
        ]
        for (encoding, text) in cases {
            let doc = Array("<?xml version=\"1.0\" encoding=\"\(encoding)\"?>\r\n<plist version=\"1.0\">\r\n<array>\r\n\t<string>".utf8)
                + text + Array("</string>\r\n</array>\r\n</plist>\r\n".utf8)
            let foundation = try #require(T.foundation(doc), "Foundation could not read the \(encoding) document")
            #expect(try T.read(doc) == foundation, "\(encoding)")
            #expect(foundation.arrayValue?.first?.stringValue?.unicodeScalars.contains("\r") == true, "\(encoding)")
        }
    }

    @Test func legacyEncodingErrorsPointIntoTheCallersBytes() throws {
        // Two two-byte characters in UTF-8 before the error: the offset is still the original one.
        var doc = Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<plist><dict><key>caf".utf8)
        doc += [0xE9, 0xE9]
        doc += Array("</key><strin>a</string></dict></plist>".utf8)
        let e = try #require(T.error(doc))
        #expect(e.kind == .syntax)
        #expect(e.offset == 73 && e.line == 2 && e.column == 30, "\(e)")
        let unknown = try #require(T.error("<?xml version=\"1.0\" encoding=\"no-such-encoding\"?><plist/>"))
        #expect(unknown.kind == .encoding && unknown.message.contains("no-such-encoding"), "\(unknown)")
        // A byte sequence the declared encoding does not have.
        let bad = Array("<?xml version=\"1.0\" encoding=\"Shift_JIS\"?><plist><string>".utf8) + [0x81] + Array("</string></plist>".utf8)
        let e2 = try #require(T.error(bad))
        #expect(e2.kind == .encoding && e2.offset == 57, "\(e2)")
    }

    @Test func invalidUTF8GivesItsOffset() throws {
        let prefix = Array("<plist>\n<dict>\n\t<key>k</key>\n\t<string>ab".utf8)
        for bad in [[0xFF], [0xC3, 0x28], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xC0, 0xAF], [0xF4, 0x90, 0x80, 0x80]] as [[UInt8]] {
            let bytes = prefix + bad + Array("</string>\n</dict>\n</plist>".utf8)
            let e = try #require(T.error(bytes))
            #expect(e.kind == .encoding, "\(bad): \(e)")
            #expect(e.offset == prefix.count, "\(bad): \(e)")
            #expect(e.line == 4 && e.column == 12, "\(bad): \(e)")
        }
        // In a key, an attribute and the prolog too.
        for bytes in [Array("<plist><dict><key>".utf8) + [0xFE] + Array("</key><true/></dict></plist>".utf8),
                      Array("<plist a=\"".utf8) + [0x80] + Array("\"><true/></plist>".utf8)] {
            #expect(T.error(bytes)?.kind == .encoding)
        }
    }

    @Test func loneSurrogateInUTF16() throws {
        var bytes: [UInt8] = [0xFF, 0xFE]
        for unit in Array("<plist><string>a".utf16) + [0xD800] + Array("</string></plist>".utf16) {
            bytes += [UInt8(unit & 0xFF), UInt8(unit >> 8)]
        }
        let e = try #require(T.error(bytes))
        #expect(e.kind == .encoding, "\(e)")
        #expect(e.offset == 2 + 2 * 16, "\(e)")
        #expect(e.line == 1 && e.column == 17, "\(e)")
    }

    @Test func unknownEncodingName() throws {
        let e = try #require(T.error("<?xml version=\"1.0\" encoding=\"X-NO-SUCH-CHARSET\"?><plist><true/></plist>"))
        #expect(e.kind == .encoding, "\(e)")
    }

    /// CR LF and a lone CR in text are kept, as Core Foundation keeps them (and writes them raw), so our own XML
    /// output reads back unchanged. Foundation's reader, run here, is the oracle.
    @Test func lineEndsInTextAreKeptAsCoreFoundationKeepsThem() throws {
        let doc = "<plist><dict><key>k\r</key><string>a\r\nb\rc</string></dict></plist>"
        let foundation = try PropertyListSerialization.propertyList(from: Data(doc.utf8), format: nil) as? [String: String]
        #expect(foundation == ["k\r": "a\r\nb\rc"])
        #expect(try T.read(doc) == ["k\r": "a\r\nb\rc"])
        #expect(try T.read("<plist><string>a&#13;&#10;b</string></plist>") == "a\r\nb")
        // Our writer emits CR raw, as CF does: its output must read back unchanged (found by Fuzz/run roundtrip).
        let value: PlistValue = ["k\r\n": ["\r", "x\ry", .data(Data([13, 10]))]]
        #expect(try PropertyList.read(PropertyList.write(value, format: .xml)).value == value)
        // CR LF line ends between elements and inside tags are white space.
        #expect(try T.read("<?xml version=\"1.0\"?>\r\n<plist\r\nversion=\"1.0\">\r\n<dict>\r\n\t<key>x</key>\r\n\t<true/>\r\n</dict>\r\n</plist>\r\n") == ["x": true])
    }

    /// U+FFFE and U+FFFF are not XML characters (not even as references), but CF writes them raw and reads them
    /// back, so they are read in text, and our own output with them reads back (found by Fuzz/run roundtrip).
    /// Foundation's reader, run here, is the oracle.
    @Test func noncharactersInTextAreReadAsCoreFoundationReadsThem() throws {
        let doc = "<plist><dict><key>k\u{FFFE}</key><string>a\u{FFFF}b</string></dict></plist>"
        let foundation = try PropertyListSerialization.propertyList(from: Data(doc.utf8), format: nil) as? [String: String]
        #expect(foundation == ["k\u{FFFE}": "a\u{FFFF}b"])
        #expect(try T.read(doc) == ["k\u{FFFE}": "a\u{FFFF}b"])
        let value: PlistValue = ["\u{FFFF}": ["\u{FFFE}\u{FFFF}", "x\u{1}\r\u{FFFF}"]]
        #expect(try PropertyList.read(PropertyList.write(value, format: .xml)).value == value)
        // An error after a noncharacter still reports the original byte offset (the stand-in is one byte longer).
        let bad = Array("<plist><string>\u{FFFF}</string><bogus/></plist>".utf8)
        let bogus = try #require((0..<bad.count).first { bad[$0...].starts(with: Array("<bogus".utf8)) })
        let e = try #require(throws: PlistError.self) { try PropertyList.read(bad) }
        #expect(e.offset == bogus, "\(e)")
    }

    /// Raw C0 control characters are not XML characters, but CF writes them unescaped inside strings and reads them
    /// back (libplist too; Python rejects them). They are read in element text, and still rejected in markup.
    @Test func rawControlCharactersInText() throws {
        let cases: [(String, PlistValue)] = [
            ("<string>a\u{1}b\u{1B}c\u{7F}</string>", "a\u{1}b\u{1B}c\u{7F}"),
            ("<dict><key>k\u{2}</key><string>\u{1F}</string></dict>", ["k\u{2}": "\u{1F}"]),
            ("<data>QU\u{1}JD</data>", .data(Data("ABC".utf8))),  // CF skips non-alphabet ASCII in base64
            ("<integer>\u{1}5</integer>", 5),  // CF counts bytes below 0x21 as white space before a number
        ]
        for (body, expected) in cases {
            let doc = T.plist(body)
            #expect(try T.read(doc) == expected, "\(body)")
            #expect(T.foundation(doc) == expected, "Foundation: \(body)")
        }
        #expect(try T.read(T.plist("<string>nul\u{0}here</string>")) == "nul\u{0}here")
        // In markup they remain errors.
        #expect(T.error("<plist><str\u{1}ing>a</string></plist>")?.kind == .syntax)
        // A document that already holds the private-use stand-ins is read strictly.
        #expect(try T.read("<plist><string>\u{10FF01}</string></plist>") == "\u{10FF01}")
        #expect(T.error("<plist><string>\u{10FF01}\u{1}</string></plist>")?.kind == .syntax)
        // So are they in a document in a legacy encoding (converted first), as Foundation reads them.
        let latin1 = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><plist><string>\u{1}</string></plist>"
        #expect(try T.read(latin1) == "\u{1}")
        #expect(T.foundation(latin1) == "\u{1}")
        // Error offsets after a control character still point into the caller's bytes.
        let doc = "<plist><array><string>\u{1}\u{1}</string><integer>x</integer></array></plist>"
        let e = try #require(T.error(doc))
        #expect(e.offset == 33 && e.line == 1 && e.column == 34, "\(e)")
    }

    @Test func controlCharactersAgreeWithLibplist() throws {
        guard let plistutil = ExternalTool.find("plistutil") else {
            Issue.record("plistutil (libplist-utils) is missing: cannot cross-check")
            return
        }
        let doc = T.plist("<dict><key>bell\u{7}</key><string>esc\u{1B}[0m\u{1}</string></dict>")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("xmlreader-ctl-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.plist"), output = dir.appendingPathComponent("out.plist")
        try Data(doc.utf8).write(to: input)
        let r = try ExternalTool.run(plistutil, ["-i", input.path, "-f", "bin", "-o", output.path])
        #expect(r.status == 0)
        // libplist's binary output, read back by Foundation, is the oracle.
        let viaLibplist = T.foundation(try [UInt8](Data(contentsOf: output)))
        #expect(viaLibplist == ["bell\u{7}": "esc\u{1B}[0m\u{1}"])
        #expect(try T.read(doc) == viaLibplist)
    }
}

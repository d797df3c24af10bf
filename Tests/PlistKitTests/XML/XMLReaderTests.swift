import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// Shared helpers for the XML reader tests.
enum XMLReaderTesting {
    static func read(_ text: String, _ options: PlistReadOptions = PlistReadOptions()) throws -> PlistValue {
        try read(Array(text.utf8), options)
    }

    static func read(_ bytes: [UInt8], _ options: PlistReadOptions = PlistReadOptions()) throws -> PlistValue {
        try bytes.withUnsafeBytes { try XMLReader.read($0, options: options) }
    }

    /// The error our reader throws for `text`, or nil when it accepts it.
    static func error(_ text: String, _ options: PlistReadOptions = PlistReadOptions()) -> PlistError? {
        error(Array(text.utf8), options)
    }

    static func error(_ bytes: [UInt8], _ options: PlistReadOptions = PlistReadOptions()) -> PlistError? {
        do {
            _ = try read(bytes, options)
            return nil
        } catch let e as PlistError {
            return e
        } catch {
            Issue.record("unexpected error type \(error)")
            return nil
        }
    }

    /// Foundation's reading of `bytes` (the oracle): nil when `PropertyListSerialization` rejects it.
    static func foundation(_ bytes: [UInt8]) -> PlistValue? {
        guard let any = try? PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil) else {
            return nil
        }
        return try? FoundationBridge.fromFoundation(any)
    }

    static func foundation(_ text: String) -> PlistValue? { foundation(Array(text.utf8)) }

    /// A document with `body` as the content of `<plist>`.
    static func plist(_ body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        \(body)
        </plist>

        """
    }
}

@Suite struct XMLReaderValueTests {
    typealias T = XMLReaderTesting

    /// Integer spellings CF's XML reader (`CFPropertyList.c`, `parseIntegerTag`) accepts or refuses; each is checked against Foundation, which must agree on acceptance.
    @Test(arguments: [
        "0", "1", "-1", "+7", "  42", "\t\n42", "- 5", "+ \t5", "0x1F", "0XfF", "-0x10", "007", "0009", "000", "-0",
        "9223372036854775807", "9223372036854775808", "18446744073709551615", "-9223372036854775808",
        "0xFFFFFFFFFFFFFFFF", "0x0", "0x00",
    ])
    func integersAcceptedLikeFoundation(_ text: String) throws {
        let doc = T.plist("<integer>\(text)</integer>")
        let expected = try #require(T.foundation(doc), "Foundation rejects \(text)")
        #expect(try T.read(doc) == expected)
    }

    @Test func integerValuesFromTheSpec() throws {
        #expect(try T.read("<integer>007</integer>") == .integer(7))  // decimal, not octal
        #expect(try T.read("<integer>0x1F</integer>") == .integer(31))
        #expect(try T.read("<integer> - 5</integer>") == .integer(-5))
        #expect(try T.read("<integer>18446744073709551615</integer>") == .integer(PlistInteger(UInt64.max)))
        #expect(try T.read("<integer>-9223372036854775808</integer>") == .integer(PlistInteger(Int64.min)))
    }

    @Test(arguments: [
        ("42 ", PlistError.Kind.invalidValue), ("4 2", .invalidValue), ("", .invalidValue), ("  ", .invalidValue),
        ("0x", .invalidValue), ("12a", .invalidValue), ("1.0", .invalidValue), ("--1", .invalidValue),
        ("18446744073709551616", .integerOutOfRange), ("-9223372036854775809", .integerOutOfRange),
        ("0x10000000000000000", .integerOutOfRange), ("99999999999999999999999", .integerOutOfRange),
    ])
    func integersRejected(_ text: String, _ kind: PlistError.Kind) throws {
        let doc = T.plist("<integer>\(text)</integer>")
        #expect(T.foundation(doc) == nil, "Foundation accepts \(text)")
        let e = try #require(T.error(doc))
        #expect(e.kind == kind, "\(e)")
        #expect(e.line == 4 && e.column == 1, "\(e)")
    }

    @Test(arguments: [
        "1.5", "-0.25", "1e10", "1E-5", ".5", "5.", "+3", "  2.5", "0", "-0.0", "1e400", "-1e400", "4.9e-324",
        "nan", "NaN", "NAN", "inf", "+inf", "-inf", "Infinity", "+INFINITY", "-infinity", "0.10000000000000001",
    ])
    func realsAcceptedLikeFoundation(_ text: String) throws {
        let doc = T.plist("<real>\(text)</real>")
        let expected = try #require(T.foundation(doc), "Foundation rejects \(text)")
        let ours = try T.read(doc)
        if case .real(let f) = expected, f.value.isNaN {
            #expect(ours.realValue?.value.isNaN == true)
        } else {
            #expect(ours == expected, "\(text)")
        }
    }

    @Test(arguments: ["1.5 ", "0x10", "1,5", "abc", "", "1e", "nan ", " nan", "in", "1.5.5", "--1"])
    func realsRejected(_ text: String) throws {
        let doc = T.plist("<real>\(text)</real>")
        #expect(T.foundation(doc) == nil, "Foundation accepts \(text)")
        let e = try #require(T.error(doc))
        #expect(e.kind == .invalidValue, "\(e)")
    }

    /// Date normalisation (`PlistDateText.date`) compared with Foundation's reader on out-of-range fields.
    @Test(arguments: [
        "2024-02-01T20:43:14Z", "2001-01-01T00:00:00Z", "1970-01-01T00:00:00Z", "2024-02-30T25:61:61Z",
        "2024-13-01T00:00:00Z", "2024-00-10T00:00:00Z", "2024-01-00T00:00:00Z", "2023-12-31T24:00:00Z",
        "2024-99-99T99:99:99Z", "2000-02-29T12:00:00Z", "1900-02-29T00:00:00Z", "0001-01-01T00:00:00Z",
        "0000-01-01T00:00:00Z", "-0001-12-31T00:00:00Z", "1582-10-10T00:00:00Z", "9999-12-31T23:59:59Z",
        "12345-06-07T08:09:10Z", "24-01-01T00:00:00Z", "2023-14-05T00:00:00Z", "2024-15-05T00:00:00Z",
        "2024-16-05T00:00:00Z", "2024-13-05T00:00:00Z", "2023-00-00T00:00:00Z", "-0004-03-01T00:00:00Z",
        "-0100-03-01T00:00:00Z", "-12345-01-01T00:00:00Z", "--01-01T00:00:00Z",
    ])
    func datesLikeFoundation(_ text: String) throws {
        let doc = T.plist("<date>\(text)</date>")
        let expected = try #require(T.foundation(doc), "Foundation rejects \(text)")
        #expect(try T.read(doc) == expected, "\(text)")
    }

    @Test(arguments: [
        "2024-02-01T20:43:14.5Z", "2024-02-01T20:43:14", "2024-02-01T20:43:14+00:00", "2024-02-01 20:43:14Z",
        " 2024-02-01T20:43:14Z", "2024-02-01T20:43:14Z ", "2024-2-01T20:43:14Z", "", "2024-02-01T20:43Z",
        "-01-01T00:00:00Z", "2024-02-01t20:43:14Z", "2024-02-01T20:43:14z",
    ])
    func datesRejected(_ text: String) throws {
        let doc = T.plist("<date>\(text)</date>")
        #expect(T.foundation(doc) == nil, "Foundation accepts \(text)")
        #expect(T.error(doc)?.kind == .invalidValue)
    }

    @Test(arguments: [
        "AAEC", "AA!!BB==", "AAB", "AA==", "AAA=", "  QUJD\n  REVG\n", "QU JD", "QUJD====", "=QUJD", "A=B=",
        "////", "Zm9v\tYmFy", "",
    ])
    func base64LikeFoundation(_ text: String) throws {
        let doc = T.plist("<data>\(text)</data>")
        let expected = try #require(T.foundation(doc), "Foundation rejects \(text)")
        #expect(try T.read(doc) == expected, "\(text)")
    }

    @Test func base64Rules() throws {
        #expect(try T.read("<data>AA!!BB==</data>") == .data(Data([0x00, 0x00, 0x41])))
        #expect(try T.read("<data>AAB</data>") == .data(Data()))
        #expect(try T.read("<data/>") == .data(Data()))  // XML: same as <data></data>
        let e = try #require(T.error(T.plist("<data>QUJD\u{E9}</data>")))
        #expect(e.kind == .invalidValue)
        #expect(e.line == 4)
    }

    @Test func booleans() throws {
        #expect(try T.read("<true/>") == .bool(true))
        #expect(try T.read("<false></false>") == .bool(false))
        for doc in ["<true>x</true>", "<true> </true>", "<false>0</false>"] {
            #expect(T.foundation(T.plist(doc)) == nil)
            #expect(T.error(T.plist(doc))?.kind == .invalidValue, "\(doc)")
        }
    }

    @Test func stringsEntitiesCDATAAndComments() throws {
        let cases: [(String, String)] = [
            ("<string>a &lt;b&gt; &amp; &quot;c&quot; &apos;d&apos;</string>", "a <b> & \"c\" 'd'"),
            ("<string>&#65;&#x42;&#128664;</string>", "AB\u{1F698}"),
            ("<string><![CDATA[<not> & markup]]></string>", "<not> & markup"),
            ("<string/>", ""),
            ("<string>  spaced\ttext\n</string>", "  spaced\ttext\n"),
            ("<string>é😀～</string>", "é😀～"),
        ]
        for (body, expected) in cases {
            let doc = T.plist(body)
            #expect(try T.read(doc) == .string(expected), "\(body)")
            #expect(T.foundation(doc) == .string(expected), "Foundation: \(body)")
        }
    }

    /// XML allows comments and processing instructions inside text; CF rejects them there, we follow XML (as Python
    /// does): the text around them is joined.
    @Test func commentsAndProcessingInstructionsInsideText() throws {
        #expect(try T.read(T.plist("<string>a<!-- hidden -->b</string>")) == "ab")
        #expect(try T.read(T.plist("<string>x<?pi ignored?>y</string>")) == "xy")
        #expect(try T.read(T.plist("<integer>1<!-- c -->2</integer>")) == 12)
    }

    /// `<key>` where a value belongs (the root, an array element, a dictionary's value) is a string, as CF reads it
    /// (Foundation, which runs CF's parser, is the oracle); where a key belongs it is still a key.
    @Test func keyWhereAValueBelongsIsAString() throws {
        let docs: [(String, PlistValue)] = [
            ("<plist>\n  <key>k</key>\n</plist>", "k"),
            ("<plist><array><key>k</key><key/><string>s</string></array></plist>", ["k", "", "s"]),
            ("<plist><dict><key>a</key><key>b</key><key>c</key><array><key>d</key></array></dict></plist>",
             ["a": "b", "c": ["d"]]),
        ]
        for (doc, expected) in docs {
            #expect(try T.read(doc) == expected, "\(doc)")
            #expect(T.foundation(doc) == expected, "Foundation reads \(doc) as \(String(describing: T.foundation(doc)))")
        }
        // A key with no value is still missing one.
        let e = try #require(T.error("<plist><dict><key>a</key><key>b</key><key>c</key></dict></plist>"))
        #expect(e.kind == .syntax && e.keyPath == KeyPath("c"), "\(e)")
    }

    @Test func keysCompareByExactScalars() throws {
        let doc = T.plist("<dict><key>\u{E9}</key><integer>1</integer><key>e\u{301}</key><integer>2</integer></dict>")
        let d = try #require(try T.read(doc).dictionaryValue)
        #expect(d.count == 2)
        #expect(d["\u{E9}"] == .integer(1))
        #expect(d["e\u{301}"] == .integer(2))
        // (Foundation on Linux bridges keys to Swift `String`, which merges canonically equivalent keys, so it is
        // no oracle here; the expectation comes from the design rule "keys compare by exact scalars".)
    }

    @Test func uidDictionaries() throws {
        #expect(try T.read("<dict><key>CF$UID</key><integer>7</integer></dict>") == .uid(UID(7)))
        // Not a UID: another key beside it, a non-integer, a negative number.
        let two = try T.read("<dict><key>CF$UID</key><integer>7</integer><key>x</key><true/></dict>")
        #expect(two.dictionaryValue?.count == 2)
        #expect(try T.read("<dict><key>CF$UID</key><string>7</string></dict>").dictionaryValue != nil)
        #expect(try T.read("<dict><key>CF$UID</key><integer>-1</integer></dict>").dictionaryValue != nil)
    }

    @Test func duplicateKeyPolicies() throws {
        let doc = T.plist("<dict><key>a</key><integer>1</integer><key>b</key><integer>2</integer><key>a</key><integer>3</integer></dict>")
        #expect(try T.read(doc) == ["a": 3, "b": 2])
        #expect(T.foundation(doc) == ["a": 3, "b": 2])  // Foundation: last wins too
        var options = PlistReadOptions()
        options.duplicateKeys = .firstWins
        #expect(try T.read(doc, options) == ["a": 1, "b": 2])
        options.duplicateKeys = .reject
        let e = try #require(T.error(doc, options))
        #expect(e.kind == .duplicateKey)
        #expect(e.line == 4)
        #expect(e.keyPath == KeyPath("a"))
        // Nested, and in a dictionary large enough for a key index: the path ends with the repeated key.
        let many = (0..<40).map { "<key>k\($0)</key><true/>" }.joined()
        let nested = T.plist("<array><string>x</string><dict><key>inner</key><dict>\(many)<key>k7</key><false/></dict></dict></array>")
        let e2 = try #require(T.error(nested, options))
        #expect(e2.kind == .duplicateKey)
        #expect(e2.keyPath == KeyPath("1.inner.k7"))
        options.duplicateKeys = .lastWins
        #expect(try T.read(nested, options).arrayValue?[1].dictionaryValue?["inner"]?.dictionaryValue?["k7"] == .bool(false))
    }

    @Test func emptyContainersAndBareRoot() throws {
        #expect(try T.read(T.plist("<array/>")) == .array([]))
        #expect(try T.read(T.plist("<dict></dict>")) == .dictionary(PlistDictionary()))
        #expect(try T.read("<array><string>bare</string></array>") == ["bare"])
        #expect(T.foundation("<array><string>bare</string></array>") == ["bare"])
    }
}

@Suite struct XMLReaderStructureTests {
    typealias T = XMLReaderTesting

    @Test func rootCount() throws {
        let two = T.plist("<string>a</string>\n<string>b</string>")
        #expect(T.foundation(two) == nil)
        let e = try #require(T.error(two))
        #expect(e.kind == .rootCount)
        #expect(e.line == 5 && e.column == 1, "\(e)")
        #expect(T.error("<plist></plist>")?.kind == .rootCount)
        #expect(T.error("<plist/>")?.kind == .rootCount)
        #expect(T.error("<string>a</string><string>b</string>")?.kind == .rootCount)
        #expect(T.error("<?xml version=\"1.0\"?>\n<!-- only a comment -->\n")?.kind == .rootCount)
    }

    /// Text inside `<true/>` or `<false/>` (CF's reader refuses it too): the element is named, and the error points
    /// into it — from its start tag to its end tag (libxml2 may deliver white space only when it meets the end tag).
    @Test func textInsideABooleanIsRefusedInsideTheElement() throws {
        let cases: [(String, String, Int, ClosedRange<Int>)] = [
            ("<plist><true>x</true></plist>", "true", 1, 8...15),
            ("<plist>\n <false> </false></plist>", "false", 2, 2...10),
        ]
        for (doc, name, line, columns) in cases {
            let e = try #require(T.error(doc), "accepted: \(doc.debugDescription)")
            #expect(e.kind == .invalidValue && e.message.contains("non-empty <\(name)>"), "\(e)")
            #expect(e.line == line && e.column.map { columns.contains($0) } == true, "\(doc.debugDescription): \(e)")
        }
    }

    @Test func grammarErrorsNameLineAndColumn() throws {
        let cases: [(String, PlistError.Kind, Int, Int)] = [
            ("<plist>\n<dict>\n  <key>a</key>\n</dict>\n</plist>", .syntax, 4, 1),
            // (`<key>b</key>` is the value of `a`, as CF reads it: `<true/>` stands where a key belongs.)
            ("<plist>\n<dict>\n  <key>a</key>\n  <key>b</key><true/>\n</dict>\n</plist>", .syntax, 4, 15),
            ("<plist>\n<dict>\n  <string>a</string>\n</dict>\n</plist>", .syntax, 3, 3),
            ("<plist>\n <array>\n  <foo/>\n </array>\n</plist>", .syntax, 3, 3),
            ("<plist>\n <array>\n  text\n </array>\n</plist>", .syntax, 3, 3),
            ("<plist>\n <string>a<b/></string>\n</plist>", .syntax, 2, 11),
            ("<plist>\n <array>\n  <string>a</string>\n", .truncated, 4, 1),
            ("<plist>\n <string>&nbsp;</string>\n</plist>", .syntax, 2, 16),
            ("<plist><array><plist/></array></plist>", .rootCount, 1, 15),
            ("<plist><array><plist><true/><true/></plist></array></plist>", .rootCount, 1, 29),
        ]
        for (doc, kind, line, column) in cases {
            let e = try #require(T.error(doc), "accepted: \(doc)")
            #expect(e.kind == kind, "\(doc): \(e)")
            #expect(e.line == line, "\(doc): \(e)")
            #expect(e.column == column, "\(doc): \(e)")
            #expect(e.offset != nil && e.format == .xml, "\(doc): \(e)")
            #expect(T.foundation(doc) == nil, "Foundation accepts \(doc)")
        }
    }

    /// White space before the declaration is read (as CF and libplist do) by moving the declaration first in a copy;
    /// errors still point into the caller's bytes, where the white space comes first.
    @Test func errorsAfterARepairedDeclarationPointIntoTheCallersBytes() throws {
        let cases: [(String, Int, Int, Int)] = [
            ("\n<?xml version=\"1.0\"?><plist><bad/></plist>", 29, 2, 29),
            ("\n\n<?xml version=\"1.0\" standalone=\"maybe\"?><plist/>", 34, 3, 33),
            ("\u{FEFF} \t<?xml version=\"2.0\"?>\n<plist>\n<bad/></plist>", 35, 3, 1),
        ]
        for (doc, offset, line, column) in cases {
            let e = try #require(T.error(doc), "accepted: \(doc.debugDescription)")
            #expect(e.offset == offset && e.line == line && e.column == column, "\(doc.debugDescription): \(e)")
        }
    }

    @Test func errorsCarryTheKeyPath() throws {
        let doc = T.plist("""
        <dict>
          <key>Tracks</key>
          <array>
            <dict><key>Name</key><string>a</string></dict>
            <dict><key>Name</key><string>b</string></dict>
            <dict><key>Name</key><string>c</string></dict>
            <dict><key>Name</key><integer>x</integer></dict>
          </array>
        </dict>
        """)
        let e = try #require(T.error(doc))
        #expect(e.keyPath == KeyPath("Tracks.3.Name"), "\(e)")
        #expect(e.line == 10)
        #expect(e.description.contains("Tracks.3.Name"))
    }

    /// CF (`CFPropertyList.c`) reads `<key Q=">">test</key>` as the key `">test`; the XML specification, Python and
    /// libplist read `test`, and so do we.
    @Test func attributeValuesMayContainGreaterThan() throws {
        let doc = T.plist("<dict><key Q=\">\">test</key><string>v</string></dict>")
        #expect(try T.read(doc) == ["test": "v"])
        if let python = try ExternalTool.python(
            "import plistlib,sys; print(list(plistlib.loads(sys.stdin.buffer.read()).keys())[0])", input: Data(doc.utf8)) {
            #expect(String(decoding: python.stdout, as: UTF8.self) == "test\n")
        } else {
            Issue.record("python3 is missing: cannot cross-check with plistlib")
        }
    }

    /// CF ignores anything after the root element; XML (and Python) reject text there. Comments, processing
    /// instructions and white space remain fine.
    @Test func contentAfterTheRootElement() throws {
        #expect(T.error(T.plist("<true/>") + "junk")?.kind == .syntax)
        #expect(try T.read(T.plist("<true/>") + "<!-- c -->\n<?pi x?>\n  ") == .bool(true))
    }

    @Test func depthLimit() throws {
        func nested(_ n: Int) -> String {
            "<plist>" + String(repeating: "<array>", count: n) + "<string>x</string>"
                + String(repeating: "</array>", count: n) + "</plist>"
        }
        #expect(try T.read(nested(512)) != .bool(false))
        #expect(T.foundation(nested(512)) != nil)
        #expect(T.foundation(nested(513)) == nil)
        let e = try #require(T.error(nested(513)))
        #expect(e.kind == .depthLimit)
        #expect(e.message.contains("512"), "our depth error, not libxml2's: \(e)")
        var options = PlistReadOptions()
        options.maxDepth = 3
        #expect(T.error(nested(4), options)?.kind == .depthLimit)
        #expect(throws: Never.self) { try T.read(nested(3), options) }
        options.maxDepth = 3000  // beyond what libxml2 allows without XML_PARSE_HUGE
        #expect(throws: Never.self) { try T.read(nested(2500), options) }
        #expect(T.error(nested(3001), options)?.kind == .depthLimit)
        options.maxDepth = .max  // no overflow in the limit arithmetic
        #expect(throws: Never.self) { try T.read(nested(600), options) }
    }

    @Test func hundredThousandDeepIsAQuickDepthError() throws {
        let open = String(repeating: "<array>", count: 100_000)
        for doc in ["<plist>" + open, open, "<plist>" + String(repeating: "<dict><key>k</key>", count: 100_000)] {
            let start = ContinuousClock.now
            let e = try #require(T.error(doc))
            #expect(e.kind == .depthLimit, "\(e)")
            #expect(ContinuousClock.now - start < .seconds(2))
        }
    }

    @Test func objectCountLimit() throws {
        var options = PlistReadOptions()
        options.maxObjectCount = 5
        #expect(throws: Never.self) { try T.read("<array><true/><true/><true/><true/></array>", options) }
        #expect(T.error("<array><true/><true/><true/><true/><true/><true/></array>", options)?.kind == .countLimit)
    }
}

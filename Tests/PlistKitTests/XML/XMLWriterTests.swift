import Foundation
import Testing
@testable import PlistKit

/// `XMLWriter` against the byte layout of Core Foundation's XML writer (`CFPropertyList.c`, `_CFAppendXML0`): every
/// expected string here is written out from that layout, not from our output.
@Suite struct XMLWriterTests {
    static let prolog = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """

    static func xml(_ value: PlistValue, sortKeys: Bool = true, maxDepth: Int = 512) throws -> String {
        var options = PlistWriteOptions()
        options.sortKeys = sortKeys
        options.maxDepth = maxDepth
        return String(decoding: try PropertyList.writeBytes(value, format: .xml, options: options), as: UTF8.self)
    }

    /// The document for `body` (the root element's lines, already indented).
    static func document(_ body: String) -> String { prolog + body + "</plist>\n" }

    @Test func prologRootAndSingleFinalNewline() throws {
        #expect(try Self.xml("x") == Self.document("<string>x</string>\n"))
        let bytes = try PropertyList.writeBytes(true, format: .xml)
        #expect(Array(bytes.prefix(5)) == Array("<?xml".utf8), "no byte-order mark")
        #expect(bytes.suffix(9) == ArraySlice("</plist>\n".utf8))
    }

    @Test func emptyCollectionsAreSelfClosing() throws {
        #expect(try Self.xml([]) == Self.document("<array/>\n"))
        #expect(try Self.xml([:]) == Self.document("<dict/>\n"))
        #expect(try Self.xml([[], [:]]) == Self.document("<array>\n\t<array/>\n\t<dict/>\n</array>\n"))
    }

    @Test func oneTabPerLevel() throws {
        let value: PlistValue = ["a": [["b": [1]]]]
        let expected = """
            <dict>
            \t<key>a</key>
            \t<array>
            \t\t<dict>
            \t\t\t<key>b</key>
            \t\t\t<array>
            \t\t\t\t<integer>1</integer>
            \t\t\t</array>
            \t\t</dict>
            \t</array>
            </dict>

            """
        #expect(try Self.xml(value) == Self.document(expected))
        // Indentation keeps growing past 8 levels (only base64 lines are capped).
        var deep: PlistValue = true
        for _ in 0..<12 { deep = [deep] }
        #expect(try Self.xml(deep).contains("\n" + String(repeating: "\t", count: 12) + "<true/>\n"))
    }

    @Test func onlyLessThanGreaterThanAndAmpersandAreEscaped() throws {
        let s = "<a b=\"c\" d='e'>&amp;</a>\u{0}\u{1}\t\r\n"
        #expect(try Self.xml(.string(s))
            == Self.document("<string>&lt;a b=\"c\" d='e'&gt;&amp;amp;&lt;/a&gt;\u{0}\u{1}\t\r\n</string>\n"))
        #expect(try Self.xml(["<&>": 1]) == Self.document("<dict>\n\t<key>&lt;&amp;&gt;</key>\n\t<integer>1</integer>\n</dict>\n"))
        #expect(try Self.xml("") == Self.document("<string></string>\n"))
        #expect(try Self.xml("é😀～") == Self.document("<string>é😀～</string>\n"))
    }

    @Test func integersArePlainDecimalAndBigOnesUnsigned() throws {
        let value: PlistValue = .array([
            0, -5, .integer(PlistInteger(Int64.min)), .integer(PlistInteger(Int64.max)),
            .integer(PlistInteger(UInt64.max)), .integer(PlistInteger(UInt64(1) << 63)),
        ])
        let expected = """
            <array>
            \t<integer>0</integer>
            \t<integer>-5</integer>
            \t<integer>-9223372036854775808</integer>
            \t<integer>9223372036854775807</integer>
            \t<integer>18446744073709551615</integer>
            \t<integer>9223372036854775808</integer>
            </array>

            """
        #expect(try Self.xml(value) == Self.document(expected))
    }

    @Test func realsUseCoreFoundationSpellings() throws {
        let cases: [(PlistReal, String)] = [
            (PlistReal(0.1), "0.10000000000000001"), (PlistReal(2.0), "2"), (PlistReal(1.5), "1.5"),
            (PlistReal(1e20), "1e+20"), (PlistReal(Float(0.5)), "0.5"), (PlistReal(Double.nan), "nan"),
            (PlistReal(Double.infinity), "+infinity"), (PlistReal(-Double.infinity), "-infinity"),
            (PlistReal(0.0), "0.0"), (PlistReal(-0.0), "0.0"), (PlistReal(-2.5), "-2.5"),
            (PlistReal(Float(0.1)), "0.10000000149011612"), (PlistReal(1e-5), "1.0000000000000001e-05"),
            (PlistReal(1e16), "10000000000000000"), (PlistReal(1e17), "1e+17"),
        ]
        for (r, text) in cases {
            #expect(try Self.xml(.real(r)) == Self.document("<real>\(text)</real>\n"), "\(r.value)")
        }
    }

    @Test func datesAreWholeSecondsUTC() throws {
        let cases: [(Double, String)] = [
            (0, "2001-01-01T00:00:00Z"), (-0.5, "2000-12-31T23:59:59Z"), (0.999, "2001-01-01T00:00:00Z"),
            (-63_145_612_800, "-001-12-31T00:00:00Z"), (728_512_994, "2024-02-01T20:43:14Z"),
            (-62_135_769_600, "0031-12-31T00:00:00Z"),
        ]
        for (t, text) in cases {
            #expect(try Self.xml(.date(PlistDate(secondsSinceReferenceDate: t))) == Self.document("<date>\(text)</date>\n"), "\(t)")
        }
    }

    @Test func datesWithoutAnXMLFormAreErrorsWithTheirKeyPath() throws {
        for t in [Double.nan, .infinity, -.infinity, 1e300] {
            let value: PlistValue = ["outer": [1, ["when": .date(PlistDate(secondsSinceReferenceDate: t))]]]
            #expect {
                _ = try Self.xml(value)
            } throws: { error in
                guard let e = error as? PlistError else { return false }
                return e.kind == .unrepresentable && e.format == .xml && e.keyPath == KeyPath(components: ["outer", "1", "when"])
            }
        }
    }

    @Test func base64LineWidthShrinksWithDepthAndTabsStopAtEight() throws {
        let payload = Data((0..<200).map { UInt8($0) })
        let b64 = payload.base64EncodedString()
        for depth in 0...10 {
            var value = PlistValue.data(payload)
            for _ in 0..<depth { value = [value] }
            let lines = try Self.xml(value).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            let open = lines.firstIndex { $0.hasSuffix("<data>") }!
            #expect(lines[open] == String(repeating: "\t", count: depth) + "<data>")
            let tabs = min(depth, 8)
            let width = 76 - 8 * tabs
            var expectedLines: [String] = []
            var rest = Substring(b64)
            while !rest.isEmpty {
                expectedLines.append(String(repeating: "\t", count: tabs) + rest.prefix(width))
                rest = rest.dropFirst(width)
            }
            let got = Array(lines[(open + 1)..<(open + 1 + expectedLines.count)])
            #expect(got == expectedLines, "depth \(depth)")
            #expect(lines[open + 1 + expectedLines.count] == String(repeating: "\t", count: depth) + "</data>")
        }
    }

    @Test func emptyDataKeepsOpenAndCloseLines() throws {
        #expect(try Self.xml(.data(Data())) == Self.document("<data>\n</data>\n"))
        #expect(try Self.xml(["d": .data(Data())]) == Self.document("<dict>\n\t<key>d</key>\n\t<data>\n\t</data>\n</dict>\n"))
        #expect(try Self.xml(.data(Data([0xFF]))) == Self.document("<data>\n/w==\n</data>\n"))
    }

    @Test func uidIsACFUIDDictionary() throws {
        let expected = """
            <array>
            \t<dict>
            \t\t<key>CF$UID</key>
            \t\t<integer>42</integer>
            \t</dict>
            </array>

            """
        #expect(try Self.xml([.uid(UID(42))]) == Self.document(expected))
        #expect(try Self.xml(.uid(UID(UInt64(UInt32.max) + 1))).contains("<integer>4294967296</integer>"))
    }

    @Test func keysSortInUTF16OrderOrStayInInsertionOrder() throws {
        // Core Foundation's order (UTF-16 code units): A, Z, a, aa, b, é, 😀, ～.
        let sorted = ["A", "Z", "a", "aa", "b", "é", "😀", "～"]
        var d = PlistDictionary()
        for k in sorted.reversed() { d[k] = true }
        let keyLines = { (s: String) in
            s.split(separator: "\n").filter { $0.hasPrefix("\t<key>") }.map { String($0.dropFirst(6).dropLast(6)) }
        }
        #expect(keyLines(try Self.xml(.dictionary(d))) == sorted)
        #expect(keyLines(try Self.xml(.dictionary(d), sortKeys: false)) == sorted.reversed())
        // "e" + U+0301 is a different key from "é" and sorts by its first code unit, 'e' (0x65).
        var e = PlistDictionary()
        for k in ["é", "f", "e\u{301}", "e", "d"] { e[k] = true }
        #expect(keyLines(try Self.xml(.dictionary(e))) == ["d", "e", "e\u{301}", "f", "é"])
    }

    @Test func nestingBeyondTheLimitIsADepthError() throws {
        var value: PlistValue = []
        for _ in 0..<10 { value = [value] }
        #expect(throws: PlistError.self) { _ = try Self.xml(value, maxDepth: 10) }
        _ = try Self.xml(value, maxDepth: 11)
        do {
            _ = try Self.xml(["a": value], maxDepth: 5)
            Issue.record("expected a depth error")
        } catch let e as PlistError {
            #expect(e.kind == .depthLimit)
            #expect(e.keyPath?.components.first == "a")
        }
    }

    @Test func fullDefaultDepthIsWrittenWithoutExhaustingTheStack() throws {
        // 512 levels (the default limit, Core Foundation's) alternating arrays and dictionaries, on a test thread.
        var value: PlistValue = .data(Data([1, 2, 3]))
        for level in 0..<512 { value = level % 2 == 0 ? [value] : ["k": value] }
        let text = try Self.xml(value)
        #expect(text.contains(String(repeating: "\t", count: 8) + "AQID\n"))
        var json: PlistValue = true
        for level in 0..<512 { json = level % 2 == 0 ? [json] : ["k": json] }
        _ = try PropertyList.writeBytes(json, format: .json)
        var one = json
        one = [one]
        #expect(throws: PlistError.self) { _ = try PropertyList.writeBytes(one, format: .json) }
    }

    @Test func booleans() throws {
        #expect(try Self.xml([true, false]) == Self.document("<array>\n\t<true/>\n\t<false/>\n</array>\n"))
    }
}

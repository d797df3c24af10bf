import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// Issue 2 item 11b: XML written by independent writers (Foundation's `PropertyListSerialization`, Python's plistlib)
/// reads back to the value that was written; and on tricky documents our reader agrees with Foundation's.
@Suite struct XMLReaderDifferentialTests {
    typealias T = XMLReaderTesting

    /// What XML cannot carry, so neither side is compared on it:
    /// - `U+0301` is removed from keys, because Foundation on Linux merges canonically equivalent `NSString` keys;
    /// - RandomPlist is configured without UIDs (no Foundation form), −0.0 (CF writes `0.0`), float32 width and
    ///   sub-second dates (CF writes whole seconds).
    static func xmlRepresentable(_ v: PlistValue) -> PlistValue {
        func clean(_ s: String, key: Bool) -> String {
            var out = String.UnicodeScalarView()
            for u in s.unicodeScalars {
                if key && u.value == 0x301 { continue }
                out.append(u)
            }
            return String(out)
        }
        switch v {
        case .string(let s): return .string(clean(s, key: false))
        case .array(let a): return .array(a.map(xmlRepresentable))
        case .dictionary(let d):
            var out = PlistDictionary()
            for (k, x) in d { out[clean(k, key: true)] = xmlRepresentable(x) }
            return .dictionary(out)
        default: return v
        }
    }

    static var config: RandomPlist.Config {
        var c = RandomPlist.Config()
        c.uids = false
        c.negativeZero = false
        c.float32 = false
        c.fractionalDates = false
        c.nul = true  // CF writes U+0000 and other control characters raw; we read them (XMLReaderControlCharacters)
        return c
    }

    /// NaN compares by bits; CF writes `nan` for every NaN and we read the canonical quiet NaN, which is what
    /// RandomPlist generates, so plain `==` is the right comparison.
    @Test func foundationWrittenXMLReadsBack() throws {
        var mismatches = 0
        for seed in UInt64(1)...1000 {
            var random = RandomPlist(seed: seed, config: Self.config)
            let original = Self.xmlRepresentable(random.value())
            let xml = try PropertyListSerialization.data(
                fromPropertyList: FoundationBridge.toFoundation(original), format: .xml, options: 0)
            let ours = try xml.withUnsafeBytes { try XMLReader.read($0, options: PlistReadOptions()) }
            if ours != original {
                mismatches += 1
                if mismatches <= 3 {
                    Issue.record("seed \(seed): read \(ours), wrote \(original)\n\(String(decoding: xml, as: UTF8.self))")
                }
            }
        }
        #expect(mismatches == 0)
    }

    /// Our own writer's output, UIDs included (written as `CF$UID` dictionaries), reads back to the same value. A
    /// consistency check only: the independent oracles are the Foundation and plistlib tests above.
    @Test func ownWriterOutputReadsBack() throws {
        var c = Self.config
        c.uids = true
        c.nul = false
        for seed in UInt64(20_001)...20_500 {
            var random = RandomPlist(seed: seed, config: c)
            let original = Self.xmlRepresentable(random.value())
            let bytes = try PropertyList.writeBytes(original, format: .xml)
            let back = try bytes.withUnsafeBytes { try XMLReader.read($0, options: PlistReadOptions()) }
            #expect(back == original, "seed \(seed)")
        }
    }

    /// Documents larger than the reader's 256 KiB input chunks: multi-byte characters, text and tags cross chunk
    /// boundaries; an error far into the document keeps its exact position.
    @Test func largeDocumentsAcrossChunkBoundaries() throws {
        var c = Self.config
        c.maxCollection = 40
        c.maxDepth = 3
        var items: [PlistValue] = []
        var seed: UInt64 = 90_000
        while items.count < 400 {
            var random = RandomPlist(seed: seed, config: c)
            items.append(Self.xmlRepresentable(random.value()))
            seed += 1
        }
        let original = PlistValue.array(items)
        let xml = try PropertyListSerialization.data(
            fromPropertyList: FoundationBridge.toFoundation(original), format: .xml, options: 0)
        #expect(xml.count > 1 << 20, "only \(xml.count) bytes")
        #expect(try xml.withUnsafeBytes { try XMLReader.read($0, options: PlistReadOptions()) } == original)

        // A bad integer after ~700 KB: its line, column and offset come out exactly.
        let filler = String(repeating: "\t<string>\u{1F600} filler text with é and 漢字</string>\n", count: 12_000)
        let head = "<plist>\n<array>\n" + filler + "\t"
        let doc = head + "<integer>12x</integer>\n</array>\n</plist>\n"
        let e = try #require(T.error(doc))
        #expect(e.kind == .invalidValue)
        #expect(e.offset == head.utf8.count, "\(e)")
        #expect(e.line == 12_003 && e.column == 2, "\(e)")
        #expect(e.keyPath == KeyPath("12000"))
    }

    @Test func pythonWrittenXMLReadsBack() throws {
        // Foundation writes each value; Python reads it and writes its own XML (sorted keys, `repr` reals, its own
        // layout); we read Python's bytes.
        var originals: [PlistValue] = []
        var lines: [String] = []
        for seed in UInt64(5001)...5200 {
            var c = Self.config
            c.nul = false  // Python's XML writer refuses control characters
            c.unicode = false
            var random = RandomPlist(seed: seed, config: c)
            let v = Self.xmlRepresentable(random.value())
            originals.append(v)
            lines.append(try PropertyListSerialization.data(
                fromPropertyList: FoundationBridge.toFoundation(v), format: .xml, options: 0).base64EncodedString())
        }
        let script = """
        import base64, plistlib, sys
        for line in sys.stdin.read().split():
            v = plistlib.loads(base64.b64decode(line))
            print(base64.b64encode(plistlib.dumps(v, fmt=plistlib.FMT_XML)).decode())
        """
        guard let result = try ExternalTool.python(script, input: Data(lines.joined(separator: "\n").utf8)) else {
            Issue.record("python3 is missing: the plistlib oracle cannot run")
            return
        }
        #expect(result.status == 0, "\(String(decoding: result.stderr, as: UTF8.self))")
        let outputs = String(decoding: result.stdout, as: UTF8.self).split(separator: "\n")
        #expect(outputs.count == originals.count)
        for (i, line) in outputs.enumerated() where i < originals.count {
            let bytes = try #require(Data(base64Encoded: String(line)))
            let ours = try bytes.withUnsafeBytes { try XMLReader.read($0, options: PlistReadOptions()) }
            #expect(ours == originals[i], "value \(i): \(String(decoding: bytes, as: UTF8.self))")
        }
    }

    /// U+FEFF inside text is a character like any other (XML 1.0 §2.2): kept where a string or key starts with it, as
    /// plistlib keeps it. (Foundation's reader drops it there, and only there.)
    @Test func zeroWidthNoBreakSpaceAtTheStartOfTextIsKept() throws {
        let doc = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><plist version=\"1.0\"><dict>"
            + "<key>\u{FEFF}k</key><array><string>\u{FEFF}v</string><string>a\u{FEFF}b</string><string>&#xFEFF;c</string></array>"
            + "</dict></plist>"
        let ours = try T.read(doc)
        let script = """
        import json, plistlib, sys
        print(json.dumps(plistlib.loads(sys.stdin.buffer.read())))
        """
        guard let result = try ExternalTool.python(script, input: Data(doc.utf8)) else {
            Issue.record("python3 is missing: the plistlib oracle cannot run")
            return
        }
        #expect(result.status == 0, "\(String(decoding: result.stderr, as: UTF8.self))")
        let python = try JSONSerialization.jsonObject(with: result.stdout) as? [String: [String]]
        let expected = try #require(python)
        #expect(expected == ["\u{FEFF}k": ["\u{FEFF}v", "a\u{FEFF}b", "\u{FEFF}c"]])
        #expect(ours == .dictionary(PlistDictionary(expected.map { ($0.key, .array($0.value.map { .string($0) })) })))
    }

    /// Hand-picked documents at the edges of the grammar. Where both readers accept, the values must be equal;
    /// acceptance must agree except for the deviations documented on `XMLReader`.
    @Test func trickyDocumentsAgreeWithFoundation() throws {
        let agree: [String] = [
            "<plist><dict><key></key><string></string></dict></plist>",
            "<plist version=\"1.0\" extra='x'><array><dict/><array/><dict></dict><string/></array></plist>",
            "<?xml version=\"1.0\"?><!-- c --><plist><!-- c --><array><!-- c --><true/><!-- c --></array></plist><!-- c -->",
            "<plist>\n\n\t<string>\n  multi\n  line\n</string>\n</plist>",
            "<plist><string><![CDATA[]]></string></plist>",
            "<plist><dict><key><![CDATA[k&<>]]></key><integer>1</integer></dict></plist>",
            "<plist><string>&#x1F600;&#233;&#x10FFFF;</string></plist>",
            "<plist><dict><key>a</key><dict><key>b</key><dict><key>c</key><array><array><array/></array></array></dict></dict></dict></plist>",
            "\u{FEFF}<plist><string>bom</string></plist>",
            "<plist><array><integer>-0</integer><integer>+0</integer><real>-0</real><real>1E+2</real></array></plist>",
            "<plist><array><data>\n\t\tAAAA\n\t\tBBBB\n\t</data><data>====</data><data>A</data></array></plist>",
            "<plist><date>2001-01-01T00:00:00Z</date></plist>",
            "<array><string>no plist element</string></array>",
            "<plist><string>   </string></plist>",
            "<plist><string>tab\there</string></plist>",
            // A <plist> nested as a value is the object it holds (plistlib and libplist agree).
            "<plist><array><plist version=\"1.0\"><string>a</string></plist><true/></array></plist>",
            "<plist><dict><key>k</key><plist><dict><key>n</key><integer>1</integer></dict></plist></dict></plist>",
            "<plist><plist><plist><false/></plist></plist></plist>",
            // Declarations libxml2 refuses as written.
            "<?xml version=\"2.0\"?><plist><string>v2</string></plist>",
            "<?xml version=\"1.1\" encoding=\"UTF_8\"?><plist><string>caf\u{E9}</string></plist>",
            "\n  \n<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\"><string>x</string></plist>",
            "\u{FEFF}\r\n<?xml version=\"10.0\"?><plist><integer>2</integer></plist>",
        ]
        for doc in agree {
            let f = T.foundation(doc)
            let ours = try? T.read(doc)
            #expect(f != nil, "Foundation rejects \(doc)")
            #expect(ours != nil, "we reject \(doc): \(String(describing: T.error(doc)))")
            if let f, let ours {
                #expect(ours == f, "\(doc)")
            }
        }
        // Both reject.
        let bothReject: [String] = [
            "<plist><integer>1</integer><integer>2</integer></plist>", "<plist><dict><key>a</key></dict></plist>",
            "<plist><dict><string>a</string></dict></plist>", "<plist><unknown/></plist>", "<plist><true>x</true></plist>",
            "<plist><string>a</plist>", "<plist><real>1.5 </real></plist>", "<plist><date>2024-01-01T00:00:00.5Z</date></plist>",
            "<plist><string>&unknown;</string></plist>", "<plist><integer>0x</integer></plist>",
            "<plist><array><plist></plist></array></plist>", "<plist><array><plist><true/><true/></plist></array></plist>",
            "<plist><dict><plist><true/></plist><true/></dict></plist>",
        ]
        for doc in bothReject {
            #expect(T.foundation(doc) == nil, "Foundation accepts \(doc)")
            #expect(T.error(doc) != nil, "we accept \(doc)")
        }
    }
}

import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// The event seam under every reader: one vocabulary from every format, tree policy applied in one place, positions
/// in the caller's bytes after every rewrite of the input.
@Suite struct EventSeamTests {
    // MARK: Helpers

    static func record(_ bytes: [UInt8], _ options: PlistReadOptions = PlistReadOptions()) throws -> [PlistEvent] {
        var recorder = PlistEventRecorder()
        try bytes.withUnsafeBytes { _ = try PropertyList.parse($0, options: options, into: &recorder) }
        return recorder.plainEvents
    }

    static func recordWithRanges(_ bytes: [UInt8]) throws -> [(event: PlistEvent, range: Range<Int>)] {
        var recorder = PlistEventRecorder()
        try bytes.withUnsafeBytes { _ = try PropertyList.parse($0, into: &recorder) }
        return recorder.events
    }

    /// Counts are known in advance only by some readers, and text formats spell a UID as `{CF$UID = n}`: the two
    /// ways a format may say the same thing.
    static func normalized(_ events: [PlistEvent]) -> [PlistEvent] {
        var out: [PlistEvent] = []
        var i = 0
        while i < events.count {
            if i + 3 < events.count, case .beginDictionary = events[i], events[i + 1] == .key("CF$UID"),
               case .value(.integer(let n)) = events[i + 2], events[i + 3] == .endDictionary, let u = n.uint64Value {
                out.append(.value(.uid(UID(u))))
                i += 4
                continue
            }
            switch events[i] {
            case .beginArray: out.append(.beginArray(count: nil))
            case .beginDictionary: out.append(.beginDictionary(count: nil))
            default: out.append(events[i])
            }
            i += 1
        }
        return out
    }

    static func emitted(_ value: PlistValue) throws -> [PlistEvent] {
        var recorder = PlistEventRecorder()
        try PropertyList.emit(value, into: &recorder)
        return recorder.plainEvents
    }

    // MARK: One vocabulary

    /// Equivalent documents in every format (a random value written by each writer, insertion order kept) give the
    /// same events, and those are the events of the value itself.
    @Test func everyReaderSendsTheSameEventsForEquivalentDocuments() throws {
        var config = RandomPlist.Config()
        config.uids = true
        config.nonFiniteReals = false
        config.negativeZero = false
        var options = PlistWriteOptions()
        options.sortKeys = false
        var formatsSeen: [PlistFormat: Int] = [:]
        for seed in 0..<300 {
            var generator = RandomPlist(seed: UInt64(seed), config: config)
            let value = generator.value()
            let expected = Self.normalized(try Self.emitted(value))
            for format in [PlistFormat.xml, .binary, .json, .gnustep, .openStep] {
                guard let bytes = try? PropertyList.writeBytes(value, format: format, options: options),
                      (try? PropertyList.read(bytes).value) == value else { continue }  // this format cannot hold it
                formatsSeen[format, default: 0] += 1
                let events = try Self.record(bytes)
                #expect(Self.normalized(events) == expected, "seed \(seed), \(format)")
            }
        }
        // Every reader took part, not only the formats that can hold everything.
        for format in [PlistFormat.xml, .binary, .json, .gnustep, .openStep] {
            #expect(formatsSeen[format, default: 0] >= 10, "\(format): \(formatsSeen[format, default: 0]) documents")
        }
    }

    /// For every valid Corpus file, the events replayed into the tree builder give what `PropertyList.read` gives:
    /// the readers hold no tree policy of their own.
    @Test func corpusEventsRebuildTheTreeTheReaderReturns() throws {
        var checked = 0
        for entry in try CorpusTests.entries() where entry.fields["error"] == nil {
            let bytes = try [UInt8](Data(contentsOf: CorpusTests.root.appendingPathComponent(entry.path)))
            let (value, format) = try PropertyList.read(bytes)
            if entry.path == "binary/aliased-objects.bplist" {
                // Ten offset entries naming one object: the tree reads it again with objects remembered by offset;
                // a sink that cannot repeat a subtree is refused by the decoding budget instead of sent it ten times.
                #expect(throws: PlistError.self) { _ = try Self.record(bytes) }
                continue
            }
            var recorder = PlistEventRecorder()
            try bytes.withUnsafeBytes { _ = try PropertyList.parse($0, into: &recorder) }
            let rebuilt = try PlistTreeBuilder.build(PlistReadOptions(), format: format) { try recorder.replay(into: &$0) }
            #expect(rebuilt == value, "\(entry.path)")
            checked += 1
        }
        #expect(checked > 80)
    }

    // MARK: Tree policy in one place

    /// The same key twice (with another key between) in each format. The reader passes both on; only the tree
    /// builder applies the policy.
    static let duplicateKeyDocuments: [(PlistFormat, [UInt8], second: Int)] = {
        func text(_ s: String) -> [UInt8] { Array(s.utf8) }
        func at(_ s: String, _ needle: String) -> Int {
            let r = s.range(of: needle, options: .backwards)!
            return s.utf8.distance(from: s.startIndex, to: r.lowerBound)
        }
        let xml = "<plist><dict><key>a</key><integer>1</integer><key>b</key><integer>0</integer><key>a</key><integer>2</integer></dict></plist>"
        let json = #"{"a": 1, "b": 0, "a": 2}"#
        let gnustep = "{a = <*I1>; b = <*I0>; a = <*I2>;}"
        let strings = "\"a\" = \"1\";\n\"b\" = \"0\";\n\"a\" = \"2\";\n"
        // Binary: the two "a"s are different objects with the same text (objects 1 and 3).
        let binary = BinaryFixture([[0xD3, 1, 2, 3, 4, 5, 6], [0x51, 0x61], [0x51, 0x62], [0x51, 0x61],
                                    [0x10, 1], [0x10, 0], [0x10, 2]])
        return [
            (.xml, text(xml), at(xml, "<key>a")), (.json, text(json), at(json, "\"a\"")),
            (.gnustep, text(gnustep), at(gnustep, "a =")), (.strings, text(strings), at(strings, "\"a\"")),
            (.binary, binary.bytes, binary.offset(of: 3)),
        ]
    }()

    @Test(arguments: [DuplicateKeyPolicy.lastWins, .firstWins, .reject, .coreFoundation])
    func duplicateKeysFollowThePolicyInEveryFormat(_ policy: DuplicateKeyPolicy) throws {
        for (format, bytes, second) in Self.duplicateKeyDocuments {
            let keys = try Self.record(bytes).compactMap { event -> String? in
                if case .key(let k) = event { return k } else { return nil }
            }
            #expect(keys == ["a", "b", "a"], "\(format): the reader passes every key on")
            var options = PlistReadOptions()
            options.duplicateKeys = policy
            let one: PlistValue = format == .strings ? "1" : 1
            let two: PlistValue = format == .strings ? "2" : 2
            let zero: PlistValue = format == .strings ? "0" : 0
            switch policy {
            case .lastWins, .firstWins, .coreFoundation:
                let (value, read) = try PropertyList.read(bytes, options: options)
                #expect(read == format)
                let d = try #require(value.dictionaryValue, "\(format)")
                #expect(d.keys == ["a", "b"], "\(format): the first position is kept")
                // Core Foundation's binary reader keeps the first value, its text readers the last.
                let keepsLast = policy == .lastWins || (policy == .coreFoundation && format != .binary)
                #expect(d["a"] == (keepsLast ? two : one), "\(format)")
                #expect(d["b"] == zero, "\(format)")
            case .reject:
                do {
                    _ = try PropertyList.read(bytes, options: options)
                    Issue.record("\(format): a repeated key was accepted")
                } catch let e as PlistError {
                    #expect(e.kind == .duplicateKey, "\(format): \(e)")
                    #expect(e.keyPath == KeyPath("a"), "\(format): \(e)")
                    #expect(e.offset == second, "\(format): \(e) should point at the second key (\(second))")
                }
            }
        }
    }

    /// The CF$UID dictionary of text formats: a dictionary in the events, a UID in the tree.
    @Test func uidDictionariesAreCollapsedByTheTreeOnly() throws {
        let xml = Array("<plist><dict><key>CF$UID</key><integer>7</integer></dict></plist>".utf8)
        #expect(try Self.record(xml) == [.beginDictionary(count: nil), .key("CF$UID"), .value(7), .endDictionary])
        #expect(try PropertyList.read(xml).value == .uid(UID(7)))
        // JSON has no UIDs: the dictionary stays one.
        let json = Array(#"{"CF$UID": 7}"#.utf8)
        #expect(try PropertyList.read(json).value == ["CF$UID": 7])
    }

    /// A small binary file whose arrays each hold the next one twice: a tree of 2^40 leaves. The tree builder
    /// repeats shared subtrees instead of receiving them again, so reading is instant; a sink that cannot repeat
    /// them is refused by the decoding budget rather than sent an endless stream.
    @Test func sharedBinarySubtreesStaySharedAndNeverExpand() throws {
        var objects: [[UInt8]] = []
        let levels = 40
        for i in 0..<levels { objects.append([0xA2, UInt8(i + 1), UInt8(i + 1)]) }
        objects.append([0x09])
        let bytes = BinaryFixture(objects).bytes
        let start = ContinuousClock.now
        var value = try PropertyList.read(bytes).value
        #expect(ContinuousClock.now - start < .seconds(5))
        for _ in 0..<levels { value = try #require(value.arrayValue?[1]) }
        #expect(value == true)
        #expect(throws: PlistError.self) { _ = try Self.record(bytes) }
    }

    // MARK: Positions after every rewrite

    /// An error at `needle` in `text`, written in `encoding`: the offset is the needle's in the caller's bytes, and
    /// the line and column are counted in the text.
    static func expectPosition(
        _ text: String, encoding: String.Encoding, bom: [UInt8] = [], needle: String, kind: PlistError.Kind,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let body = try #require(text.data(using: encoding))
        let bytes = bom + [UInt8](body)
        let range = try #require(text.range(of: needle))
        let prefix = String(text[..<range.lowerBound])
        let expectedOffset = bom.count + (prefix.data(using: encoding)?.count ?? 0)
        // Lines end at LF, CR or CR LF; columns count scalars.
        var line = 1
        var column = 1
        var previous: Unicode.Scalar?
        for scalar in prefix.unicodeScalars {
            if scalar == "\n" && previous == "\r" {
                // the second half of CR LF
            } else if scalar == "\n" || scalar == "\r" {
                line += 1
                column = 1
            } else {
                column += 1
            }
            previous = scalar
        }
        do {
            let (value, _) = try PropertyList.read(bytes)
            Issue.record("expected an error, read \(value)", sourceLocation: sourceLocation)
        } catch let e as PlistError {
            #expect(e.kind == kind, "\(e)", sourceLocation: sourceLocation)
            #expect(e.offset == expectedOffset, "\(e)", sourceLocation: sourceLocation)
            #expect(e.line == line, "\(e)", sourceLocation: sourceLocation)
            #expect(e.column == column, "\(e)", sourceLocation: sourceLocation)
        }
    }

    @Test func xmlPositionsAfterEachRewrite() throws {
        let bad = "<integer>x</integer>"
        // UTF-16 and UTF-32, converted to UTF-8 before parsing.
        let wide = "<?xml version=\"1.0\"?>\n<plist><dict><key>é€😀</key>\n  \(bad)</dict></plist>"
        try Self.expectPosition(wide, encoding: .utf16LittleEndian, bom: [0xFF, 0xFE], needle: bad, kind: .invalidValue)
        try Self.expectPosition(wide, encoding: .utf16BigEndian, bom: [0xFE, 0xFF], needle: bad, kind: .invalidValue)
        try Self.expectPosition(wide, encoding: .utf32BigEndian, bom: [0, 0, 0xFE, 0xFF], needle: bad, kind: .invalidValue)
        // A declaration after white space, moved to the start for libxml2.
        let padded = "\n\n  <?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist><array><string>é</string>\(bad)</array></plist>"
        try Self.expectPosition(padded, encoding: .utf8, needle: bad, kind: .invalidValue)
        // A legacy encoding, converted with iconv (é is one byte in Latin-1).
        let latin = "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<plist><array><string>ééé</string>\(bad)</array></plist>"
        try Self.expectPosition(latin, encoding: .isoLatin1, needle: bad, kind: .invalidValue)
        // Control characters, swapped for four-byte stand-ins.
        let controls = "<plist><array><string>\u{1}\u{2}\r\n\u{3}</string>\(bad)</array></plist>"
        try Self.expectPosition(controls, encoding: .utf8, needle: bad, kind: .invalidValue)
        // All three at once: Latin-1, white space before the declaration, a control character.
        let all = "\n <?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<plist><array><string>é\u{1}é</string>\n\(bad)</array></plist>"
        try Self.expectPosition(all, encoding: .isoLatin1, needle: bad, kind: .invalidValue)
    }

    @Test func jsonAndOpenStepPositionsAfterConversion() throws {
        let json = "[\"é€😀\",\n  1, tru]"
        try Self.expectPosition(json, encoding: .utf16LittleEndian, bom: [0xFF, 0xFE], needle: "]", kind: .syntax)
        try Self.expectPosition(json, encoding: .utf32BigEndian, needle: "]", kind: .syntax)
        try Self.expectPosition(json, encoding: .utf8, needle: "]", kind: .syntax)
        // OpenStep has always reported converted text by line and column alone.
        let openStep = "{ a = \"é€😀\";\n  b = <0g>; }"
        let utf16 = [0xFF, 0xFE] + [UInt8](openStep.data(using: .utf16LittleEndian)!)
        do {
            _ = try PropertyList.read(utf16)
            Issue.record("expected an error")
        } catch let e as PlistError {
            #expect(e.line == 2 && e.column == 9 && e.offset == nil, "\(e)")
        }
        try Self.expectPosition(openStep, encoding: .utf8, needle: "g>", kind: .syntax)
    }

    // MARK: Exact source ranges

    /// A sink that asks for exact ranges gets, for each scalar and key, the bytes of its whole element or token in
    /// the caller's input — also when the input was converted from UTF-16.
    @Test func exactRangesCoverEachTokenInTheCallersBytes() throws {
        let xml = "<plist>\n<dict>\n\t<key>k&amp;</key>\n\t<string>a&lt;b</string>\n\t<key>l</key><array><true/><integer>5</integer></array>\n</dict>\n</plist>"
        let expectedXML = ["<key>k&amp;</key>", "<string>a&lt;b</string>", "<key>l</key>", "<true/>", "<integer>5</integer>"]
        func scalarTexts(_ bytes: [UInt8], decode: ([UInt8]) -> String) throws -> [String] {
            try Self.recordWithRanges(bytes).compactMap { event, range in
                switch event {
                case .key, .value: return decode(Array(bytes[range]))
                default: return nil
                }
            }
        }
        #expect(try scalarTexts(Array(xml.utf8)) { String(decoding: $0, as: UTF8.self) } == expectedXML)
        let utf16 = [0xFF, 0xFE] + [UInt8](xml.data(using: .utf16LittleEndian)!)
        #expect(try scalarTexts(utf16) { String(data: Data($0), encoding: .utf16LittleEndian) ?? "?" } == expectedXML)

        // Containers: the opening and the closing token.
        let containers = try Self.recordWithRanges(Array(xml.utf8)).compactMap { event, range -> String? in
            switch event {
            case .beginArray, .endArray, .beginDictionary, .endDictionary:
                return String(decoding: Array(xml.utf8)[range], as: UTF8.self)
            default: return nil
            }
        }
        #expect(containers == ["<dict>", "<array>", "</array>", "</dict>"])
        let empty = "<plist><array><dict/></array></plist>"
        let emptyRanges = try Self.recordWithRanges(Array(empty.utf8)).map { String(decoding: Array(empty.utf8)[$0.range], as: UTF8.self) }
        #expect(emptyRanges == ["<array>", "<dict/>", "<dict/>", "</array>"])

        let openStep = "{ k = \"a\\\"b\"; l = (x, <00ff>, y_z); }"
        #expect(try scalarTexts(Array(openStep.utf8)) { String(decoding: $0, as: UTF8.self) }
                == ["k", "\"a\\\"b\"", "l", "x", "<00ff>", "y_z"])
        let json = #"{"k": [1.5e3, "x\u0041", true]}"#
        #expect(try scalarTexts(Array(json.utf8)) { String(decoding: $0, as: UTF8.self) }
                == [#""k""#, "1.5e3", #""x\u0041""#, "true"])
    }
}

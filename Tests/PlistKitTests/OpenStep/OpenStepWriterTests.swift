import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// The OpenStep writer: Foundation (CF's OpenStep parser) must read every document we write to an equal value.
@Suite struct OpenStepWriterTests {
    static func openStepConfig() -> RandomPlist.Config {
        var c = RandomPlist.Config()
        c.dates = false
        c.nul = true
        c.maxDepth = 5
        return c
    }

    /// Replaces every scalar OpenStep cannot hold by a string, keeping strings, data, arrays and dictionaries.
    static func openStepOnly(_ v: PlistValue, _ rng: inout RandomPlist) -> PlistValue {
        switch v {
        case .string, .data: return v
        case .array(let a): return .array(a.map { openStepOnly($0, &rng) })
        case .dictionary(let d): return .dictionary(PlistDictionary(d.map { ($0.key, openStepOnly($0.value, &rng)) }))
        default: return .string(rng.string())
        }
    }

    @Test(arguments: 0..<200)
    func foundationReadsWhatWeWrite(seed: Int) throws {
        var rng = RandomPlist(seed: UInt64(seed) &* 7919 &+ 11, config: Self.openStepConfig())
        let value = Self.openStepOnly(rng.value(), &rng)
        let text = try OS.write(value, .openStep)
        let theirs = OS.foundation(text)
        #expect(theirs == value, "seed \(seed):\n\(OS.text(text))")
        #expect(try PropertyList.read(text).value == value, "seed \(seed)")
    }

    @Test func trickyStringsSurviveFoundationAndUs() throws {
        var dict = PlistDictionary()
        for (k, s) in OS.trickyStrings.enumerated() { dict["k\(k)" + s] = .string(s) }
        let value = PlistValue.array([.dictionary(dict), .array(OS.trickyStrings.map(PlistValue.string))])
        let text = try OS.write(value, .openStep)
        #expect(OS.foundation(text) == value, "\(OS.text(text))")
        #expect(try PropertyList.read(text).value == value)
        // Each string alone at the top level as well (a bare or quoted root string).
        for s in OS.trickyStrings {
            let one = try OS.write(.string(s), .openStep)
            #expect(OS.foundation(one) == .string(s), "\(s.debugDescription) → \(OS.text(one).debugDescription)")
            #expect(try PropertyList.read(one).value == .string(s), "\(s.debugDescription)")
        }
    }

    @Test func quotingOnlyWhereNeeded() throws {
        let cases: [(String, String)] = [
            ("abc", "abc"), ("a/b:c.d-e_f$", "a/b:c.d-e_f$"), ("12", "12"), ("/x", "/x"), ("a//b", "a//b"),
            ("", "\"\""), ("a b", "\"a b\""), ("//x", "\"//x\""), ("a+b", "\"a+b\""), ("é", "\"é\""),
            ("say \"hi\"\\", #""say \"hi\"\\""#), ("a\nb\tc\rd", #""a\nb\tc\rd""#), ("\u{1}7\u{7F}", #""\0017\177""#),
            ("💩", "\"💩\""),
        ]
        for (s, expected) in cases {
            #expect(OS.text(try OS.write(.string(s), .openStep)) == expected + "\n", "\(s.debugDescription)")
        }
    }

    @Test func layoutIsStable() throws {
        // The documented layout: four spaces per level, `key = value;`, `,` between elements, empty `()` / `{}`,
        // keys sorted by UTF-16 code units, a final newline.
        let value: PlistValue = ["b": ["x", ["y": "z"], [], [:]], "a": .data(Data([0, 1, 2, 3, 4, 255]))]
        let expected = """
            {
                a = <00010203 04ff>;
                b = (
                    x,
                    {
                        y = z;
                    },
                    (),
                    {}
                );
            }

            """
        #expect(OS.text(try OS.write(value, .openStep)) == expected)
        let unsorted = OS.text(try OS.write(["b": "1", "a": "2"], .openStep, sortKeys: false))
        #expect(unsorted == "{\n    b = 1;\n    a = 2;\n}\n")
        // UTF-16 order puts U+FFFD after U+1F4A9 (a surrogate pair), unlike scalar order.
        let order = OS.text(try OS.write(["\u{FFFD}": "1", "💩": "2"], .openStep))
        #expect(order.range(of: "💩")!.lowerBound < order.range(of: "\u{FFFD}")!.lowerBound)
    }

    /// Data of every length up to 40 and every byte value, as Core Foundation writes it: `<` lowercase hex in
    /// groups of four bytes separated by a space `>` (the expected text made here with `String(format:)`).
    @Test func dataIsWrittenInGroupsOfFourBytes() throws {
        var rng = SeededGenerator(seed: 7)
        var samples: [[UInt8]] = (0...40).map { n in (0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) } }
        samples.append(Array(0...255))
        for bytes in samples {
            let groups = stride(from: 0, to: bytes.count, by: 4).map { start in
                bytes[start..<min(start + 4, bytes.count)].map { String(format: "%02x", $0) }.joined()
            }
            let expected = "<" + groups.joined(separator: " ") + ">"
            let text = String(decoding: try PropertyList.writeBytes(.data(Data(bytes)), format: .openStep), as: UTF8.self)
            #expect(text.trimmingCharacters(in: .newlines) == expected, "\(bytes.count) bytes")
            #expect(try PropertyList.read(Array(text.utf8)).value == .data(Data(bytes)))
        }
    }

    @Test func unrepresentableValuesNameTheirKeyPath() throws {
        let value: PlistValue = ["outer": ["list": ["ok", 5]]]
        do {
            _ = try OS.write(value, .openStep)
            Issue.record("an integer was written to OpenStep")
        } catch let e as PlistError {
            #expect(e.kind == .unrepresentable && e.format == .openStep)
            #expect(e.keyPath == KeyPath(components: ["outer", "list", "1"]))
        }
        for v: PlistValue in [1, 1.5, true, .date(PlistDate(secondsSinceReferenceDate: 0)), .uid(UID(1))] {
            #expect(throws: PlistError.self) { try OS.write(["k": v], .openStep) }
        }
    }

    @Test func lossySpellings() throws {
        let value: PlistValue = [
            "i": -5, "u": .integer(PlistInteger(UInt64.max)), "r": 0.1, "n": .real(PlistReal(Double.nan)),
            "t": true, "f": false, "d": .date(PlistDate(secondsSinceReferenceDate: 0)),
            "df": .date(PlistDate(secondsSinceReferenceDate: 0.25)), "x": .uid(UID(7)), "z": .real(PlistReal(-0.0)),
        ]
        let text = try OS.write(value, .openStep, lossy: true)
        let back = try #require(OS.foundation(text))
        #expect(back == [
            "i": "-5", "u": "18446744073709551615", "r": "0.1", "n": "nan", "t": "YES", "f": "NO",
            "d": "2001-01-01 00:00:00 +0000", "df": "2001-01-01 00:00:00 +0000", "x": "7", "z": "-0.0",
        ])
    }

    @Test func writerDepthCap() throws {
        var v: PlistValue = "leaf"
        for _ in 0..<600 { v = [v] }
        #expect(throws: PlistError.self) { try OS.write(v, .openStep) }
        var deep: PlistValue = ["k": "leaf"]
        for _ in 0..<5000 { deep = ["k": deep] }
        for format in [PlistFormat.openStep, .gnustep] {
            do {
                _ = try OS.write(deep, format)
                Issue.record("a 5000-deep value was written")
            } catch let e as PlistError {
                #expect(e.kind == .depthLimit && e.keyPath?.components.count == 512)
            }
        }
        var o = PlistWriteOptions()
        o.maxDepth = 1000
        let text = try PropertyList.writeBytes(v, format: .openStep, options: o)
        var r = PlistReadOptions()
        r.maxDepth = 1000
        #expect(try PropertyList.read(text, options: r).value == v)
    }
}

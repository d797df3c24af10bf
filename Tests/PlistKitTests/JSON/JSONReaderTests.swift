import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// `JSONReader` against Foundation's `JSONSerialization` reader (the one Apple `plutil` uses), in-process.
@Suite struct JSONReaderTests {
    typealias S = JSONTestSupport

    static func read(_ text: String, _ options: PlistReadOptions = PlistReadOptions()) throws -> PlistValue {
        try read(Array(text.utf8), options)
    }

    static func read(_ bytes: [UInt8], _ options: PlistReadOptions = PlistReadOptions()) throws -> PlistValue {
        try bytes.withUnsafeBytes { try PropertyList.read($0, as: .json, options: options) }
    }

    static func expectError(_ text: String, _ kind: PlistError.Kind, line: Int, column: Int? = nil,
                            _ options: PlistReadOptions = PlistReadOptions(), sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            let v = try read(text, options)
            Issue.record("expected \(kind) for \(text.debugDescription), got \(v)", sourceLocation: sourceLocation)
        } catch let e as PlistError {
            #expect(e.kind == kind, "\(text.debugDescription): \(e)", sourceLocation: sourceLocation)
            #expect(e.format == .json, sourceLocation: sourceLocation)
            #expect(e.line == line, "\(text.debugDescription): \(e)", sourceLocation: sourceLocation)
            if let column { #expect(e.column == column, "\(text.debugDescription): \(e)", sourceLocation: sourceLocation) }
            #expect(e.offset != nil, sourceLocation: sourceLocation)
        } catch {
            Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        }
    }

    /// Documents written by `JSONSerialization` (plutil's writer) and by our writer, read by us and by Python's
    /// `json` (the oracle: Foundation's reader rounds some 17-digit reals through `Decimal` and reads
    /// -9223372036854775808 as a real, so it is not used for numbers).
    @Test(.enabled(if: ExternalTool.find("python3") != nil, "python3 is needed as the oracle"))
    func randomDocumentsReadLikePythonJSON() throws {
        var docs: [[UInt8]] = []
        for seed in 0..<600 {
            let value = S.randomJSONValue(seed: 7000 + UInt64(seed), unicode: true, float32: seed % 2 == 0)
            docs.append(try S.foundationJSON(value, pretty: seed % 3 == 0))
            docs.append(try S.ours(value, pretty: seed % 2 == 0))
        }
        let expected = try #require(try S.pythonOracle(docs))
        var failures = 0
        for (doc, want) in zip(docs, expected) {
            let got = try Self.read(doc)
            if got != want {
                failures += 1
                if failures <= 3 { Issue.record("\(S.text(doc)):\nours   \(got)\npython \(want)") }
            }
        }
        #expect(failures == 0)
    }

    @Test func structureMatchesJSONSerialization() throws {
        // Foundation as a second, in-process oracle for everything but reals and 19-digit negative integers (see
        // above), with ASCII keys (its dictionaries merge canonically equivalent keys such as "é" and "e\u{301}").
        for seed in 0..<300 {
            let value = Self.withoutReals(S.randomJSONValue(seed: 8000 + UInt64(seed), unicode: false))
            let text = try S.ours(value, pretty: seed % 2 == 0)
            #expect(try Self.read(text) == S.parsedByFoundation(text), "seed \(8000 + seed)")
        }
    }

    static func withoutReals(_ v: PlistValue) -> PlistValue {
        switch v {
        case .real(let r): return .integer(PlistInteger(Int64(r.value.isFinite ? max(-1e15, min(1e15, r.value)) : 0)))
        case .integer(let i) where i < PlistInteger(Int64(-999_999_999_999_999_999)): return 0
        case .array(let a): return .array(a.map(withoutReals))
        case .dictionary(let d): return .dictionary(PlistDictionary(d.map { ($0.key, withoutReals($0.value)) }))
        default: return v
        }
    }

    @Test(.enabled(if: ExternalTool.find("python3") != nil, "python3 is needed as the oracle"))
    func numbersFollowPlutilTyping() throws {
        var docs = [
            "[0, -0, 1, -1, 9223372036854775807, -9223372036854775808, 18446744073709551615]",
            "[18446744073709551616, -9223372036854775809, 1.0, 1e2, 1E+2, 1e-2, -0.0, 0.1, 123456789012345678901234567890]",
            "[1.7976931348623157e308, 5e-324, 2.2250738585072014e-308, 0.30000000000000004, 9007199254740993]",
            "[1e-400, 123.456e-7, 4.35, 1.000000000000000000000000001, 100000000000000000000000, 0.000001]",
        ]
        var r = SeededGenerator(seed: 8)
        var reals: [String] = []
        for _ in 0..<5000 {
            let d = Double(bitPattern: r.next() & 0x7FEF_FFFF_FFFF_FFFF)
            reals.append("\(d)")
            reals.append(String(Double.random(in: -1e6...1e6, using: &r)))
            reals.append("\(Int.random(in: -99999...99999, using: &r)).\(Int.random(in: 0...99999, using: &r))e\(Int.random(in: -30...30, using: &r))")
            reals.append(String(Int.random(in: 0...Int.max, using: &r)) + String(Int.random(in: 0...99999, using: &r)))
        }
        docs.append("[" + reals.joined(separator: ",") + "]")
        let expected = try #require(try S.pythonOracle(docs.map { Array($0.utf8) }))
        for (doc, want) in zip(docs, expected) {
            let got = try Self.read(doc)
            #expect(got == want, "\(doc.prefix(200)): ours \(got) vs python \(want)")
        }
        #expect(try Self.read("[18446744073709551615]") == [.integer(PlistInteger(UInt64.max))])
        #expect(try Self.read("[-9223372036854775808]") == [.integer(PlistInteger(Int64.min))])
        #expect(try Self.read("[-0]") == [0])
        #expect(try Self.read("[18446744073709551616]") == [.real(PlistReal(18446744073709551616.0))])
        #expect(try Self.read("[1.0]") == [.real(PlistReal(1.0))])
    }

    @Test func stringsEscapesAndSurrogates() throws {
        let doc = #"["a\"b\\c\/d\b\f\n\r\t", "\u00e9\u00E9", "\ud83d\ude00", "\u0000", "é😀", "", "\u2028"]"#
        #expect(try Self.read(doc) == S.parsedByFoundation(Array(doc.utf8)))
        #expect(try Self.read(doc) == ["a\"b\\c/d\u{8}\u{C}\n\r\t", "éé", "😀", "\u{0}", "é😀", "", "\u{2028}"])
        #expect(try Self.read(#"{"k\u0041":1, "é":2}"#) == ["kA": 1, "é": 2])
    }

    @Test func whitespaceBOMAndScalarRoots() throws {
        #expect(try Self.read(" \t\r\n[ 1 ,\n 2 ] \n") == [1, 2])
        #expect(try Self.read([0xEF, 0xBB, 0xBF] + Array("{}".utf8)) == [:])
        #expect(try Self.read("\"s\"") == "s")
        #expect(try Self.read("true") == true)
        #expect(try Self.read("  12 ") == 12)
    }

    @Test func malformedDocumentsGiveKindAndPosition() {
        Self.expectError("", .truncated, line: 1)
        Self.expectError("[1,]", .syntax, line: 1, column: 4)
        Self.expectError("{\"a\":1,}", .syntax, line: 1, column: 8)
        Self.expectError("[1 2]", .syntax, line: 1, column: 4)
        Self.expectError("{\n  \"a\" 1\n}", .syntax, line: 2, column: 7)
        Self.expectError("{'a':1}", .syntax, line: 1, column: 2)
        Self.expectError("[01]", .syntax, line: 1, column: 2)
        Self.expectError("[1.]", .syntax, line: 1, column: 4)
        Self.expectError("[.5]", .syntax, line: 1, column: 2)
        Self.expectError("[+1]", .syntax, line: 1, column: 2)
        Self.expectError("[1e]", .syntax, line: 1, column: 4)
        Self.expectError("[NaN]", .syntax, line: 1, column: 2)
        Self.expectError("[Infinity]", .syntax, line: 1, column: 2)
        Self.expectError("[tru]", .syntax, line: 1, column: 5)
        Self.expectError("[\"a\tb\"]", .syntax, line: 1, column: 4)
        Self.expectError("[\"\\x\"]", .syntax, line: 1, column: 3)
        Self.expectError("[\"\\u12G4\"]", .syntax, line: 1, column: 7)
        Self.expectError("[\"abc", .truncated, line: 1, column: 2)
        Self.expectError("[1,\n2,\n", .truncated, line: 3, column: 1)
        Self.expectError("{\"a\"", .truncated, line: 1)
        Self.expectError("[1] x", .syntax, line: 1, column: 5)
        Self.expectError("[1]\n// comment", .syntax, line: 2, column: 1)
        Self.expectError("{1:2}", .syntax, line: 1, column: 2)
        Self.expectError("[1e999]", .invalidValue, line: 1, column: 2)
        Self.expectError("[1,\n  null]", .invalidValue, line: 2, column: 3)
        Self.expectError("[\"\\ud83d\"]", .encoding, line: 1, column: 3)
        Self.expectError("[\"\\ude00\"]", .encoding, line: 1, column: 3)
        Self.expectError("[\"\\ud83d\\u0041\"]", .encoding, line: 1, column: 3)
    }

    @Test(.enabled(if: ExternalTool.find("python3") != nil, "python3 is needed as the oracle"))
    func malformedDocumentsAreAlsoRejectedByPython() throws {
        // Sanity check on the list above with an independent strict parser (JSONSerialization accepts "[1,]";
        // Python accepts NaN and Infinity, so those two are left out here).
        let docs = ["[1,]", "{\"a\":1,}", "[1 2]", "{'a':1}", "[01]", "[1.]", "[.5]", "[+1]", "[1e]", "[tru]", "[\"a\tb\"]",
                    "[\"\\x\"]", "[\"\\u12G4\"]", "[\"abc", "[1] x", "[1]\n// comment", "{1:2}", ""]
        let script = """
            import sys, json, base64
            for line in sys.stdin:
                try:
                    json.loads(base64.b64decode(line.strip()).decode("utf-8")); print("accepted")
                except ValueError:
                    print("rejected")
            """
        let input = docs.map { Data($0.utf8).base64EncodedString() }.joined(separator: "\n") + "\n"
        let r = try #require(try ExternalTool.python(script, input: Data(input.utf8)))
        let verdicts = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n")
        #expect(verdicts.count == docs.count)
        for (doc, verdict) in zip(docs, verdicts) { #expect(verdict == "rejected", "\(doc.debugDescription)") }
    }

    @Test func invalidUTF8IsAnEncodingErrorAtItsOffset() throws {
        let cases: [([UInt8], Int)] = [
            (Array("[\"ab".utf8) + [0xFF] + Array("\"]".utf8), 4),
            (Array("[\"é".utf8) + [0xC3] + Array("\"]".utf8), 4),
            (Array("[\"\\n".utf8) + [0xED, 0xA0, 0x80] + Array("\"]".utf8), 4),  // encoded surrogate
            (Array("[\"".utf8) + [0xF4, 0x90, 0x80, 0x80] + Array("\"]".utf8), 2),  // above U+10FFFF
            (Array("[\"".utf8) + [0xC0, 0xAF] + Array("\"]".utf8), 2),  // overlong
        ]
        for (bytes, offset) in cases {
            do {
                _ = try Self.read(bytes)
                Issue.record("expected an encoding error for \(bytes)")
            } catch let e as PlistError {
                #expect(e.kind == .encoding, "\(bytes): \(e)")
                #expect(e.offset == offset, "\(bytes): \(e)")
                #expect(e.line == 1)
            }
        }
        // A lone surrogate in UTF-16 is an encoding error at its byte offset (BOM, '[', '"', then the unit).
        do {
            _ = try Self.read([0xFF, 0xFE, 0x5B, 0x00, 0x22, 0x00, 0x00, 0xD8, 0x22, 0x00, 0x5D, 0x00])
            Issue.record("a lone surrogate was accepted")
        } catch let e as PlistError {
            #expect(e.kind == .encoding && e.offset == 6, "\(e)")
        }
    }

    /// UTF-16 and UTF-32, with a byte-order mark or recognised by RFC 4627's zero bytes, read as Python's `json`
    /// reads them (it is asked in the test) and as the same document in UTF-8; errors point into the wide bytes.
    @Test func utf16AndUTF32ReadAsPythonReadsThem() throws {
        let text = "{\"k\": [1, 2.5, \"caf\u{E9} \u{1F600}\", true], \"n\": {}}"
        let expected = try Self.read(Array(text.utf8))
        let encodings = ["utf-16-le", "utf-16-be", "utf-32-le", "utf-32-be", "utf-16", "utf-32"]  // the last two with a BOM
        let script = """
        import json, sys
        text = sys.stdin.read()
        for e in \(encodings):
            data = text.encode(e)
            assert json.loads(data) == json.loads(text), e
            sys.stdout.write(data.hex() + "\\n")
        """
        guard let r = try ExternalTool.python(script, input: Data(text.utf8)) else {
            Issue.record("python3 is the oracle here")
            return
        }
        #expect(r.status == 0, "\(String(decoding: r.stderr, as: UTF8.self))")
        let documents = String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").map { hex in
            stride(from: 0, to: hex.count, by: 2).map { i -> UInt8 in
                let start = hex.index(hex.startIndex, offsetBy: i)
                return UInt8(hex[start..<hex.index(start, offsetBy: 2)], radix: 16)!
            }
        }
        #expect(documents.count == encodings.count)
        for (encoding, bytes) in zip(encodings, documents) {
            #expect(try Self.read(bytes) == expected, "\(encoding)")
            let (value, format) = try PropertyList.read(bytes)
            #expect(format == .json && value == expected, "detected as \(format) in \(encoding)")
        }
        // An error's offset counts the wide bytes: "[1,]" in UTF-16LE with a BOM fails at ']', byte 2 + 3 × 2.
        let bad: [UInt8] = [0xFF, 0xFE] + Array("[1,]".utf8).flatMap { [$0, 0] }
        do {
            _ = try Self.read(bad)
            Issue.record("accepted [1,]")
        } catch let e as PlistError {
            #expect(e.offset == 8 && e.line == 1 && e.column == 4, "\(e)")
        }
    }

    @Test func depthAndCountLimits() throws {
        var options = PlistReadOptions()
        options.maxDepth = 10
        _ = try Self.read(String(repeating: "[", count: 10) + String(repeating: "]", count: 10), options)
        Self.expectError(String(repeating: "[", count: 11) + String(repeating: "]", count: 11), .depthLimit, line: 1, column: 11, options)
        // The default cap stops 100,000 levels without exhausting the stack.
        Self.expectError(String(repeating: "[", count: 100_000), .depthLimit, line: 1, column: 513)
        Self.expectError(String(repeating: "{\"a\":", count: 100_000), .depthLimit, line: 1)
        var few = PlistReadOptions()
        few.maxObjectCount = 5
        _ = try Self.read("[1,2,3,4]", few)
        Self.expectError("[1,2,3,4,5]", .countLimit, line: 1, few)
    }

    @Test func duplicateKeysFollowThePolicy() throws {
        let doc = #"{"a":1,"b":2,"a":3}"#
        #expect(try Self.read(doc) == ["a": 3, "b": 2])
        #expect(try Self.read(doc) == S.parsedByFoundation(Array(doc.utf8)), "last wins, as JSONSerialization")
        var first = PlistReadOptions()
        first.duplicateKeys = .firstWins
        #expect(try Self.read(doc, first) == ["a": 1, "b": 2])
        var reject = PlistReadOptions()
        reject.duplicateKeys = .reject
        Self.expectError("{\"a\":1,\n\"a\":3}", .duplicateKey, line: 2, column: 1, reject)
        // Exact scalars decide identity: "é" and "e\u{301}" are two keys.
        let two = try Self.read("{\"\u{E9}\":1,\"e\u{301}\":2}", reject)
        #expect(two.dictionaryValue?.count == 2)
    }

    @Test func errorsInsideValuesCarryTheKeyPath() {
        do {
            _ = try Self.read(#"{"a": [1, {"b": null}]}"#)
            Issue.record("expected an error")
        } catch let e as PlistError {
            #expect(e.keyPath == KeyPath(components: ["a", "1", "b"]), "\(e)")
        } catch {
            Issue.record("\(error)")
        }
    }
}

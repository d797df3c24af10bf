import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// `JSONWriter` against `JSONSerialization` (the writer inside Apple `plutil`) in-process, and against the
/// toolchain's Apple `plutil` run as a process.
@Suite struct JSONWriterTests {
    typealias S = JSONTestSupport

    @Test func randomASCIIKeyedValuesMatchJSONSerializationBytes() throws {
        var failures = 0
        for seed in 0..<600 {
            let value = S.randomJSONValue(seed: UInt64(seed), unicode: false)
            for pretty in [false, true] {
                let mine = try S.ours(value, pretty: pretty)
                let theirs = try S.foundationJSON(value, pretty: pretty)
                if mine != theirs {
                    failures += 1
                    if failures <= 4 { Issue.record("seed \(seed) pretty \(pretty):\nours   \(S.text(mine))\ntheirs \(S.text(theirs))") }
                }
            }
        }
        #expect(failures == 0)
    }

    @Test func unicodeValuesEscapeAndParseLikeJSONSerialization() throws {
        // Non-ASCII keys may sort differently (ICU collation is not reproduced), so compare parsed trees here and
        // bytes for single-key dictionaries and arrays.
        for seed in 0..<400 {
            let value = S.randomJSONValue(seed: 1000 + UInt64(seed), unicode: true)
            let mine = try S.ours(value, pretty: false)
            let theirs = try S.foundationJSON(value, pretty: false)
            #expect(try S.parsedByFoundation(mine) == S.parsedByFoundation(theirs), "seed \(1000 + seed)")
        }
        var all = ""
        for v in 0..<0x20 { all.unicodeScalars.append(Unicode.Scalar(UInt8(v))) }
        all += "\u{7F}\u{2028}\u{2029}/\\\"é😀～\u{FFFF}"
        let value: PlistValue = [.string(all), ["k/\u{1}": .string(all)]]
        for pretty in [false, true] {
            #expect(try S.ours(value, pretty: pretty) == S.foundationJSON(value, pretty: pretty))
        }
    }

    @Test func keyOrderMatchesPlutilForASCIIKeys() throws {
        let pool = Array("aAbBzZ09 _-.~$[]`\t\u{1}\u{7F}1".unicodeScalars)
        var r = SeededGenerator(seed: 77)
        for round in 0..<300 {
            var d = PlistDictionary()
            for _ in 0..<Int.random(in: 2...12, using: &r) {
                var k = ""
                for _ in 0..<Int.random(in: 0...5, using: &r) { k.unicodeScalars.append(pool.randomElement(using: &r)!) }
                d[k] = 1
            }
            let value = PlistValue.dictionary(d)
            let mine = try S.ours(value, pretty: false)
            let theirs = try S.foundationJSON(value, pretty: false)
            #expect(mine == theirs, "round \(round):\nours   \(S.text(mine))\ntheirs \(S.text(theirs))")
        }
    }

    @Test func keyOrderMatchesPlutilForKeysWithOneLatin1Letter() throws {
        // Words like "café" or "Naïve": ASCII with at most one Latin-1 letter, not in first place. (Keys that start
        // with, or hold several, accented letters can differ: Core Foundation hands only some runs of a key to ICU,
        // which this does not model.)
        let ascii = Array("aAeEoOsScCdDnNuUyYzZtT1 -".unicodeScalars)
        var latin: [Unicode.Scalar] = []
        for v in 0xC0...0xFF where v != 0xD7 && v != 0xF7 && v != 0xDF { latin.append(Unicode.Scalar(UInt32(v))!) }
        latin += ["\u{152}", "\u{153}"]
        var r = SeededGenerator(seed: 78)
        var failures = 0
        for round in 0..<600 {
            var d = PlistDictionary()
            for _ in 0..<Int.random(in: 2...10, using: &r) {
                var k = ""
                let n = Int.random(in: 1...5, using: &r)
                let accented = Int.random(in: 0..<(n + 1), using: &r)  // 0 or n: none
                for p in 0..<n { k.unicodeScalars.append(p == accented && p > 0 ? latin.randomElement(using: &r)! : ascii.randomElement(using: &r)!) }
                d[k] = 1
            }
            let value = PlistValue.dictionary(d)
            let mine = try S.ours(value, pretty: false)
            let theirs = try S.foundationJSON(value, pretty: false)
            if mine != theirs {
                failures += 1
                if failures <= 5 { Issue.record("round \(round):\nours   \(S.text(mine))\ntheirs \(S.text(theirs))") }
            }
        }
        #expect(failures == 0)
    }

    @Test func realsUseSwiftShortestTextLikeJSONSerialization() throws {
        var reals: [PlistValue] = [0.1, 2.0, 1e20, 1e16, 1e-5, -0.0, 0.0, 123456789012345680, 1.5, .real(PlistReal(Double.leastNonzeroMagnitude)), 1.7976931348623157e308]
        reals += [Float(0.1), Float(1.0 / 3), Float(16_777_216), Float(3.4e38)].map { PlistValue.real(PlistReal($0)) }
        var r = SeededGenerator(seed: 5)
        for _ in 0..<2000 { reals.append(.real(PlistReal(Double(bitPattern: r.next() & 0x7FEF_FFFF_FFFF_FFFF)))) }
        let value = PlistValue.array(reals)
        #expect(try S.ours(value, pretty: false) == S.foundationJSON(value, pretty: false))
        let ints: PlistValue = [0, -1, .integer(PlistInteger(Int64.min)), .integer(PlistInteger(UInt64.max))]
        #expect(try S.ours(ints, pretty: true) == S.foundationJSON(ints, pretty: true))
    }

    @Test func prettyLayoutOfEmptyAndNestedCollections() throws {
        let value: PlistValue = ["a": [], "b": [:], "c": [[], [:], ["x": [1, "y"]]], "d": true]
        #expect(try S.ours(value, pretty: true) == S.foundationJSON(value, pretty: true))
        // The blank line inside empty collections, as JSONSerialization writes it (hand-checked against plutil -r).
        #expect(S.text(try S.ours([[]], pretty: true)) == "[\n  [\n\n  ]\n]")
        #expect(S.text(try S.ours([:], pretty: false)) == "{}")
    }

    @Test func insertionOrderWhenNotSorting() throws {
        var d = PlistDictionary()
        for k in ["z", "a", "m"] { d[k] = true }
        #expect(S.text(try S.ours(.dictionary(d), pretty: false, sortKeys: false)) == #"{"z":true,"a":true,"m":true}"#)
        #expect(S.text(try S.ours(.dictionary(d), pretty: false)) == #"{"a":true,"m":true,"z":true}"#)
    }

    @Test func valuesWithoutAJSONFormAreErrorsWithKeyPaths() throws {
        let cases: [(PlistValue, String)] = [
            (.date(PlistDate(secondsSinceReferenceDate: 0)), "date"), (.data(Data([1])), "data"), (.uid(UID(1)), "UID"),
            (.real(PlistReal(Double.nan)), "nan"), (.real(PlistReal(Double.infinity)), "inf"),
        ]
        for (bad, label) in cases {
            let value: PlistValue = ["a": [1, ["b": bad]]]
            do {
                _ = try S.ours(value, pretty: false)
                Issue.record("\(label): expected an error")
            } catch let e as PlistError {
                #expect(e.kind == .unrepresentable, "\(label)")
                #expect(e.format == .json)
                #expect(e.keyPath == KeyPath(components: ["a", "1", "b"]), "\(label): \(e)")
            }
            // JSONSerialization refuses the same value (Foundation has no public UID to try).
            if label != "UID" { #expect(!JSONSerialization.isValidJSONObject(try FoundationBridge.toFoundation(["x": bad]))) }
        }
        for root: PlistValue in ["s", 1, 1.5, true] {
            #expect(throws: PlistError.self) { _ = try S.ours(root, pretty: false) }
            #expect(!JSONSerialization.isValidJSONObject(try FoundationBridge.toFoundation(root)))
        }
    }

    @Test func depthLimit() throws {
        var value: PlistValue = []
        for _ in 0..<20 { value = [value] }
        var options = PlistWriteOptions()
        options.maxDepth = 20
        #expect(throws: PlistError.self) { _ = try PropertyList.writeBytes(value, format: .json, options: options) }
        options.maxDepth = 21
        _ = try PropertyList.writeBytes(value, format: .json, options: options)
    }

    @Test func rewritesApplePlutilPrettyOutputByteForByte() throws {
        // Corpus/json/plutil-pretty.json is the toolchain plutil's `-convert json -r` output, kept as a file.
        let url = CorpusTests.root.appendingPathComponent("json/plutil-pretty.json")
        let apple = [UInt8](try Data(contentsOf: url))
        let value = try apple.withUnsafeBytes { try PropertyList.read($0, as: .json) }
        #expect(S.text(try S.ours(value, pretty: true)) == S.text(apple))
    }

    @Test(.enabled(if: ExternalTool.toolchainPlutil != nil, "the Swift toolchain's Apple plutil was not found next to swift"))
    func matchesTheToolchainPlutilByteForByte() throws {
        let plutil = try #require(ExternalTool.toolchainPlutil)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("plistkit-json-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for seed in 0..<12 {
            // XML writes −0.0 as 0.0, so plutil sees +0.
            let value = XMLWriterFoundationTests.xmlNormalised(S.randomJSONValue(seed: 500 + UInt64(seed), unicode: false))
            let file = dir.appendingPathComponent("v\(seed).plist")
            try Data(try PropertyList.writeBytes(value, format: .xml)).write(to: file)
            let pretty = try ExternalTool.run(plutil, ["-convert", "json", "-r", "-o", "-", file.path])
            #expect(pretty.status == 0, "\(S.text([UInt8](pretty.stderr)))")
            #expect([UInt8](pretty.stdout) == (try S.ours(value, pretty: true)), "seed \(500 + seed) with -r")
            // Without -r plutil prints dictionary hash order: compare the parsed result, and the bytes when there
            // is at most one key per dictionary.
            let compact = try ExternalTool.run(plutil, ["-convert", "json", "-o", "-", file.path])
            #expect(try S.parsedByFoundation([UInt8](compact.stdout)) == S.parsedByFoundation(try S.ours(value, pretty: false)),
                    "seed \(500 + seed) without -r")
        }
        let single: PlistValue = ["k": [1, 2.5, "a/b\"\u{1}é", true, [], [:], ["n": 0.5]]]
        let file = dir.appendingPathComponent("single.plist")
        try Data(try PropertyList.writeBytes(single, format: .xml)).write(to: file)
        let compact = try ExternalTool.run(plutil, ["-convert", "json", "-o", "-", file.path])
        #expect([UInt8](compact.stdout) == (try S.ours(single, pretty: false)))
    }
}

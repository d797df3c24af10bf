import Foundation
import Testing
@testable import PlistKit

/// `.strings` files: written as Xcode writes them, read back by us and by Foundation; UTF-16 files as Xcode saves them.
@Suite struct StringsWriterTests {
    @Test func layoutAndQuoting() throws {
        let value: PlistValue = ["b": "two words", "a": "x", "": "empty key"]
        let text = OS.text(try OS.write(value, .strings))
        #expect(text == "\"\" = \"empty key\";\n\"a\" = \"x\";\n\"b\" = \"two words\";\n")
        #expect(OS.text(try OS.write([:], .strings)) == "")
    }

    @Test func roundTripsThroughUsAndFoundation() throws {
        var dict = PlistDictionary()
        // Foundation's bridge hands back Swift `String` keys, which merge "é" and "e\u{301}"; keep one of them.
        for (k, s) in OS.trickyStrings.enumerated() where s != "e\u{301}" { dict[s.isEmpty ? "k\(k)" : s] = .string(s) }
        dict["decomposed"] = "e\u{301}"
        let bytes = try OS.write(.dictionary(dict), .strings)
        let (v, f) = try PropertyList.read(bytes)
        #expect(v == .dictionary(dict))
        #expect(f == .strings)
        #expect(OS.foundation(bytes) == .dictionary(dict))
    }

    @Test(arguments: 0..<50)
    func randomStringTables(seed: Int) throws {
        var rng = RandomPlist(seed: UInt64(seed) &+ 31_337)
        var d = PlistDictionary()
        for _ in 0..<rng.int(1...20) { d[rng.string()] = .string(rng.string()) }
        let bytes = try OS.write(.dictionary(d), .strings)
        #expect(try PropertyList.read(bytes).value == .dictionary(d))
        #expect(OS.foundation(bytes) == .dictionary(d), "\(OS.text(bytes))")
    }

    @Test func onlyDictionariesOfStrings() throws {
        for bad: PlistValue in ["top", ["a"], ["k": ["nested"]], ["k": .data(Data())], ["k": ["x": "y"]]] {
            #expect(throws: PlistError.self) { try OS.write(bad, .strings) }
        }
        do {
            _ = try OS.write(["ok": "1", "n": 5], .strings)
            Issue.record("an integer was written to a strings file")
        } catch let e as PlistError {
            #expect(e.kind == .unrepresentable && e.keyPath == KeyPath(components: ["n"]) && e.format == .strings)
        }
        let lossy = try OS.write(["n": 5, "b": true], .strings, lossy: true)
        #expect(OS.foundation(lossy) == ["n": "5", "b": "YES"])
    }

    /// A strings file as Xcode saves it in UTF-16: BOM, CRLF or LF, comments before entries.
    static func xcodeUTF16(_ text: String, bigEndian: Bool) -> [UInt8] {
        var bytes: [UInt8] = bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]
        for u in text.utf16 { bytes += bigEndian ? [UInt8(u >> 8), UInt8(u & 0xFF)] : [UInt8(u & 0xFF), UInt8(u >> 8)] }
        return bytes
    }

    @Test func utf16StringsFiles() throws {
        let text = "/* Class = \"UILabel\"; text = \"Hello\"; ObjectID = \"abc-12\"; */\r\n\"abc-12.text\" = \"Héllo 💩\";\r\n\r\n"
            + "// line comment\r\n\"greeting\" = \"Grüß \\\"dich\\\"\";\r\n"
        for bigEndian in [false, true] {
            let bytes = Self.xcodeUTF16(text, bigEndian: bigEndian)
            let (v, f) = try PropertyList.read(bytes)
            #expect(f == .strings)
            #expect(v == ["abc-12.text": "Héllo 💩", "greeting": "Grüß \"dich\""])
            #expect(OS.foundation(bytes) == v)
        }
    }
}

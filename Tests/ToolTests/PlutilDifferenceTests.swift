import Foundation
import Testing

/// Where Apple's Linux `plutil` is wrong, the built tool does what the tool's help and Darwin's tool say instead.
/// Each case states Apple's behaviour and checks ours against the documented one (the differences listed in README).
@Suite(.enabled(if: ToolRunner.ours != nil, ToolRunner.oursMissing))
final class PlutilDifferenceTests {
    let dir: URL

    init() throws {
        dir = try ToolRunner.temporaryDirectory()
        try PlutilTests.populate(dir)
    }

    deinit { try? FileManager.default.removeItem(at: dir) }

    func run(_ arguments: [String], stdin: Data = Data()) throws -> ToolRunner.Result {
        try ToolRunner.runOurs(arguments, input: stdin, in: dir)
    }

    func parsedFile(_ name: String) throws -> NSObject {
        try ToolRunner.parse(Data(contentsOf: dir.appendingPathComponent(name)))
    }

    func parsedStdout(_ r: ToolRunner.Result) throws -> NSObject { try ToolRunner.parse(r.stdout) }

    /// Apple: "Unexpected character {" (its lint never reads JSON, though -convert does).
    @Test func lintAcceptsJSON() throws {
        try Data(#"{"a":[1,true]}"#.utf8).write(to: dir.appendingPathComponent("j.json"))
        let r = try run(["-lint", "j.json"])
        #expect(r.status == 0)
        #expect(r.out == "j.json: OK\n")
    }

    /// Apple inserts before the element instead of replacing it.
    @Test func replaceOverwritesArrayElements() throws {
        let r = try run(["-replace", "arr.0", "-string", "z", "-o", "-", "in.plist"])
        #expect(r.status == 0)
        let arr = try #require((try parsedStdout(r) as? NSDictionary)?["arr"] as? NSArray)
        #expect(arr == ["z", "two", [Any](), [String: Any]()] as NSArray)
    }

    /// Apple crashes with SIGILL on a date without a time.
    @Test func malformedDateIsAnError() throws {
        let r = try run(["-insert", "n", "-date", "2024-01-01", "in.plist"])
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("Invalid date value '2024-01-01'"))
    }

    /// Apple stores 12 for "12abc" and saturates at Int64.max.
    @Test func integersAreParsedStrictlyOverTheWholeRange() throws {
        let bad = try run(["-insert", "n", "-integer", "12abc", "in.plist"])
        #expect(bad.status == 1)
        #expect(bad.stderr == "Invalid integer value '12abc'\n")
        let big = try run(["-insert", "n", "-integer", "18446744073709551615", "-o", "-", "in.plist"])
        #expect(big.status == 0)
        let n = try #require((try parsedStdout(big) as? NSDictionary)?["n"] as? NSNumber)
        #expect(n.uint64Value == UInt64.max)
    }

    /// Apple prints bytes without zero padding (`0x123fa` for 01 02 03 fa).
    @Test func printPadsDataBytes() throws {
        let r = try run(["-p", "in.plist"])
        #expect(r.status == 0)
        #expect(r.out.contains("  \"da\" => {length = 4, bytes = 0x010203fa}\n"))
    }

    /// Apple's `--` sets a flag but keeps parsing options after it.
    @Test func doubleDashEndsOptions() throws {
        try FileManager.default.copyItem(at: dir.appendingPathComponent("j.plist"), to: dir.appendingPathComponent("-s"))
        let r = try run(["-lint", "--", "-s"])
        #expect(r.status == 0)
        #expect(r.out == "-s: OK\n")
    }

    /// Apple writes the result to a file named "-" in the current directory.
    @Test func standardInputWithoutOutputPathGoesToStandardOutput() throws {
        let xml = try Data(contentsOf: dir.appendingPathComponent("j.plist"))
        let r = try run(["-convert", "json", "-"], stdin: xml)
        #expect(r.status == 0)
        #expect(try parsedStdout(r) == ToolRunner.parse(xml))
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("-").path))
    }

    /// Apple leaves a name without an extension unchanged, so `-e` overwrites the input.
    @Test func extensionIsAddedWhenThereIsNone() throws {
        try FileManager.default.copyItem(at: dir.appendingPathComponent("j.plist"), to: dir.appendingPathComponent("noext"))
        let r = try run(["-convert", "json", "-e", "json", "noext"])
        #expect(r.status == 0)
        #expect(try parsedFile("noext.json") == parsedFile("noext"))
        #expect(try Data(contentsOf: dir.appendingPathComponent("noext")).starts(with: Data("<?xml".utf8)))
    }

    /// Apple indexes the array unchecked and crashes.
    @Test func appendingPastTheEndOfAnArrayIsAnError() throws {
        let r = try run(["-insert", "arr.9", "-string", "x", "-append", "in.plist"])
        #expect(r.status == 1)
        #expect(r.stderr == "in.plist: Index 9 out of bounds in array at key path arr.9\n")
    }

    /// Apple refuses an empty key path; here it is the root.
    @Test func emptyKeyPathIsTheRoot() throws {
        let r = try run(["-type", "", "in.plist"])
        #expect(r.status == 0)
        #expect(r.out == "dictionary\n")
    }

    /// Apple prints only the line; PlistKit errors carry line and column.
    @Test func lintErrorsNameLineAndColumn() throws {
        let r = try run(["-lint", "bad.plist"])
        #expect(r.status == 1)
        #expect(r.stderr.range(of: #"^bad\.plist: \(.*line 1:\d+.*\)\n$"#, options: .regularExpression) != nil, "\(r.stderr)")
    }

    /// Apple's tool holds dictionaries as Swift `[String: Any]`, whose keys compare by canonical equivalence, so
    /// `é` (U+00E9) and `e` + U+0301 collapse into one entry in `-p` and raw output.
    @Test func canonicallyEquivalentKeysStayDistinct() throws {
        let xml = "<plist><dict><key>\u{E9}</key><integer>1</integer><key>e\u{301}</key><integer>2</integer></dict></plist>"
        try Data(xml.utf8).write(to: dir.appendingPathComponent("nfc.plist"))
        let p = try run(["-p", "nfc.plist"])
        #expect(p.status == 0)
        #expect(p.out.components(separatedBy: " => ").count == 3, "\(p.out)")
        let raw = try run(["-extract", "", "raw", "nfc.plist"])
        #expect(raw.out.unicodeScalars.filter { $0 == "\n" }.count == 2, "two keys, then the final newline")
    }

    /// Apple writes `#import "-.h"` (a header that cannot exist) when the literal goes to stdout.
    @Test func objcToStandardOutputImportsNoHeader() throws {
        let r = try run(["-convert", "objc", "-"], stdin: try Data(contentsOf: dir.appendingPathComponent("lit.plist")))
        #expect(r.status == 0)
        #expect(r.out.hasPrefix("/// Generated from <stdin>\n"))
    }

    /// Apple's Swift literal is `%f`-rounded, unescaped and leaves mixed or empty collections untyped (which does
    /// not compile); ours is checked by compiling it in PlistLiteralTests. Here: the file goes next to the input.
    @Test func swiftLiteralIsWrittenBesideTheInput() throws {
        let r = try run(["-convert", "swift", "j.plist"])
        #expect(r.status == 0)
        let text = try String(contentsOf: dir.appendingPathComponent("j.swift"), encoding: .utf8)
        #expect(text.hasPrefix("/// Generated from j.plist\nlet j : [String : Any] = [\n"))
    }

    /// Apple ignores `-o` with `-create` (and overwrites the file operand); ours writes where `-o` says and leaves the
    /// operand alone, prints `raw` to stdout, and names a `swift` file by its extension.
    @Test func createHonoursTheOutputPath() throws {
        let before = try Data(contentsOf: dir.appendingPathComponent("in.plist"))
        let toStdout = try run(["-create", "xml1", "-o", "-", "in.plist"])
        #expect(toStdout.status == 0)
        #expect(try parsedStdout(toStdout) == NSDictionary())
        let toFile = try run(["-create", "xml1", "-o", "out.plist", "in.plist"])
        #expect(toFile.status == 0)
        #expect(try parsedFile("out.plist") == NSDictionary())
        #expect(try Data(contentsOf: dir.appendingPathComponent("in.plist")) == before)
        let raw = try run(["-create", "raw", "r.plist"])
        #expect(raw.status == 0 && raw.out == "\n")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("r.plist").path))
        #expect(try run(["-create", "swift", "new.plist"]).status == 0)
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("new.swift").path))
    }
}

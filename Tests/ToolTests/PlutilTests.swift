import Foundation
import Testing

/// End-to-end runs of the built `plutil` binary. Most cases are differential: the same arguments on the same files
/// (written by Foundation) in two scratch directories, one for our tool and one for the Swift toolchain's Apple
/// `plutil`, comparing exit status, stdout, stderr and any files written. Cases where Apple's Linux build is wrong
/// are checked against the documented behaviour instead (see `PlutilDifferenceTests`).
@Suite(.enabled(if: ToolRunner.ours != nil, ToolRunner.oursMissing)) struct PlutilTests {
    // MARK: Inputs

    static let date = Date(timeIntervalSince1970: 1_706_820_194)

    static func sample(withData: Bool = true, withDate: Bool = true) -> NSDictionary {
        let d = NSMutableDictionary()
        d["s"] = "hello \"q\" \\ é <&>"
        d["i"] = NSNumber(value: -42)
        d["big"] = NSNumber(value: UInt64.max)
        d["r"] = NSNumber(value: 3.25)
        d["t"] = true
        d["f"] = false
        if withDate { d["d"] = date }
        if withData { d["da"] = Data([1, 2, 3, 250]) }
        d["arr"] = [1, "two", [Any](), [String: Any]()] as NSArray
        d["dict"] = ["x": 1, "Y": 2, "a10": 3, "a9": 4, "a.b": "dot"] as NSDictionary
        return d
    }

    static let sampleKeys = ["s", "i", "big", "r", "t", "f", "d", "da", "arr", "dict"]

    /// Writes the standard inputs into `dir`: `in.plist` (everything), `nodata.plist` (no data), `j.plist` (JSON-safe),
    /// `bad.plist` (a key without a value), `lit.plist` (only what Objective-C literals print the same way in both tools).
    static func populate(_ dir: URL) throws {
        try ToolRunner.writeXML(sample(), to: dir.appendingPathComponent("in.plist"))
        try ToolRunner.writeXML(sample(withData: false), to: dir.appendingPathComponent("nodata.plist"))
        try ToolRunner.writeXML(sample(withData: false, withDate: false), to: dir.appendingPathComponent("j.plist"))
        try Data("<plist><dict><key>a</key></dict></plist>".utf8).write(to: dir.appendingPathComponent("bad.plist"))
        let literal: NSDictionary = ["a": 1, "b": ["x", true, false, -7] as NSArray, "c": ["d": "e"] as NSDictionary]
        try ToolRunner.writeXML(literal, to: dir.appendingPathComponent("lit.plist"))
    }

    enum Stdout { case bytes, parsed, ignore }
    enum Stderr { case exact, nonEmpty }

    /// Runs both tools with `arguments` in fresh directories holding the standard inputs and compares.
    static func differential(
        _ arguments: [String], stdin: Data = Data(), stdout: Stdout = .bytes, stderr: Stderr = .exact,
        files: [String] = [], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let oursDir = try ToolRunner.temporaryDirectory(), appleDir = try ToolRunner.temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: oursDir)
            try? FileManager.default.removeItem(at: appleDir)
        }
        try populate(oursDir)
        try populate(appleDir)
        let ours = try ToolRunner.runOurs(arguments, input: stdin, in: oursDir)
        let apple = try ToolRunner.runApple(arguments, input: stdin, in: appleDir)
        let label = "plutil \(arguments.joined(separator: " "))\nours:  \(ours)\napple: \(apple)"
        #expect(ours.status == apple.status, "\(label)", sourceLocation: sourceLocation)
        switch stdout {
        case .bytes:
            #expect(ours.stdout == apple.stdout, "\(label)", sourceLocation: sourceLocation)
        case .parsed:
            if apple.stdout.isEmpty {
                #expect(ours.stdout.isEmpty, "\(label)", sourceLocation: sourceLocation)
            } else {
                #expect(try ToolRunner.parse(ours.stdout) == ToolRunner.parse(apple.stdout), "\(label)",
                        sourceLocation: sourceLocation)
            }
        case .ignore:
            break
        }
        switch stderr {
        case .exact: #expect(ours.stderr == apple.stderr, "\(label)", sourceLocation: sourceLocation)
        case .nonEmpty: #expect(ours.stderr.isEmpty == apple.stderr.isEmpty, "\(label)", sourceLocation: sourceLocation)
        }
        for name in files {
            let a = try? Data(contentsOf: appleDir.appendingPathComponent(name))
            let o = try? Data(contentsOf: oursDir.appendingPathComponent(name))
            #expect((a == nil) == (o == nil), "\(name) written by only one tool; \(label)", sourceLocation: sourceLocation)
            if let a, let o {
                #expect(try ToolRunner.parse(o) == ToolRunner.parse(a), "\(name) differs; \(label)",
                        sourceLocation: sourceLocation)
            }
        }
    }

    // MARK: Command-line errors (no codec involved)

    static let argumentErrors: [[String]] = [
        [], ["-lint"], ["-convert"], ["-convert", "foo", "in.plist"], ["-bogus", "in.plist"], ["-lint", "-o", "x", "in.plist"],
        ["-lint", "-e", "x", "in.plist"], ["-p", "-o", "x", "in.plist"], ["-extract"], ["-extract", "k"],
        ["-extract", "k", "foo", "in.plist"], ["-type", "k", "-expect", "bogus", "in.plist"], ["-type", "k", "-expect"],
        ["-create"], ["-create", "foo", "x"], ["-remove"], ["-insert", "k"], ["-insert", "k", "-bogus", "v", "in.plist"],
        ["-insert", "k", "-data", "AQI", "in.plist"], ["-convert", "xml1"],
        ["-convert", "xml1", "-o"], ["-convert", "xml1", "-e"], ["-convert", "xml1", "-x", "in.plist"],
    ]

    @Test(.enabled(if: ToolRunner.apple != nil, ToolRunner.appleMissing), arguments: argumentErrors)
    func argumentErrorsMatchApple(_ arguments: [String]) throws {
        try Self.differential(arguments)
    }

    @Test func helpListsEveryVerb() throws {
        let r = try ToolRunner.runOurs(["-help"])
        #expect(r.status == 0)
        for verb in ["-lint", "-convert", "-insert", "-replace", "-remove", "-extract", "-type", "-create", "-p", "-s",
                     "-o", "-e", "-r", "-n", "--", "openstep", "gnustep", "strings"] {
            #expect(r.out.contains(" \(verb)"), "\(verb)")
        }
    }

    // MARK: Differential runs on files

    static let fileCases: [[String]] = [
        ["-lint", "in.plist"], ["in.plist"], ["-lint", "-s", "in.plist"], ["-lint", "in.plist", "nodata.plist"],
        ["-p", "nodata.plist"], ["-p", "j.plist", "nodata.plist"],
        ["-convert", "xml1", "-o", "-", "in.plist"], ["-convert", "xml1", "-o", "-", "in.plist", "j.plist"],
        ["-extract", "dict", "xml1", "-o", "-", "in.plist"], ["-extract", "i", "xml1", "-o", "-", "in.plist"],
        ["-extract", "t", "raw", "-n", "in.plist"], ["-extract", "nope", "raw", "in.plist"],
        ["-extract", "arr.9", "raw", "in.plist"], ["-extract", "dict.a\\.b", "raw", "in.plist"],
        ["-extract", "arr.1", "raw", "in.plist"], ["-extract", "arr", "raw", "-expect", "string", "in.plist"],
        ["-extract", "arr", "raw", "-expect", "array", "in.plist"],
        ["-type", "arr", "-expect", "string", "in.plist"], ["-type", "arr", "-expect", "array", "in.plist"],
        ["-type", "nope", "in.plist"], ["-type", "i", "-n", "in.plist"],
        ["-insert", "n", "-integer", "5", "-o", "-", "in.plist"], ["-insert", "arr.0", "-string", "z", "-o", "-", "in.plist"],
        ["-insert", "arr.4", "-string", "z", "-o", "-", "in.plist"], ["-insert", "arr.5", "-string", "z", "-o", "-", "in.plist"],
        ["-insert", "arr", "-bool", "YES", "-append", "-o", "-", "in.plist"], ["-insert", "x.y", "-string", "z", "in.plist"],
        ["-insert", "i", "-string", "z", "in.plist"], ["-insert", "i.z", "-string", "z", "in.plist"],
        ["-insert", "dict", "-string", "z", "-append", "in.plist"], ["-insert", "arr.q", "-string", "z", "in.plist"],
        ["-insert", "n", "-date", "2024-01-01T00:00:00Z", "-o", "-", "in.plist"],
        ["-insert", "n", "-data", "AQID", "-o", "-", "in.plist"], ["-insert", "n", "-float", "1.5", "-o", "-", "in.plist"],
        ["-insert", "n", "-dictionary", "-o", "-", "in.plist"], ["-insert", "n", "-array", "-o", "-", "in.plist"],
        ["-insert", "n", "-bool", "no", "-o", "-", "in.plist"],
        ["-insert", "n", "-xml", "<array><true/><integer>3</integer></array>", "-o", "-", "in.plist"],
        ["-replace", "dict.x", "-string", "v", "-o", "-", "in.plist"], ["-replace", "new", "-string", "v", "-o", "-", "in.plist"],
        ["-replace", "x.y", "-string", "v", "in.plist"],
        ["-remove", "arr.1", "-o", "-", "in.plist"], ["-remove", "dict.a\\.b", "-o", "-", "in.plist"],
        ["-remove", "nope", "in.plist"], ["-remove", "arr.7", "in.plist"],
        ["-create", "xml1", "-"], ["-convert", "objc", "-o", "-", "lit.plist"], ["-convert", "objc", "-o", "-", "in.plist"],
        // A `+` before an index, negative indexes, and "boolean" in -expect messages (found by a helper's probe).
        ["-type", "arr.+1", "in.plist"], ["-extract", "arr.+1", "raw", "in.plist"],
        ["-replace", "arr.-1", "-string", "v", "in.plist"], ["-insert", "arr.-1", "-string", "v", "in.plist"],
        ["-extract", "t", "raw", "-expect", "integer", "in.plist"], ["-extract", "i", "raw", "-expect", "bool", "in.plist"],
        ["-type", "t", "-expect", "string", "in.plist"],
    ]

    @Test(.enabled(if: ToolRunner.apple != nil, ToolRunner.appleMissing), arguments: fileCases)
    func filesMatchApple(_ arguments: [String]) throws {
        try Self.differential(arguments)
    }

    @Test(.enabled(if: ToolRunner.apple != nil, ToolRunner.appleMissing), arguments: sampleKeys)
    func extractRawAndTypeMatchApple(_ key: String) throws {
        try Self.differential(["-extract", key, "raw", "in.plist"])
        try Self.differential(["-type", key, "in.plist"])
        try Self.differential(["-extract", key, "xml1", "-o", "-", "in.plist"])
    }

    /// Cases whose output is compared as parsed values (JSON key order, binary layout and error wording legitimately
    /// differ) or whose error messages differ in wording only.
    static let parsedCases: [([String], Stdout, Stderr, [String])] = [
        (["-lint", "bad.plist"], .bytes, .nonEmpty, []),
        (["-lint", "in.plist", "missing.plist"], .bytes, .nonEmpty, []),
        (["-lint", "bad.plist", "in.plist"], .bytes, .nonEmpty, []),
        (["-convert", "json", "-o", "-", "j.plist"], .parsed, .exact, []),
        (["-convert", "json", "-r", "-o", "-", "j.plist"], .parsed, .exact, []),
        (["-convert", "json", "-o", "-", "in.plist"], .bytes, .nonEmpty, []),
        (["-convert", "xml1", "-e", "xml", "in.plist"], .bytes, .exact, ["in.xml", "in.plist"]),
        (["-convert", "json", "-o", "out.json", "j.plist"], .bytes, .exact, ["out.json"]),
        (["-extract", "arr", "json", "-o", "-", "in.plist"], .parsed, .exact, []),
        (["-extract", "dict", "json", "-r", "-o", "-", "in.plist"], .parsed, .exact, []),
        (["-extract", "s", "json", "-o", "-", "in.plist"], .bytes, .nonEmpty, []),
        (["-extract", "arr", "xml1", "in.plist"], .bytes, .exact, ["in.plist"]),
        (["-extract", "dict", "raw", "-o", "keys.txt", "in.plist"], .bytes, .exact, []),
        (["-insert", "n", "-string", "v", "in.plist"], .bytes, .exact, ["in.plist"]),
        (["-insert", "n", "-string", "v", "-o", "out.plist", "in.plist"], .bytes, .exact, ["out.plist", "in.plist"]),
        (["-remove", "arr", "in.plist"], .bytes, .exact, ["in.plist"]),
        (["-insert", "n", "-json", "{\"k\":[1,2.5,\"s\"]}", "-o", "-", "in.plist"], .bytes, .exact, []),
        (["-create", "xml1", "new.plist"], .bytes, .exact, ["new.plist"]),
        (["-create", "json", "-"], .bytes, .exact, []),
        (["-lint", "missing.plist"], .bytes, .nonEmpty, []),
    ]

    @Test(.enabled(if: ToolRunner.apple != nil, ToolRunner.appleMissing), arguments: 0..<parsedCases.count)
    func filesMatchAppleByValue(_ index: Int) throws {
        let (arguments, stdout, stderr, files) = Self.parsedCases[index]
        try Self.differential(arguments, stdout: stdout, stderr: stderr, files: files)
    }

    static let binaryCases: [([String], Stdout, Stderr, [String])] = [
        (["-convert", "binary1", "-o", "out.bin", "in.plist"], .bytes, .exact, ["out.bin"]),
        (["-convert", "binary1", "in.plist"], .bytes, .exact, ["in.plist"]),
        (["-create", "binary1", "new.plist"], .bytes, .exact, ["new.plist"]),
        (["-extract", "dict", "binary1", "-o", "out.bin", "in.plist"], .bytes, .exact, ["out.bin"]),
    ]

    @Test(.enabled(if: ToolRunner.apple != nil, ToolRunner.appleMissing), arguments: 0..<binaryCases.count)
    func binaryOutputMatchesAppleByValue(_ index: Int) throws {
        let (arguments, stdout, stderr, files) = Self.binaryCases[index]
        try Self.differential(arguments, stdout: stdout, stderr: stderr, files: files)
    }

    @Test(.enabled(if: ToolRunner.apple != nil, ToolRunner.appleMissing))
    func standardInputMatchesApple() throws {
        let xml = try PropertyListSerialization.data(fromPropertyList: Self.sample(withData: false), format: .xml, options: 0)
        try Self.differential(["-p", "-"], stdin: xml)
        try Self.differential(["-lint", "-"], stdin: xml)
        try Self.differential(["-convert", "xml1", "-o", "-", "-"], stdin: xml)
        try Self.differential(["-extract", "dict", "raw", "-"], stdin: xml)
        try Self.differential(["-insert", "k", "-integer", "1", "-o", "-", "-"], stdin: xml)
    }

    @Test(.enabled(if: ToolRunner.apple != nil, ToolRunner.appleMissing))
    func binaryInputMatchesApple() throws {
        let dir = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let bin = dir.appendingPathComponent("in.bin")
        // No data: Apple's -p drops the zero padding of data bytes (see PlutilDifferenceTests).
        try PropertyListSerialization.data(fromPropertyList: Self.sample(withData: false), format: .binary, options: 0)
            .write(to: bin)
        try Self.compareInputs([bin.path])
    }

    @Test(.enabled(if: ToolRunner.apple != nil, ToolRunner.appleMissing))
    func jsonInputMatchesApple() throws {
        let dir = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let json = dir.appendingPathComponent("in.json")
        try Data(#"{"a":[1,2.5,true,"x",{"b":[]}],"c":"d","e":{}}"#.utf8).write(to: json)
        try Self.compareInputs([json.path])
    }

    /// Converting to XML, printing and typing the same input give the same bytes in both tools.
    static func compareInputs(_ files: [String]) throws {
        for file in files {
            for arguments in [["-convert", "xml1", "-o", "-", file], ["-p", file], ["-type", "a", file]] {
                let ours = try ToolRunner.runOurs(arguments), apple = try ToolRunner.runApple(arguments)
                #expect(ours.status == apple.status, "\(arguments): ours \(ours) apple \(apple)")
                #expect(ours.stdout == apple.stdout, "\(arguments): ours \(ours) apple \(apple)")
            }
        }
    }

    // MARK: Our own round trips

    @Test
    func convertRoundTripsPreserveTheValue() throws {
        let dir = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.populate(dir)
        let original = try ToolRunner.parse(Data(contentsOf: dir.appendingPathComponent("j.plist")))
        for format in ["binary1", "json", "xml1", "gnustep", "binary1", "json", "xml1"] {
            let r = try ToolRunner.runOurs(["-convert", format, "j.plist"], in: dir)
            #expect(r.status == 0, "\(format): \(r)")
        }
        let final = try Data(contentsOf: dir.appendingPathComponent("j.plist"))
        #expect(try ToolRunner.parse(final) == original)
    }

    /// Extension `-lossy`: OpenStep output holds numbers and Booleans as strings only when asked; Foundation's
    /// OpenStep reader is the oracle for what was written.
    @Test
    func lossyOpenStepIsOptIn() throws {
        let dir = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input: NSDictionary = ["n": 5, "b": true, "s": "text"]
        try ToolRunner.writeXML(input, to: dir.appendingPathComponent("n.plist"))
        let refused = try ToolRunner.runOurs(["-convert", "openstep", "-o", "-", "n.plist"], in: dir)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("-lossy"), "\(refused)")
        let r = try ToolRunner.runOurs(["-convert", "openstep", "-lossy", "-o", "-", "n.plist"], in: dir)
        #expect(r.status == 0, "\(r)")
        let read = try PropertyListSerialization.propertyList(from: Data(r.out.utf8), format: nil) as? [String: String]
        #expect(read == ["n": "5", "b": "YES", "s": "text"])
    }

    /// OpenStep, GNUstep and .strings output (no Apple counterpart: its tool cannot write them) read back to the same
    /// value; the value is checked with Foundation, whose reader understands OpenStep and .strings text.
    @Test
    func textFormatsRoundTrip() throws {
        let dir = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let strings: NSDictionary = ["key": "value", "quote \"q\"": "line\nbreak", "é": "ü"]
        let nested: NSDictionary = ["a": ["x", "y"] as NSArray, "b": ["c": "d"] as NSDictionary, "e": Data([1, 2, 255])]
        try ToolRunner.writeXML(strings, to: dir.appendingPathComponent("strings.plist"))
        try ToolRunner.writeXML(nested, to: dir.appendingPathComponent("nested.plist"))
        for (file, format, original) in [("strings.plist", "strings", strings), ("strings.plist", "openstep", strings),
                                         ("nested.plist", "openstep", nested)] {
            let r = try ToolRunner.runOurs(["-convert", format, "-o", "-", file], in: dir)
            #expect(r.status == 0, "\(format): \(r)")
            #expect(try ToolRunner.parse(r.stdout) == original, "\(format): \(r.out)")
        }
        // GNUstep text keeps types Foundation cannot read back, so it round-trips through our own tool.
        try Self.populate(dir)
        for step in [["-convert", "gnustep", "j.plist"], ["-convert", "xml1", "j.plist"]] {
            let r = try ToolRunner.runOurs(step, in: dir)
            #expect(r.status == 0, "\(step): \(r)")
        }
        let back = try ToolRunner.parse(Data(contentsOf: dir.appendingPathComponent("j.plist")))
        #expect(back == Self.sample(withData: false, withDate: false))
    }

    @Test
    func exitStatusIsOneWhenAnyFileFails() throws {
        let dir = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try Self.populate(dir)
        let r = try ToolRunner.runOurs(["-lint", "in.plist", "bad.plist", "nodata.plist"], in: dir)
        #expect(r.status == 1)
        #expect(r.out == "in.plist: OK\nnodata.plist: OK\n")
        #expect(r.stderr.hasPrefix("bad.plist: ("))
        #expect(r.stderr.contains("line 1"), "lint errors name the line: \(r.stderr)")
    }
}

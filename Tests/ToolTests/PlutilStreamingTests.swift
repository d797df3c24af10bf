import Foundation
import Testing
import TestSupport

/// `plutil -convert` to a text format streams: the output is written as the input is read. What must not change:
/// the bytes (Foundation's, made in the test), a failure leaving the file and standard output as they were, and
/// Apple's message for a scalar converted to JSON.
@Suite(.enabled(if: ToolRunner.ours != nil, ToolRunner.oursMissing)) struct PlutilStreamingTests {
    /// A dictionary whose XML is several MiB: the streamed output goes out in many buffers.
    static var big: NSDictionary {
        NSDictionary(dictionary: Dictionary(uniqueKeysWithValues: (0..<40_000).map {
            ("key \($0)", ["name": "track \($0)", "size": $0 * 7, "played": $0 % 2 == 0] as NSDictionary)
        }))
    }

    @Test func aLargeFileConvertedInPlaceIsFoundationsXML() throws {
        let dir = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("library.plist")
        try PropertyListSerialization.data(fromPropertyList: Self.big, format: .binary, options: 0).write(to: input)
        let expected = try PropertyListSerialization.data(fromPropertyList: Self.big, format: .xml, options: 0)
        #expect(expected.count > 2 << 20)
        let r = try ToolRunner.runOurs(["-convert", "xml1", input.path])
        #expect(r.status == 0, "\(r)")
        #expect(try Data(contentsOf: input) == expected)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["library.plist"])
    }

    /// The syntax error sits after megabytes of good input, so output has been made when it is found.
    @Test(arguments: ["json", "xml1", "openstep"])
    func aLateReadErrorLeavesTheFileAndStandardOutputAsTheyWere(_ format: String) throws {
        let dir = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("broken.plist")
        var bytes = try PropertyListSerialization.data(fromPropertyList: Self.big, format: .xml, options: 0)
        let close = try #require(bytes.range(of: Data("</dict>\n</plist>".utf8), options: .backwards))
        bytes.replaceSubrange(close, with: Data("<integer>1</integer></dict></plist>".utf8))
        try bytes.write(to: input)

        var r = try ToolRunner.runOurs(["-convert", format, input.path])
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains("broken.plist: ("), "\(r)")
        #expect(try Data(contentsOf: input) == bytes)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["broken.plist"], "no temporary file left")

        r = try ToolRunner.runOurs(["-convert", format, "-o", "-", input.path])
        #expect(r.status == 1, "\(r)")
        #expect(r.stdout.isEmpty, "nothing reaches standard output from a failed conversion")

        r = try ToolRunner.runOurs(["-convert", format, "-o", dir.appendingPathComponent("new.plist").path, input.path])
        #expect(r.status == 1, "\(r)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["broken.plist"], "no output file made")
    }

    /// `-p` of a file past 8 MiB prints as it is read, without its tree: byte for byte what Apple's tool prints, in
    /// XML and binary (ASCII keys, where the key orders agree exactly).
    @Test(.enabled(if: ToolRunner.apple != nil, ToolRunner.appleMissing), arguments: [PropertyListSerialization.PropertyListFormat.xml, .binary])
    func printingALargeFileIsApplesText(_ format: PropertyListSerialization.PropertyListFormat) throws {
        let dir = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("library.plist")
        let library = NSDictionary(dictionary: Dictionary(uniqueKeysWithValues: (0..<90_000).map {
            ("\($0)", ["Name": "Track \($0) of the library", "Size": $0 * 7, "Played": $0 % 2 == 0, "Ratio": 0.5 + Double($0)] as NSDictionary)
        }))
        try PropertyListSerialization.data(fromPropertyList: library, format: format, options: 0).write(to: input)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: input.path)[.size] as? Int)
        #expect(format == .binary || size > 8 << 20, "\(size) bytes: past the streaming threshold")
        let ours = try ToolRunner.runOurs(["-p", input.path])
        let apple = try ToolRunner.runApple(["-p", input.path])
        #expect(ours.status == 0 && apple.status == 0, "\(ours.stderr) / \(apple.stderr)")
        #expect(ours.stdout.count > 8 << 20)
        #expect(ours.stdout == apple.stdout)
    }

    @Test func aScalarHasNoJSONFormAsApplesToolSays() throws {
        let dir = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("s.plist")
        try ToolRunner.writeXML("just a string" as NSString, to: input)
        let before = try Data(contentsOf: input)
        let r = try ToolRunner.runOurs(["-convert", "json", input.path])
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr == "\(input.path): Invalid object in plist for JSON format\n", "\(r)")
        #expect(try Data(contentsOf: input) == before)
    }

    /// A value JSON cannot hold, deep in a large file: the writer's message with its key path, and nothing written.
    @Test func aDateDeepInsideIsRefusedWithItsKeyPath() throws {
        let dir = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("dated.plist")
        let dated = Self.big.mutableCopy() as! NSMutableDictionary
        dated["zzz"] = ["when": Date(timeIntervalSinceReferenceDate: 0)] as NSDictionary
        try PropertyListSerialization.data(fromPropertyList: dated, format: .binary, options: 0).write(to: input)
        let before = try Data(contentsOf: input)
        let r = try ToolRunner.runOurs(["-convert", "json", input.path])
        #expect(r.status == 1, "\(r)")
        #expect(r.stderr.contains("a date has no JSON form"), "\(r)")
        #expect(r.stderr.contains("zzz.when"), "\(r)")
        #expect(try Data(contentsOf: input) == before)
    }
}

import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// `plutil -convert swift|objc`. Oracle for Swift: the Swift compiler — the literal is compiled, run, and the value it
/// builds is serialized by Foundation and compared with the input. Objective-C cannot be compiled here (no Foundation
/// headers on Linux), so its escaping is checked against the C string-literal rules.
@Suite struct PlistLiteralTests {
    static var swiftc: String? { ExternalTool.find("swiftc") }

    @Test(.enabled(if: swiftc != nil, "swiftc is needed to compile the generated literal"))
    func swiftLiteralCompilesAndRebuildsTheValue() throws {
        var config = RandomPlist.Config()
        config.uids = false
        config.float32 = false
        config.negativeZero = false  // the Foundation serializer used to compare writes -0.0 as 0.0
        config.dateYears = 1971...2100
        var random = RandomPlist(seed: 7, config: config)
        var document = PlistDictionary()
        for i in 0..<6 { document["k\(i) \"é\\\n"] = random.value(depth: 1) }
        document["empty array"] = .array([])
        document["empty dict"] = .dictionary(PlistDictionary())
        document["mixed"] = [1, "two", 3.5, true]
        let value = PlistValue.dictionary(document)

        let literal = try PlistLiteral.swift(value, sourceName: "dir/my-file name.plist")
        #expect(literal.hasPrefix("/// Generated from my-file name.plist\nlet my_file_name : [String : Any] = [\n"))
        #expect(try Self.compileAndSerialize(literal, value: "my_file_name") == value)
    }

    /// Compiles `literals` with a `main` that serializes the expression `value` with Foundation, runs it, and reads
    /// the result back.
    static func compileAndSerialize(_ literals: String, value: String) throws -> PlistValue {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("literal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let program = """
            import Foundation
            \(literals)
            let out = try PropertyListSerialization.data(fromPropertyList: \(value), format: .binary, options: 0)
            FileHandle.standardOutput.write(out)
            """
        let source = dir.appendingPathComponent("main.swift")
        try Data(program.utf8).write(to: source)
        let binary = dir.appendingPathComponent("literal").path
        let compile = try ExternalTool.run(try #require(swiftc), ["-o", binary, source.path])
        try #require(compile.status == 0, "\(String(decoding: compile.stderr, as: UTF8.self))")
        let run = try ExternalTool.run(binary, [])
        try #require(run.status == 0)
        return try FoundationBridge.fromFoundation(PropertyListSerialization.propertyList(from: run.stdout, options: [], format: nil))
    }

    /// What the compile test above does not reach: a file named like a keyword, integers at both 64-bit ends and
    /// scalar roots (Apple's tool writes `let t = true`). Compiled and run; Foundation serializes what it builds.
    @Test(.enabled(if: swiftc != nil, "swiftc is needed to compile the generated literal"))
    func keywordNamesExtremeIntegersAndScalarRootsCompile() throws {
        let dictionary: PlistValue = ["max": .integer(PlistInteger(UInt64.max)), "min": .integer(PlistInteger(Int64.min))]
        let literals = [
            try PlistLiteral.swift(dictionary, sourceName: "class.plist"),
            try PlistLiteral.swift(true, sourceName: "t.plist"),
            try PlistLiteral.swift("text", sourceName: "default.plist"),
            try PlistLiteral.swift(.integer(PlistInteger(UInt64.max)), sourceName: "big.plist"),
        ]
        #expect(literals[0].contains("let `class` : [String : Any] = ["))
        #expect(literals[1] == "/// Generated from t.plist\nlet t = true\n")
        let rebuilt = try Self.compileAndSerialize(literals.joined(separator: "\n"), value: "[`class`, t, `default`, big] as [Any]")
        #expect(rebuilt == [dictionary, true, "text", .integer(PlistInteger(UInt64.max))])
        #expect(throws: PlistError.self) { try PlistLiteral.swift([.uid(UID(1))], sourceName: "a.plist") }
    }

    /// C has no negative literals and no signed one past INT64_MAX; keywords and Foundation's macros cannot name the
    /// constant (the C rules, as clang applies them; no Objective-C compiler here).
    @Test func objcKeywordNamesAndExtremeIntegers() throws {
        let value: PlistValue = [.integer(PlistInteger(UInt64.max)), .integer(PlistInteger(Int64.min)), -5]
        let text = try PlistLiteral.objc(value, sourceName: "default.plist", outputName: "-")
        #expect(text.contains("NSArray * const default_ = @[\n"))
        #expect(text.contains("    @18446744073709551615ULL,\n    @(-9223372036854775807LL - 1),\n    @-5,\n"))
        #expect(try PlistLiteral.objc(true, sourceName: "YES.plist", outputName: "-").contains("NSNumber * const YES_ = @YES;"))
        #expect(try PlistLiteral.objc(true, sourceName: "true.plist", outputName: "-").contains("NSNumber * const true_ = @YES;"))
    }

    @Test func objcLiteralShapeAndEscaping() throws {
        let value: PlistValue = ["b": [true, 2, 2.5], "a\"\\\n\u{1}7": "x"]
        let text = try PlistLiteral.objc(value, sourceName: "in.plist", outputName: "-")
        #expect(text == """
            /// Generated from in.plist
            __attribute__((visibility("hidden")))
            NSDictionary * const in = @{
                @"a\\"\\\\\\n\\0017" : @"x",
                @"b" : @[
                    @YES,
                    @2,
                    @2.5,
                ],
            };

            """)
        let withImport = try PlistLiteral.objc(value, sourceName: "in.plist", outputName: "out/in.m")
        #expect(withImport.hasPrefix("#import \"in.h\"\n\n/// Generated from in.plist\n"))
        #expect(try PlistLiteral.objcHeader(value, sourceName: "in.plist") == """
            #import <Foundation/Foundation.h>

            /// Generated from in.plist
            __attribute__((visibility("hidden")))
            extern NSDictionary * const in;

            """)
        #expect(throws: PlistError.self) {
            try PlistLiteral.objc(["d": .date(PlistDate(secondsSinceReferenceDate: 0))], sourceName: "a", outputName: "-")
        }
    }

    @Test func identifiersFromFileNames() {
        #expect(PlistLiteral.identifier(from: "a/b/Info.plist") == "Info")
        #expect(PlistLiteral.identifier(from: "my-file name.plist") == "my_file_name")
        #expect(PlistLiteral.identifier(from: "1st.plist") == "_1st")
        #expect(PlistLiteral.identifier(from: "a+b.json") == "a_b")
    }
}

import Foundation
import Testing
@testable import PlistKit

/// The edit checklist of `xcode-projects.md` §8 on the real projects: each expected diff comes from the spec's
/// rules (§1–§4, §7), written out here line by line.
@Suite(.enabled(if: XcodeFixtures.available, XcodeFixtures.skipReason)) struct XcodeEditTests {
    func document(_ name: String) throws -> (PlistTextDocument, [String]) {
        let bytes = try XcodeFixtures.bytes(name)
        return (try PlistTextDocument(bytes, projectName: XcodeFixtures.projectName(name)), TextDiff.lines(bytes))
    }

    @Test func settingABuildSettingChangesItsLine() throws {
        var (doc, old) = try document("BuildSettings")
        let objects = try #require(doc.value["objects"]?.dictionaryValue)
        let id = try #require(objects.first { $0.value["buildSettings"]?["SWIFT_OPTIMIZATION_LEVEL"] == "-O" }?.key)
        try doc.replace("macosx", at: KeyPath(components: ["objects", id, "buildSettings", "SDKROOT"]))
        let new = TextDiff.lines(doc.bytes)
        #expect(TextDiff.changedLines(old, new) == [96])
        #expect(new[95] == "\t\t\t\tSDKROOT = macosx;")
        #expect(old[95] == "\t\t\t\tSDKROOT = iphoneos;")
    }

    @Test func settingAValueToItselfChangesNothing() throws {
        for name in XcodeFixtures.names {
            let bytes = try XcodeFixtures.bytes(name)
            var doc = try PlistTextDocument(bytes)
            let objects = try #require(doc.value["objects"]?.dictionaryValue)
            for (id, object) in objects.prefix(40) {
                for (key, v) in object.dictionaryValue ?? [:] {
                    try doc.replace(v, at: KeyPath(components: ["objects", id, key]))
                }
            }
            #expect(doc.bytes == bytes, "\(name)")
        }
    }

    @Test func insertingAKeyIntoAFlatObject() throws {
        var (doc, old) = try document("Project")
        try doc.insert("4", at: "objects.04D5C0A01F153915008A2F98.fileEncoding")
        let new = TextDiff.lines(doc.bytes)
        #expect(TextDiff.changedLines(old, new) == [62])
        #expect(new[61] == "\t\t04D5C0A01F153915008A2F98 /* Public.h */ = {isa = PBXFileReference; fileEncoding = 4; lastKnownFileType = sourcecode.c.h; path = Public.h; sourceTree = \"<group>\"; };")
    }

    @Test func addingABuildFileToASourcesPhase() throws {
        var (doc, old) = try document("AFNetworking")
        let objects = try #require(doc.value["objects"]?.dictionaryValue)
        // The Sources phase that lists the first build file of AFImageResponseSerializerTests.m.
        let phase = try #require(objects.first {
            $0.value["isa"] == "PBXSourcesBuildPhase" && ($0.value["files"]?.arrayValue ?? []).contains("1BF9F9601C87832B00F1F35A")
        })
        let files = try #require(phase.value["files"]?.arrayValue)
        let newID = "1BF9F9601C87832B00F1F35B"
        try doc.insert(["isa": "PBXBuildFile", "fileRef": "1BF9F95F1C87832B00F1F35A"], at: KeyPath(components: ["objects", newID]))
        try doc.insert(.string(newID), at: KeyPath(components: ["objects", phase.key, "files", String(files.count)]))
        let new = TextDiff.lines(doc.bytes)
        #expect(new.count == old.count + 2)
        let objectLine = "\t\t\(newID) /* AFImageResponseSerializerTests.m in Sources */ = {isa = PBXBuildFile; fileRef = 1BF9F95F1C87832B00F1F35A /* AFImageResponseSerializerTests.m */; };"
        let elementLine = "\t\t\t\t\(newID) /* AFImageResponseSerializerTests.m in Sources */,"
        // The object right after the build file whose ID precedes it (line 10), the element as the phase's last.
        #expect(new[10] == objectLine)
        let element = try #require(new.firstIndex(of: elementLine))
        var without = new
        without.remove(at: element)
        without.remove(at: 10)
        #expect(without == old)
        #expect(new[element + 1].hasPrefix("\t\t\t);"))
        #expect(try PropertyList.read(doc.bytes).value == doc.value)
    }

    @Test func removingTheOnlyObjectOfASectionRemovesTheSection() throws {
        var (doc, old) = try document("ProjectWithSwiftPackageTraits")
        try doc.remove(at: "objects.C9FDF5C52AD604310096A37A")
        var expected = old
        expected.removeSubrange(546..<556)  // lines 547 (empty) … 556 (End)
        #expect(TextDiff.lines(doc.bytes) == expected)
    }

    @Test func addingTheFirstShellScriptPhaseMakesItsSection() throws {
        var (doc, old) = try document("Test")
        let id = "A4C530FF2CAAC8EA00EDC73B"
        let phase: PlistValue = [
            "isa": "PBXShellScriptBuildPhase", "buildActionMask": "2147483647", "files": [],
            "runOnlyForDeploymentPostprocessing": "0", "shellPath": "/bin/sh", "shellScript": "echo hi\n",
        ]
        try doc.insert(phase, at: KeyPath(components: ["objects", id]))
        var expected = old
        expected.insert(contentsOf: [
            "",
            "/* Begin PBXShellScriptBuildPhase section */",
            "\t\t\(id) /* ShellScript */ = {",
            "\t\t\tisa = PBXShellScriptBuildPhase;",
            "\t\t\tbuildActionMask = 2147483647;",
            "\t\t\tfiles = (",
            "\t\t\t);",
            "\t\t\trunOnlyForDeploymentPostprocessing = 0;",
            "\t\t\tshellPath = /bin/sh;",
            "\t\t\tshellScript = \"echo hi\\n\";",
            "\t\t};",
            "/* End PBXShellScriptBuildPhase section */",
        ], at: 115)  // after line 115, the End of PBXResourcesBuildPhase
        #expect(TextDiff.lines(doc.bytes) == expected)
        #expect(old[114] == "/* End PBXResourcesBuildPhase section */")
    }

    @Test func removingEveryKnownRegionLeavesAnEmptyMultiLineArray() throws {
        var (doc, old) = try document("Test")
        let project = try #require(doc.value["rootObject"]?.stringValue)
        try doc.remove(at: KeyPath(components: ["objects", project, "knownRegions", "1"]))
        try doc.remove(at: KeyPath(components: ["objects", project, "knownRegions", "0"]))
        var expected = old
        expected.removeSubrange(91..<93)  // lines 92–93
        #expect(TextDiff.lines(doc.bytes) == expected)
        #expect(expected[90] == "\t\t\tknownRegions = (" && expected[91] == "\t\t\t);")
    }

    @Test func renamingAFileRewritesTheCommentsThatNameIt() throws {
        var (doc, old) = try document("AFNetworking")
        try doc.insert("Renamed.m", at: "objects.1BF9F95F1C87832B00F1F35A.name")
        let new = TextDiff.lines(doc.bytes)
        #expect(TextDiff.changedLines(old, new) == [10, 11, 12, 227, 440, 962, 984, 1008])
        #expect(new[226] == "\t\t1BF9F95F1C87832B00F1F35A /* Renamed.m */ = {isa = PBXFileReference; fileEncoding = 4; lastKnownFileType = sourcecode.c.objc; name = Renamed.m; path = AFImageResponseSerializerTests.m; sourceTree = \"<group>\"; };")
        #expect(new[9] == "\t\t1BF9F9601C87832B00F1F35A /* Renamed.m in Sources */ = {isa = PBXBuildFile; fileRef = 1BF9F95F1C87832B00F1F35A /* Renamed.m */; };")
        #expect(new[439] == "\t\t\t\t1BF9F95F1C87832B00F1F35A /* Renamed.m */,")
        #expect(new[961] == "\t\t\t\t1BF9F9621C87843300F1F35A /* Renamed.m in Sources */,")
    }

    @Test func everyFixtureSettingChangesExactlyItsLine() throws {
        for name in XcodeFixtures.names {
            var (doc, old) = try document(name)
            let objects = try #require(doc.value["objects"]?.dictionaryValue)
            guard let config = objects.first(where: { $0.value["isa"] == "XCBuildConfiguration" }),
                  let settings = config.value["buildSettings"]?.dictionaryValue,
                  let setting = settings.first(where: { $0.value.stringValue != nil }) else { continue }
            let path = KeyPath(components: ["objects", config.key, "buildSettings", setting.key])
            let node = try #require(doc.node(at: path.components[...]))
            let line = TextDiff.line(of: Int(doc.nodes[node].start), in: doc.bytes)
            try doc.replace("X", at: path)
            let new = TextDiff.lines(doc.bytes)
            #expect(TextDiff.changedLines(old, new) == [line], "\(name)")
            let quotedKey = String(decoding: XcodeQuoting.quoted(setting.key), as: UTF8.self)
            #expect(new[line - 1] == "\t\t\t\t\(quotedKey) = X;", "\(name)")
        }
    }
}

import Foundation
import PlistKit
import Testing
import TestSupport

/// `plutil -insert/-replace/-remove` on OpenStep and XML files edit the text in place; `-convert xcode` writes Xcode's
/// layout; `-lint` names merge-conflict markers. Expected bytes follow the rules of `xcode-projects.md` and the files'
/// own layout.
@Suite struct PlutilTextEditTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("../shared/fixtures/xcode-projects").standardizedFileURL
    static var fixtureNames: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: fixtures.path)) ?? []).filter { $0.hasSuffix(".xcodeproj") }
            .map { String($0.dropLast(10)) }.sorted()
    }

    static func run(_ arguments: [String]) -> (status: Int32, io: RecordingIO) {
        let recording = RecordingIO(input: [])
        return (PlutilCommand.run(arguments, programName: "plutil", io: recording.io), recording)
    }

    /// A scratch folder for one test.
    static func scratch() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("plutil-text-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A scratch folder holding `App.xcodeproj/`, and the path of its `project.pbxproj` (not yet written).
    static func scratchProject() throws -> (directory: URL, file: URL) {
        let dir = try scratch()
        let folder = dir.appendingPathComponent("App.xcodeproj")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return (dir, folder.appendingPathComponent("project.pbxproj"))
    }

    static func lines(_ data: Data) -> [String] {
        String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    @Test func openStepEditsKeepCommentsAndLayout() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("settings.plist")
        let original = "// written by hand\n{\n  alpha = one; /* the first */\n  gamma = ( x, y );\n  zeta = \"last one\";\n}\n"
        try Data(original.utf8).write(to: file)
        #expect(Self.run(["-replace", "alpha", "-string", "two", file.path]).status == 0)
        #expect(Self.run(["-insert", "beta", "-string", "a b", file.path]).status == 0)
        #expect(Self.run(["-insert", "gamma.2", "-string", "z", file.path]).status == 0)
        #expect(Self.run(["-remove", "zeta", file.path]).status == 0)
        let expected = "// written by hand\n{\n  alpha = two; /* the first */\n  beta = \"a b\";\n  gamma = ( x, y, z );\n}\n"
        #expect(String(decoding: try Data(contentsOf: file), as: UTF8.self) == expected)
        // A failed edit leaves the file as it was, with plutil's message.
        let failed = Self.run(["-insert", "alpha", "-string", "again", file.path])
        #expect(failed.status == 1 && failed.io.errorText.contains("Value already exists at key path alpha"))
        #expect(String(decoding: try Data(contentsOf: file), as: UTF8.self) == expected)
    }

    /// An Xcode project whose text cannot take an edit (UTF-16, where edits in place are refused) is rewritten in
    /// Xcode's layout, not as plain OpenStep: it stays an Xcode project (header, sections, comments), with the edit.
    @Test func anXcodeProjectTheTextCannotEditIsRewrittenInXcodesLayout() throws {
        let (dir, file) = try Self.scratchProject()
        defer { try? FileManager.default.removeItem(at: dir) }
        var project = PlistValue.dictionary([
            "archiveVersion": "1", "classes": [:], "objectVersion": "56", "rootObject": "P",
            "objects": [
                "P": ["isa": "PBXProject", "buildConfigurationList": "L", "mainGroup": "G", "targets": []],
                "L": ["isa": "XCConfigurationList", "buildConfigurations": ["C"]],
                "C": ["isa": "XCBuildConfiguration", "name": "Debug", "buildSettings": ["SDKROOT": "iphoneos"]],
                "G": ["isa": "PBXGroup", "children": [], "sourceTree": "<group>"],
            ],
        ])
        let xcode = try XcodeProjectWriter.write(project, projectName: "App")
        let utf16 = Array(String(decoding: xcode, as: UTF8.self).utf16)
        try Data([0xFF, 0xFE] + utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }).write(to: file)
        #expect(Self.run(["-replace", "objects.C.buildSettings.SDKROOT", "-string", "macosx", file.path]).status == 0)
        try project.replace("macosx", at: "objects.C.buildSettings.SDKROOT")
        #expect(Array(try Data(contentsOf: file)) == (try XcodeProjectWriter.write(project, projectName: "App")))
    }

    /// When neither the text nor Xcode's layout can hold an edit (an isa holding `*/` would end a section marker's
    /// comment), the file is rewritten in its plain format: it still reads, to the edited value.
    @Test func anEditNoLayoutCanHoldStillLeavesAReadableFile() throws {
        let (dir, file) = try Self.scratchProject()
        defer { try? FileManager.default.removeItem(at: dir) }
        var project = PlistValue.dictionary([
            "archiveVersion": "1", "classes": [:], "objectVersion": "56", "rootObject": "P",
            "objects": ["P": ["isa": "PBXProject", "mainGroup": "G", "targets": []], "G": ["isa": "PBXGroup", "children": []]],
        ])
        try Data(XcodeProjectWriter.write(project, projectName: "App")).write(to: file)
        let result = Self.run(["-insert", "objects.W", "-json", "{\"isa\":\"PBXWeird*/Thing\",\"name\":\"w\"}", file.path])
        #expect(result.status == 0, "\(result.io.errorText)")
        try project.insert(["isa": "PBXWeird*/Thing", "name": "w"], at: "objects.W")
        #expect(try PropertyList.read(Array(Data(contentsOf: file))).value == project)
    }

    @Test func xmlEditsKeepCommentsCDATAAndCharacterReferences() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("Info.plist")
        let head = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n<plist version=\"1.0\">\n<!-- kept -->\n<dict>\n"
        let original = head + "\t<key>Name</key>\n\t<string>A &amp; B &#x41;</string>\n\t<!-- also kept -->\n\t<key>Script</key>\n\t<string><![CDATA[echo <hi>]]></string>\n\t<key>Zed</key>\n\t<array>\n\t\t<integer>1</integer>\n\t</array>\n</dict>\n</plist>\n"
        try Data(original.utf8).write(to: file)
        #expect(Self.run(["-replace", "Name", "-string", "C & D", file.path]).status == 0)
        #expect(Self.run(["-insert", "Other", "-integer", "5", file.path]).status == 0)
        #expect(Self.run(["-insert", "Zed", "-integer", "2", "-append", file.path]).status == 0)
        let expected = head + "\t<key>Name</key>\n\t<string>C &amp; D</string>\n\t<!-- also kept -->\n\t<key>Other</key>\n\t<integer>5</integer>\n\t<key>Script</key>\n\t<string><![CDATA[echo <hi>]]></string>\n\t<key>Zed</key>\n\t<array>\n\t\t<integer>1</integer>\n\t\t<integer>2</integer>\n\t</array>\n</dict>\n</plist>\n"
        #expect(String(decoding: try Data(contentsOf: file), as: UTF8.self) == expected)
        #expect(Self.run(["-remove", "Script", file.path]).status == 0)
        let removed = expected.replacingOccurrences(of: "\t<key>Script</key>\n\t<string><![CDATA[echo <hi>]]></string>\n", with: "")
        #expect(String(decoding: try Data(contentsOf: file), as: UTF8.self) == removed)
    }

    @Test(.enabled(if: !fixtureNames.isEmpty, "../shared/fixtures/xcode-projects is absent"))
    func replacingASettingInEveryFixtureChangesExactlyThatLine() throws {
        for name in Self.fixtureNames {
            let dir = try Self.scratch()
            defer { try? FileManager.default.removeItem(at: dir) }
            let folder = dir.appendingPathComponent("\(name).xcodeproj")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let file = folder.appendingPathComponent("project.pbxproj")
            let original = try Data(contentsOf: Self.fixtures.appendingPathComponent("\(name).xcodeproj/project.pbxproj"))
            try original.write(to: file)
            // The first configuration's first string setting, found in the file's text.
            let old = Self.lines(original)
            guard let begin = old.firstIndex(of: "/* Begin XCBuildConfiguration section */"),
                  let settingLine = old[begin...].firstIndex(where: { $0.hasPrefix("\t\t\t\t") && $0.hasSuffix(";") && !$0.hasSuffix("(") && $0.contains(" = ") }),
                  let configLine = old[begin...].firstIndex(where: { $0.hasPrefix("\t\t") && $0.hasSuffix(" = {") }) else { continue }
            let id = String(old[configLine].dropFirst(2).prefix { $0 != " " })
            var key = String(old[settingLine].dropFirst(4).prefix { $0 != " " })
            if key.hasPrefix("\"") { key = String(key.dropFirst().dropLast()) }
            let keyPath = "objects.\(id).buildSettings.\(key.replacingOccurrences(of: ".", with: "\\."))"
            let run = Self.run(["-replace", keyPath, "-string", "X", file.path])
            #expect(run.status == 0, "\(name): \(run.io.errorText)")
            let new = Self.lines(try Data(contentsOf: file))
            #expect(new.count == old.count, "\(name)")
            let changed = old.indices.filter { $0 < new.count && old[$0] != new[$0] }
            #expect(changed == [settingLine], "\(name)")
            let quotedKey = old[settingLine].dropFirst(4).prefix { $0 != " " }
            #expect(new[settingLine] == "\t\t\t\t\(quotedKey) = X;", "\(name)")
        }
    }

    @Test(.enabled(if: !fixtureNames.isEmpty, "../shared/fixtures/xcode-projects is absent"))
    func convertingEveryCurrentFixtureToXcodeGivesItsBytes() throws {
        for name in Self.fixtureNames {
            let file = Self.fixtures.appendingPathComponent("\(name).xcodeproj/project.pbxproj")
            let run = Self.run(["-convert", "xcode", "-o", "-", file.path])
            #expect(run.status == 0, "\(name)")
            let original = [UInt8](try Data(contentsOf: file))
            // `Cocoa Application`'s comments name the project it was copied from (the fixtures' README).
            if name == "Cocoa Application" {
                #expect(run.io.output != original)
                let named = Self.run(["-convert", "xcode", "-projectname", "Cocoa Application Without productRefGroup", "-o", "-", file.path])
                #expect(named.io.output == original, "\(name)")
            } else {
                #expect(run.io.output == original, "\(name)")
            }
        }
        // From XML, a project's value gives the same text.
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        if let name = Self.fixtureNames.first(where: { $0 == "Project" }) {
            let source = Self.fixtures.appendingPathComponent("\(name).xcodeproj/project.pbxproj")
            let xml = dir.appendingPathComponent("project.xml")
            #expect(Self.run(["-convert", "xml1", "-o", xml.path, source.path]).status == 0)
            let back = Self.run(["-convert", "xcode", "-projectname", name, "-o", "-", xml.path])
            #expect(back.io.output == [UInt8](try Data(contentsOf: source)))
        }
    }

    @Test func lintNamesMergeConflictMarkers() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("project.pbxproj")
        let text = "// !$*UTF8*$!\n{\n\tobjects = {\n<<<<<<< HEAD\n\t\tA = {isa = PBXFileReference; path = a.m; };\n=======\n\t\tB = {isa = PBXFileReference; path = b.m; };\n>>>>>>> feature\n\t};\n}\n"
        try Data(text.utf8).write(to: file)
        let run = Self.run(["-lint", file.path])
        #expect(run.status == 1)
        #expect(run.io.errorText.contains("line 4:1"), "\(run.io.errorText)")
        #expect(run.io.errorText.contains("merge conflict"), "\(run.io.errorText)")
        // A quoted string holding marker-like lines in a file that reads is no conflict.
        let fine = "{\n\ta = \"x\n<<<<<<< y\n=======\n>>>>>>> z\";\n}\n"
        try Data(fine.utf8).write(to: file)
        #expect(Self.run(["-lint", file.path]).status == 0)
    }
}

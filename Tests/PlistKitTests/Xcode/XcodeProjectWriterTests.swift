import Foundation
import Testing
@testable import PlistKit

/// The Xcode writer against the real projects: each fixture's value, written in Xcode's style with the project's
/// name, must be the fixture's bytes.
@Suite struct XcodeProjectWriterTests {
    @Test(.enabled(if: XcodeFixtures.available, XcodeFixtures.skipReason))
    func writesEveryFixtureByteForByte() throws {
        var identical: [String] = []
        for name in XcodeFixtures.names {
            let bytes = try XcodeFixtures.bytes(name)
            let value = try PropertyList.read(bytes).value
            let written = try XcodeProjectWriter.write(value, projectName: XcodeFixtures.projectName(name))
            if written == bytes {
                identical.append(name)
            } else {
                let a = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
                let b = String(decoding: written, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
                let line = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
                Issue.record("\(name): first difference at line \(line + 1): expected \(line < a.count ? String(a[line]) : "<end>") got \(line < b.count ? String(b[line]) : "<end>")")
            }
        }
        #expect(identical.count == XcodeFixtures.names.count, "\(identical.count) of \(XcodeFixtures.names.count) identical")
    }
}

/// The writer's rules on synthetic projects, each expected line written out from `xcode-projects.md` (§1–§5).
@Suite struct XcodeProjectWriterRuleTests {
    static func lines(_ value: PlistValue, name: String = "App") throws -> [String] {
        String(decoding: try XcodeProjectWriter.write(value, projectName: name), as: UTF8.self)
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    @Test(.enabled(if: XcodeFixtures.available, XcodeFixtures.skipReason))
    func shuffledObjectsComeBackInFileOrder() throws {
        var rng = SystemRandomNumberGenerator()
        for name in XcodeFixtures.names {
            let bytes = try XcodeFixtures.bytes(name)
            guard case .dictionary(let root) = try PropertyList.read(bytes).value,
                  let objects = root["objects"]?.dictionaryValue else { continue }
            var shuffled = PlistDictionary()
            for (k, v) in objects.shuffled(using: &rng) {
                guard case .dictionary(let o) = v else { shuffled[k] = v; continue }
                var inner = PlistDictionary()
                for (k2, v2) in o.shuffled(using: &rng) { inner[k2] = v2 }
                shuffled[k] = .dictionary(inner)
            }
            var newRoot = PlistDictionary()
            for (k, v) in root.reversed() { newRoot[k] = k == "objects" ? .dictionary(shuffled) : v }
            #expect(try XcodeProjectWriter.write(.dictionary(newRoot), projectName: XcodeFixtures.projectName(name)) == bytes, "\(name)")
        }
    }

    @Test func quoting() throws {
        let cases: [(String, String)] = [
            ("a//b", "\"a//b\""), ("a___b", "\"a___b\""), ("__x", "__x"), ("tab\there", "\"tab\\there\""),
            ("$(inherited)", "\"$(inherited)\""), ("$TOOL_PATH/x", "$TOOL_PATH/x"), ("-O", "\"-O\""), ("", "\"\""),
            ("é", "\"é\""), ("\"", "\"\\\"\""), ("\\", "\"\\\\\""), ("a\nb", "\"a\\nb\""), ("0920", "0920"),
            ("it's", "\"it's\""), ("./Info.plist", "./Info.plist"), ("a:b", "\"a:b\""), ("\u{7F}", "\"\u{7F}\""),
        ]
        for (input, expected) in cases {
            #expect(String(decoding: XcodeQuoting.quoted(input), as: UTF8.self) == expected, "\(input)")
        }
    }

    /// A small project: a build file with no file in a Sources phase, a plugin product, a remote package with a
    /// `.git` URL, a local package at `../X`, and a synchronized group with an exception set.
    static func project(objectVersion: String) -> PlistValue {
        [
            "archiveVersion": "1", "classes": [:], "objectVersion": .string(objectVersion), "rootObject": "P",
            "objects": [
                "P": ["isa": "PBXProject", "buildConfigurationList": "L", "mainGroup": "G", "targets": ["T"],
                      "packageReferences": ["R", "X"]],
                "L": ["isa": "XCConfigurationList", "buildConfigurations": ["C"]],
                "C": ["isa": "XCBuildConfiguration", "name": "Debug", "buildSettings": [:]],
                "G": ["isa": "PBXGroup", "children": ["S"], "sourceTree": "<group>"],
                "T": ["isa": "PBXNativeTarget", "name": "App", "buildPhases": ["SP"], "fileSystemSynchronizedGroups": ["S"],
                      "packageProductDependencies": ["D"]],
                "SP": ["isa": "PBXSourcesBuildPhase", "files": ["BF", "BP"]],
                "BF": ["isa": "PBXBuildFile"],
                "BP": ["isa": "PBXBuildFile", "productRef": "D"],
                "D": ["isa": "XCSwiftPackageProductDependency", "productName": "plugin:Lint", "package": "R"],
                "R": ["isa": "XCRemoteSwiftPackageReference", "repositoryURL": "https://github.com/a/Lint.git"],
                "X": ["isa": "XCLocalSwiftPackageReference", "relativePath": "../X"],
                "S": ["isa": "PBXFileSystemSynchronizedRootGroup", "path": "Sources", "sourceTree": "<group>", "exceptions": ["E"]],
                "E": ["isa": "PBXFileSystemSynchronizedBuildFileExceptionSet", "membershipExceptions": ["a.swift"], "target": "T"],
            ],
        ]
    }

    /// A build-phase membership exception set from objectVersion 77 names its phase as Xcode's editor does and the
    /// target the phase belongs to: Xcode 16's save of tuist/XcodeProj's `Fixtures/SynchronizedRootGroups` (commit
    /// 8ec2c0a) writes `Exceptions for "SynchronizedRootGroups" folder in "Copy Files" phase from
    /// "SynchronizedRootGroups" target` for an unnamed copy-files phase; a named phase goes by its name.
    @Test func aPhaseMembershipExceptionSetNamesThePhaseAndItsTarget() throws {
        for (phase, title) in [(["isa": "PBXCopyFilesBuildPhase", "files": []] as PlistValue, "Copy Files"),
                               (["isa": "PBXResourcesBuildPhase", "files": []], "Copy Bundle Resources"),
                               (["isa": "PBXCopyFilesBuildPhase", "name": "Embed Extensions", "files": []], "Embed Extensions")] {
            var project = Self.project(objectVersion: "77")
            try project.replace(.array(["SP", "CP"]), at: "objects.T.buildPhases")
            try project.insert(phase, at: "objects.CP")
            try project.insert(["isa": "PBXFileSystemSynchronizedGroupBuildPhaseMembershipExceptionSet", "buildPhase": "CP",
                                "membershipExceptions": ["b.txt"]], at: "objects.M")
            try project.replace(.array(["E", "M"]), at: "objects.S.exceptions")
            let text = try Self.lines(project)
            #expect(text.contains("\t\tM /* Exceptions for \"Sources\" folder in \"\(title)\" phase from \"App\" target */ = {"), "\(title)")
            #expect(text.contains("\t\t\t\tM /* Exceptions for \"Sources\" folder in \"\(title)\" phase from \"App\" target */,"), "\(title)")
        }
    }

    /// From Xcode 27 (`LastUpgradeCheck = 2700`) a configuration's comment names its owner, as its list's does
    /// (alanvardy/CheckStitch and EvanBacon/xcode's `011-swift-ios-27` fixture, both Xcode 27 saves:
    /// `Debug configuration for PBXNativeTarget "CheckStitch"`); Xcode 26.3 (2630) keeps the bare name.
    @Test func xcode27NamesAConfigurationWithItsOwner() throws {
        // 9999, which some projects set to silence the upgrade prompt, says nothing of the Xcode that saved them.
        for (check, expected) in [("2700", "Debug configuration for PBXProject \"App\""), ("2630", "Debug"), ("9999", "Debug")] {
            var project = Self.project(objectVersion: "90")
            try project.insert(["LastUpgradeCheck": .string(check)], at: "objects.P.attributes")
            let text = try Self.lines(project)
            #expect(text.contains("\t\tC /* \(expected) */ = {"), "\(check)")
            #expect(text.contains("\t\t\t\tC /* \(expected) */,"), "\(check)")
        }
    }

    /// Edits of what the newer comments are made of — a target's phases, a list's configurations, the project's
    /// `LastUpgradeCheck` — rewrite those comments in place as the whole-file writer writes them.
    @Test func editsOfCommentInputsRefreshTheNewerComments() throws {
        var project = Self.project(objectVersion: "77")
        try project.replace(.array(["SP", "CP"]), at: "objects.T.buildPhases")
        try project.insert(["isa": "PBXCopyFilesBuildPhase", "files": []], at: "objects.CP")
        try project.insert(["isa": "PBXFileSystemSynchronizedGroupBuildPhaseMembershipExceptionSet", "buildPhase": "CP"], at: "objects.M")
        try project.replace(.array(["E", "M"]), at: "objects.S.exceptions")
        try project.insert(["LastUpgradeCheck": "2600"], at: "objects.P.attributes")
        var doc = try PlistTextDocument(XcodeProjectWriter.write(project, projectName: "App"), projectName: "App")
        try doc.replace(.array(["SP"]), at: "objects.T.buildPhases")
        try doc.replace("2700", at: "objects.P.attributes.LastUpgradeCheck")
        try doc.insert(["isa": "XCBuildConfiguration", "name": "Release", "buildSettings": [:]], at: "objects.C2")
        try doc.insert("C2", at: "objects.L.buildConfigurations", appending: true)
        #expect(doc.bytes == (try XcodeProjectWriter.write(doc.value, projectName: "App")))
    }

    /// A name holding `*/` would end its comment early and the file would not read back: it is written `* /`.
    @Test func aCommentNeverEndsEarly() throws {
        var project = Self.project(objectVersion: "77")
        try project.replace("Src */ x", at: "objects.T.name")
        let bytes = try XcodeProjectWriter.write(project, projectName: "App")
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("T /* Src * / x */"))
        #expect(try PropertyList.read(bytes).value == project)
    }

    @Test func commentsDerivedFromTheGraph() throws {
        let text = try Self.lines(Self.project(objectVersion: "77"))
        #expect(text.first == "// !$*UTF8*$!")
        #expect(text.contains("\t\tBF /* (null) in Sources */ = {isa = PBXBuildFile; };"))
        // A build file of a product is named by the product's `productName` as written (§4.2); the product's own
        // comment drops `plugin:`.
        #expect(text.contains("\t\tBP /* plugin:Lint in Sources */ = {isa = PBXBuildFile; productRef = D /* Lint */; };"))
        #expect(text.contains("\t\tR /* XCRemoteSwiftPackageReference \"Lint\" */ = {"))
        #expect(text.contains("\t\tX /* XCLocalSwiftPackageReference \"../X\" */ = {"))
        #expect(text.contains("\t\tE /* Exceptions for \"Sources\" folder in \"App\" target */ = {"))
        #expect(text.contains("\t\tL /* Build configuration list for PBXProject \"App\" */ = {"))
        #expect(text.contains("\t\t\tmainGroup = G;"))  // an object with no comment gets none
        #expect(text.contains("\trootObject = P /* Project object */;"))
        #expect(text.contains("\t\t\t\tS /* Sources */,"))
        #expect(text[text.count - 2] == "}" && text.last == "")
        // Sections in ordinal isa order, each after one empty line.
        let sections = text.filter { $0.hasPrefix("/* Begin ") }
        #expect(sections == sections.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        #expect(text.filter(\.isEmpty).count == sections.count + 1)  // plus the final line break
    }

    /// A build file that is its own file, and a chain of build files deeper than any project (the last one's file a
    /// real file reference): written with `(null)` where a comment would have to be made of itself, or of one more
    /// than `XcodeComments.maxReferenceDepth` levels down, instead of recursing until the stack overflows (a fuzz
    /// find: Corpus/regressions/openstep).
    @Test func selfReferencesAndDeepChainsGetNoText() throws {
        var objects: [(String, PlistValue)] = [
            ("P", ["isa": "PBXProject", "mainGroup": "G"]),
            ("SELF", ["isa": "PBXBuildFile", "fileRef": "SELF"]),
            ("FR", ["isa": "PBXFileReference", "path": "x.swift", "sourceTree": "<group>"]),
        ]
        let links = 3 * XcodeComments.maxReferenceDepth
        for i in 0..<links {
            objects.append((String(format: "B%03d", i), ["isa": "PBXBuildFile", "fileRef": .string(i + 1 < links ? String(format: "B%03d", i + 1) : "FR")]))
        }
        let root: PlistValue = [
            "archiveVersion": "1", "classes": [:], "objectVersion": "46", "rootObject": "P",
            "objects": .dictionary(PlistDictionary(objects)),
        ]
        let text = try Self.lines(root)
        #expect(text.contains("\t\tSELF /* (null) */ = {isa = PBXBuildFile; fileRef = SELF /* (null) */; };"))
        // Written in file order, so the chain is described from its head: the first links are `(null)`, past the
        // depth the reference cannot be followed; the links within reach of the file reference name it.
        let last = String(format: "B%03d", links - 1)
        #expect(text.contains("\t\t\(last) /* x.swift */ = {isa = PBXBuildFile; fileRef = FR /* x.swift */; };"))
        #expect(text.contains("\t\tB000 /* (null) */ = {isa = PBXBuildFile; fileRef = B001 /* (null) */; };"))
        // The preserving document derives the same comments for the fuzz find itself, and edits it.
        let found = try Data(contentsOf: CorpusTests.root.appendingPathComponent(
            "regressions/openstep/textdocument-build-file-refers-to-itself.pbxproj"))
        var document = try PlistTextDocument([UInt8](found))
        #expect(document.write() == [UInt8](found))
        try document.replace("PBXFileReference", at: "objects.F1.isa")
        #expect(try PropertyList.read(document.bytes).value["objects"]?["F1"]?["isa"] == "PBXFileReference")
    }

    @Test func synchronizedGroupsAreFlatFrom70To76AndMultiLineFrom77() throws {
        let flat = try Self.lines(Self.project(objectVersion: "73"))
        #expect(flat.contains("\t\tS /* Sources */ = {isa = PBXFileSystemSynchronizedRootGroup; exceptions = (E /* PBXFileSystemSynchronizedBuildFileExceptionSet */, ); path = Sources; sourceTree = \"<group>\"; };"))
        let multi = try Self.lines(Self.project(objectVersion: "77"))
        let start = try #require(multi.firstIndex(of: "\t\tS /* Sources */ = {"))
        #expect(Array(multi[start..<(start + 8)]) == [
            "\t\tS /* Sources */ = {", "\t\t\tisa = PBXFileSystemSynchronizedRootGroup;", "\t\t\texceptions = (",
            "\t\t\t\tE /* Exceptions for \"Sources\" folder in \"App\" target */,", "\t\t\t);", "\t\t\tpath = Sources;",
            "\t\t\tsourceTree = \"<group>\";", "\t\t};",
        ])
    }

    @Test func nonStringScalarsNeedLossy() throws {
        let value: PlistValue = ["a": .integer(1)]
        let error = try #require(throws: PlistError.self) { try XcodeProjectWriter.write(value, projectName: nil) }
        #expect(error.kind == .unrepresentable && error.keyPath == KeyPath("a"))
        #expect(try XcodeProjectWriter.write(value, projectName: nil, lossy: true) == Array("// !$*UTF8*$!\n{\n\ta = 1;\n}\n".utf8))
    }
}

import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// The edited projects read by an independent OpenStep reader, Python's `openstep_plist` (PyPI, installed into
/// `.venv/` by `scripts/setup`): after every one of the seeded random edits of every fixture, it must read the text to
/// the value PlistKit's tree edit gives.
@Suite struct TextDocumentPythonOracleTests {
    static let python: String? = {
        let py = XcodeFixtures.packageRoot.appendingPathComponent(".venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: py),
              let r = try? ExternalTool.run(py, ["-c", "import openstep_plist"]), r.status == 0 else { return nil }
        return py
    }()

    /// One JSON line per file on argv: the value, or {"$error": message}.
    static let script = #"""
    import sys, json, openstep_plist
    for path in sys.argv[1:]:
        try:
            with open(path, "r", encoding="utf-8") as f:
                print(json.dumps(openstep_plist.load(f), ensure_ascii=False))
        except Exception as e:
            print(json.dumps({"$error": str(e)}))
    """#

    @Test(.enabled(if: python != nil, ".venv with openstep_plist is missing (run scripts/setup)"),
          .enabled(if: XcodeFixtures.available, XcodeFixtures.skipReason))
    func openstepPlistReadsEveryEditedFixtureToTheTreeEdit() throws {
        let python = try #require(Self.python)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("text-oracle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var files: [String] = []
        var expected: [PlistValue] = []
        for (n, name) in XcodeFixtures.names.enumerated() {
            var doc = try PlistTextDocument(try XcodeFixtures.bytes(name), projectName: XcodeFixtures.projectName(name))
            var edits = RandomTextEdits(seed: 0x0AC1E + UInt64(n), xmlScalars: false)
            for k in 0..<TextDocumentCorpusTests.rounds {
                let before = doc.bytes
                try edits.step(&doc, label: name)
                guard doc.bytes != before else { continue }
                let file = dir.appendingPathComponent("\(n)-\(k).pbxproj")
                try Data(doc.bytes).write(to: file)
                files.append(file.path)
                expected.append(doc.value)
            }
        }
        #expect(files.count > XcodeFixtures.names.count * 10)
        let run = try ExternalTool.run(python, ["-c", Self.script] + files)
        #expect(run.status == 0)
        let lines = String(decoding: run.stdout, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == files.count)
        for (i, line) in lines.enumerated() where i < files.count {
            let value = try PropertyList.read(Array(line.utf8)).value
            #expect(value == expected[i], "\(files[i]): \(line.prefix(200))")
        }
    }
}

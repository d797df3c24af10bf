import Foundation
import Testing
@testable import PlistKit

/// Every text document of the Corpus (valid and invalid) and every fixture, through the preserving document: the
/// same bytes back, the same value or the same error as the plain reader, and seeded random edits that read back as
/// the tree edit says.
@Suite struct TextDocumentCorpusTests {
    static let corpus: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Corpus")

    static func files() -> [URL] {
        let sections = ["openstep", "xml", "gnustep", "strings", "regressions/xml", "regressions/openstep",
                        "invalid/openstep", "invalid/xml", "invalid/gnustep", "invalid/strings"]
        var out: [URL] = []
        for s in sections {
            let dir = corpus.appendingPathComponent(s)
            for name in ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted()
            where name != "manifest.json" && !name.hasPrefix(".") {
                var isDir: ObjCBool = false
                let url = dir.appendingPathComponent(name)
                if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir), !isDir.boolValue { out.append(url) }
            }
        }
        return out
    }

    /// Random edits per fixture: 40 by default (a debug build takes about half a second per fixture and 40 edits);
    /// `PLISTKIT_EDIT_ROUNDS=200` runs the 200.
    static var rounds: Int { ProcessInfo.processInfo.environment["PLISTKIT_EDIT_ROUNDS"].flatMap { Int($0) } ?? 40 }

    @Test func corpusDocumentsRoundTripOrFailAsThePlainReaderDoes() throws {
        let files = Self.files()
        #expect(files.count > 40)
        var edited = 0
        for (n, url) in files.enumerated() {
            let bytes = [UInt8](try Data(contentsOf: url))
            let label = url.path.replacingOccurrences(of: Self.corpus.path + "/", with: "")
            let plain = Result { try PropertyList.read(bytes) }
            switch plain {
            case .failure(let error):
                guard let error = error as? PlistError else { continue }
                #expect(throws: error, "\(label)") { try PlistTextDocument(bytes) }
            case .success(let (value, format)):
                guard format != .binary, format != .json else { continue }
                guard !bytes.starts(with: [0x1F, 0x8B]) else { continue }
                var doc = try PlistTextDocument(bytes)
                #expect(doc.write() == bytes, "\(label)")
                #expect(doc.value == value, "\(label)")
                #expect(doc.format == format, "\(label)")
                guard doc.isUTF8 else { continue }
                var edits = RandomTextEdits(seed: UInt64(n + 1), xmlScalars: format == .xml)
                for _ in 0..<20 { try edits.step(&doc, label: label) }
                edited += edits.applied
            }
        }
        #expect(edited > 200)
    }

    @Test(.enabled(if: XcodeFixtures.available, XcodeFixtures.skipReason))
    func randomEditsOfEveryFixture() throws {
        var total = 0, comments = 0
        for (n, name) in XcodeFixtures.names.enumerated() {
            var doc = try PlistTextDocument(try XcodeFixtures.bytes(name), projectName: XcodeFixtures.projectName(name))
            var edits = RandomTextEdits(seed: 0x5EED + UInt64(n), xmlScalars: false)
            for _ in 0..<Self.rounds { try edits.step(&doc, label: name) }
            total += edits.applied
            comments += edits.commentEdits
        }
        #expect(total > XcodeFixtures.names.count * Self.rounds / 2, "\(total) edits applied, \(comments) changed comments")
    }
}

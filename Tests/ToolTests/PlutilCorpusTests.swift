import Foundation
import Testing

/// `plutil -lint` over every Corpus file: valid ones print `file: OK`; invalid ones exit 1 with a message, naming the
/// line when the manifest gives one (text formats).
@Suite(.enabled(if: ToolRunner.ours != nil, ToolRunner.oursMissing)) struct PlutilCorpusTests {
    struct Entry: CustomStringConvertible, Sendable {
        var path: String
        var error: String?
        var line: Int?
        var description: String { path }
    }

    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Corpus")

    static let entries: [Entry] = {
        guard let top = try? JSONSerialization.jsonObject(with: Data(contentsOf: corpus.appendingPathComponent("manifest.json")))
            as? [String: Any], let sections = top["sections"] as? [String]
        else { return [] }
        var out: [Entry] = []
        for section in sections {
            let dir = corpus.appendingPathComponent(section)
            guard let manifest = try? JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("manifest.json")))
                as? [String: Any], let files = manifest["files"] as? [[String: Any]]
            else { continue }
            for file in files {
                guard let name = file["file"] as? String else { continue }
                out.append(Entry(path: dir.appendingPathComponent(name).path, error: file["error"] as? String,
                                 line: file["line"] as? Int))
            }
        }
        return out
    }()

    @Test func corpusIsListed() {
        #expect(Self.entries.count > 100)
    }

    @Test(arguments: entries)
    func lint(_ entry: Entry) throws {
        let r = try ToolRunner.runOurs(["-lint", entry.path])
        if entry.error == nil {
            #expect(r.status == 0, "\(r)")
            #expect(r.out == "\(entry.path): OK\n")
        } else {
            #expect(r.status == 1, "\(r)")
            #expect(r.stderr.hasPrefix("\(entry.path): ("), "\(r)")
            if let line = entry.line {
                #expect(r.stderr.contains("line \(line)"), "\(r)")
            }
        }
    }

    /// Issue 3's criterion: `-convert binary1` then `-convert xml1` gives the same XML bytes as `-convert xml1`
    /// directly, for every valid Corpus file.
    @Test(arguments: entries.filter { $0.error == nil })
    func binaryRoundTripKeepsXMLBytes(_ entry: Entry) throws {
        let dir = try ToolRunner.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let direct = dir.appendingPathComponent("direct.xml").path
        let binary = dir.appendingPathComponent("via.bplist").path
        let back = dir.appendingPathComponent("via.xml").path
        for args in [["-convert", "xml1", "-o", direct, entry.path], ["-convert", "binary1", "-o", binary, entry.path],
                     ["-convert", "xml1", "-o", back, binary]] {
            let r = try ToolRunner.runOurs(args)
            #expect(r.status == 0, "\(args): \(r)")
        }
        let a = try Data(contentsOf: URL(fileURLWithPath: direct))
        let b = try Data(contentsOf: URL(fileURLWithPath: back))
        #expect(a == b, "\(entry.path)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: binary)).starts(with: Array("bplist00".utf8)))
    }
}

import Foundation
import Testing
@testable import PlistKit

/// `Corpus/keyed-archives/`: each archive gives the plain value its manifest records, or the error (kind, words of
/// the message, key path). The files are written by `scripts/make-keyed-archive-corpus.py`.
@Suite struct KeyedArchiveCorpusTests {
    struct Entry: CustomStringConvertible, Sendable {
        var fields: [String: JSONValue]
        var file: String { fields["file"]?.string ?? "?" }
        var description: String { file }
    }

    static func entries() throws -> [Entry] {
        let m = try JSONValue.parse(Data(contentsOf: ArchiveFixtures.corpus.appendingPathComponent("manifest.json")))
        return (m["files"]?.array ?? []).compactMap { f in
            if case .object(let o) = f { return Entry(fields: Dictionary(uniqueKeysWithValues: o)) }
            return nil
        }
    }

    @Test func manifestListsEveryFile() throws {
        let listed = Set(try Self.entries().map(\.file))
        for name in try FileManager.default.contentsOfDirectory(atPath: ArchiveFixtures.corpus.path) where name != "manifest.json" {
            #expect(listed.contains(name), "\(name) is not in Corpus/keyed-archives/manifest.json")
        }
        #expect(listed.count >= 19)
    }

    @Test(arguments: try KeyedArchiveCorpusTests.entries())
    func entryBehavesAsRecorded(_ entry: Entry) throws {
        let bytes = try Data(contentsOf: ArchiveFixtures.corpus.appendingPathComponent(entry.file))
        if let kind = entry.fields["error"]?.string {
            do {
                let v = try KeyedArchive(bytes).plainValue()
                Issue.record("\(entry.file): expected a \(kind) error, got \(v)")
            } catch let e as PlistError {
                #expect(e.kind.rawValue == kind, "\(entry.file): \(e)")
                for m in entry.fields["mentions"]?.array?.compactMap(\.string) ?? [] {
                    #expect(e.message.contains(m), "\(entry.file): \(e) does not mention \(m)")
                }
                #expect(e.keyPath?.description == entry.fields["key_path"]?.string, "\(entry.file): \(e)")
            }
            return
        }
        let expected = try TypedJSON.decode(try #require(entry.fields["plain"], "\(entry.file) has no plain value"))
        let archive = try KeyedArchive(bytes)
        #expect(try archive.plainValue() == expected, "\(entry.file)")
        // What reads writes back to an equal graph.
        #expect(try KeyedArchive(archive.write(format: .binary)) == archive)
    }
}

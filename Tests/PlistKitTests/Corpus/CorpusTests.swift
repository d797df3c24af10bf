import Foundation
import Testing
@testable import PlistKit

/// Runs every file listed in `Corpus/manifest.json` and its section manifests.
@Suite struct CorpusTests {
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Corpus")

    struct Entry: CustomStringConvertible, Sendable {
        var section: String
        var fields: [String: JSONValue]
        var path: String { "\(section)/\(fields["file"]?.string ?? "?")" }
        var description: String { path }
    }

    static func entries() throws -> [Entry] {
        let top = try JSONValue.parse(Data(contentsOf: root.appendingPathComponent("manifest.json")))
        var out: [Entry] = []
        for section in top["sections"]?.array ?? [] {
            guard let name = section.string else { continue }
            let m = try JSONValue.parse(Data(contentsOf: root.appendingPathComponent(name).appendingPathComponent("manifest.json")))
            for f in m["files"]?.array ?? [] {
                if case .object(let fields) = f { out.append(Entry(section: name, fields: Dictionary(uniqueKeysWithValues: fields))) }
            }
        }
        return out
    }

    @Test func manifestListsEveryFile() throws {
        let listed = Set(try Self.entries().map(\.path))
        let top = try JSONValue.parse(Data(contentsOf: Self.root.appendingPathComponent("manifest.json")))
        for section in top["sections"]?.array?.compactMap(\.string) ?? [] {
            let dir = Self.root.appendingPathComponent(section)
            for name in try FileManager.default.contentsOfDirectory(atPath: dir.path) where name != "manifest.json" {
                var isDir: ObjCBool = false
                _ = FileManager.default.fileExists(atPath: dir.appendingPathComponent(name).path, isDirectory: &isDir)
                if isDir.boolValue { continue }
                #expect(listed.contains("\(section)/\(name)"), "\(section)/\(name) is not in its manifest")
            }
        }
    }

    @Test(arguments: try CorpusTests.entries())
    func entryBehavesAsRecorded(_ entry: Entry) throws {
        let bytes = try Data(contentsOf: Self.root.appendingPathComponent(entry.path))
        if let kind = entry.fields["error"]?.string {
            do {
                let (v, f) = try PropertyList.read(bytes)
                Issue.record("\(entry.path): expected a \(kind) error, got a \(f) value \(v)")
            } catch let error as PlistError {
                #expect(error.kind.rawValue == kind, "\(entry.path): \(error)")
                if let line = entry.fields["line"]?.number {
                    #expect(error.line == Int(line), "\(entry.path): \(error)")
                }
                #expect(error.line != nil || error.offset != nil, "\(entry.path): error has no position: \(error)")
            }
            return
        }
        let (value, format) = try PropertyList.read(bytes)
        if let expected = entry.fields["format"]?.string {
            #expect(format.rawValue == expected, "\(entry.path): detected \(format)")
        }
        if let typed = entry.fields["value"] {
            #expect(value == (try TypedJSON.decode(typed)), "\(entry.path)")
        }
        if let other = entry.fields["same_as"]?.string {
            let otherBytes = try Data(contentsOf: Self.root.appendingPathComponent(other))
            #expect(value == (try PropertyList.read(otherBytes).value), "\(entry.path) vs \(other)")
        }
        #expect(entry.fields["value"] != nil || entry.fields["same_as"] != nil,
                "\(entry.path): a valid entry needs an expected value or same_as")
    }
}

import Foundation
import PlistKit
import Testing
import TestSupport

/// `plutil -extract` and `-type` on binary input answer through `BinaryPlistDocument`; on the same value written
/// as XML they read the whole tree. Both must print the same bytes and statuses, for every key path.
@Suite struct PlutilBinaryLookupTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Corpus/binary")

    /// Key paths into `value` that the command line can spell, and a few that lead nowhere.
    static func paths(in value: PlistValue, _ prefix: [String] = [], into out: inout [[String]]) {
        guard out.count < 60 else { return }
        out.append(prefix + ["missing"])
        switch value {
        case .dictionary(let d):
            for (k, child) in d where !k.isEmpty && !k.contains(".") {
                out.append(prefix + [k])
                paths(in: child, prefix + [k], into: &out)
            }
        case .array(let a):
            for (i, child) in a.enumerated() {
                out.append(prefix + [String(i)])
                paths(in: child, prefix + [String(i)], into: &out)
            }
        default:
            break
        }
    }

    @Test func extractAndTypeOnBinaryGiveWhatTheTreeGives() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("extract-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        var compared = 0
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.corpus.path).filter { $0.hasSuffix(".bplist") }.sorted()
        for name in files {
            let binary = Self.corpus.appendingPathComponent(name)
            guard let value = try? PropertyList.read([UInt8](Data(contentsOf: binary))).value else { continue }
            // The XML twin must hold the same value (a 4-byte real, say, does not survive as text).
            let xmlBytes = try PropertyList.write(value, format: .xml)
            guard let back = try? PropertyList.read([UInt8](xmlBytes)).value, back == value else { continue }
            let xml = dir.appendingPathComponent(name + ".xml")
            try xmlBytes.write(to: xml)
            var paths: [[String]] = []
            Self.paths(in: value, into: &paths)
            for path in paths {
                let keyPath = path.joined(separator: ".")
                for arguments in [["-extract", keyPath, "xml1", "-o", "-"], ["-extract", keyPath, "json", "-o", "-"],
                                  ["-extract", keyPath, "raw", "-o", "-"], ["-type", keyPath],
                                  ["-extract", keyPath, "raw", "-expect", "string", "-o", "-"]] {
                    let lazy = PlutilCommandTests.inProcess(arguments + [binary.path])
                    let tree = PlutilCommandTests.inProcess(arguments + [xml.path])
                    #expect(lazy.status == tree.status && lazy.io.output == tree.io.output, "\(name) \(arguments)")
                    // Messages name the file; compared without it.
                    #expect(lazy.io.errorText.replacingOccurrences(of: binary.path, with: "F")
                            == tree.io.errorText.replacingOccurrences(of: xml.path, with: "F"), "\(name) \(arguments)")
                    compared += 1
                }
            }
        }
        #expect(compared > 200)
    }
}

import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// `plutil -p` streamed (`PropertyList.describeStreaming`) against the tree's `PlistDescription.humanReadable`: the
/// same text for every input it streams; keyed archives and unreadable input left to the tree.
@Suite struct DescriptionStreamTests {
    /// The streamed text (threshold 0: every input streams), nil when the input is left to the tree.
    static func streamed(_ bytes: [UInt8], threshold: Int = 0) throws -> String? {
        var out: [UInt8] = []
        let format = try bytes.withUnsafeBytes { raw in
            try PropertyList.describeStreaming(MappedInput(copying: raw), threshold: threshold) { out.append(contentsOf: $0) }
        }
        guard format != nil else {
            #expect(out.isEmpty, "nothing is printed for input left to the tree")
            return nil
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func expectSameAsTree(_ bytes: [UInt8], _ label: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let value: PlistValue
        do {
            value = try PropertyList.read(bytes).value
        } catch let readError as PlistError {
            // Left to the tree, which reports the error; or (binary whose root reads) the reader's own error.
            do {
                #expect(try streamed(bytes) == nil, "\(label): unreadable input streamed", sourceLocation: sourceLocation)
            } catch let e as PlistError {
                #expect(e.kind == readError.kind && e.offset == readError.offset, "\(label): \(e) vs \(readError)",
                        sourceLocation: sourceLocation)
            }
            return
        }
        if KeyedArchive.looksLikeArchive(value) {
            #expect(try streamed(bytes) == nil, "\(label): a keyed archive is decoded from the tree", sourceLocation: sourceLocation)
            return
        }
        let expected = PlistDescription.humanReadable(value)
        let got = try streamed(bytes)
        #expect(got == expected, "\(label): streamed \(got.map { String($0.prefix(300)) } ?? "nothing")", sourceLocation: sourceLocation)
    }

    @Test func everyCorpusFilePrintsAsItsTree() throws {
        for file in try StreamingConversionTests.corpusFiles() { try Self.expectSameAsTree(file.bytes, file.path) }
    }

    /// 1,000 seeded random values, written in each format, printed both ways.
    @Test func randomDocumentsPrintAsTheirTrees() throws {
        var streamedCount = 0
        for document in StreamingConversionTests.randomDocuments() {
            try Self.expectSameAsTree(document.bytes, document.label)
            if try Self.streamed(document.bytes) != nil { streamedCount += 1 }
        }
        #expect(streamedCount > 500)
    }

    /// Only input past the threshold streams; a large keyed archive, in binary (looked up in the lazy document) or
    /// XML (found by a pass of the reader), is left to the tree, which decodes it.
    @Test func onlyLargeInputThatIsNoArchiveStreams() throws {
        let small: PlistValue = ["b": 1, "a": [true, "x"]]
        let smallXML = try PropertyList.writeBytes(small, format: .xml)
        #expect(try Self.streamed(smallXML, threshold: PropertyList.describeStreamingThreshold) == nil)
        #expect(try Self.streamed(smallXML, threshold: smallXML.count - 1) == PlistDescription.humanReadable(small))
        var objects: [PlistValue] = ["$null"]
        for i in 0 ..< 2000 { objects.append(.string("object \(i)")) }
        let archive: PlistValue = ["$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": .uid(UID(1))],
                                   "$objects": .array(objects)]
        for format in [PlistFormat.binary, .xml] {
            let bytes = try PropertyList.writeBytes(archive, format: format)
            #expect(try Self.streamed(bytes) == nil, "\(format)")
            // The same dictionary whose $archiver is not a string is no archive: it streams.
            var notArchive = try #require(archive.dictionaryValue)
            notArchive["$archiver"] = 5
            let other = try PropertyList.writeBytes(.dictionary(notArchive), format: format)
            #expect(try Self.streamed(other) == PlistDescription.humanReadable(.dictionary(notArchive)), "\(format)")
        }
    }

    /// Text that does not read is left to the tree (the pass that looks for an archive finds the error first); binary
    /// whose root is sound but a later object broken fails with `read`'s error; a failing output stops the stream.
    @Test func errorsAreTheReaders() throws {
        var entries = PlistDictionary()
        for i in 0 ..< 20_000 { entries["key \(i)"] = .string(String(repeating: "v", count: 20)) }
        let xml = try PropertyList.writeBytes(["Tracks": .dictionary(entries)], format: .xml)
        #expect(try Self.streamed(Array(xml.prefix(xml.count / 2))) == nil)
        let broken = BinaryFixture([BinaryFixture.array([1, 2]), BinaryFixture.int(1), [0x91]]).bytes
        let readError = #expect(throws: PlistError.self) { try PropertyList.read(broken) }
        let streamError = #expect(throws: PlistError.self) { _ = try Self.streamed(broken) }
        #expect(streamError?.kind == readError?.kind && streamError?.offset == readError?.offset,
                "\(String(describing: streamError)) vs \(String(describing: readError))")
        struct Full: Error {}
        #expect(throws: Full.self) {
            _ = try xml.withUnsafeBytes { raw in
                try PropertyList.describeStreaming(MappedInput(copying: raw), threshold: 0) { _ in throw Full() }
            }
        }
    }
}

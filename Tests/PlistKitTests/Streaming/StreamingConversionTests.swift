import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// Streamed conversion against the tree path: for every input and every output, the same bytes or the same error.
@Suite struct StreamingConversionTests {
    enum Outcome: Equatable, CustomStringConvertible {
        case bytes([UInt8])
        case failure(PlistError)

        var description: String {
            switch self {
            case .bytes(let b): return "\(b.count) bytes: \(String(decoding: b.prefix(300), as: UTF8.self))"
            case .failure(let e): return "error \(e)"
            }
        }
    }

    static func tree(_ input: [UInt8], _ format: PlistFormat, _ options: PlistWriteOptions, _ read: PlistReadOptions) -> Outcome {
        do {
            return .bytes(try PropertyList.writeBytes(try PropertyList.read(input, options: read).value, format: format, options: options))
        } catch let e as PlistError {
            return .failure(e)
        } catch {
            return .failure(PlistError(.io, "\(error)"))
        }
    }

    /// `eventLogMemory` small makes the event log spill to its file at once.
    /// `entrySpillMemory`, `entryFanIn` and `temporaryDirectory` as `SpilledEntriesTests` sets them.
    static func streamed(
        _ input: [UInt8], _ format: PlistFormat, _ options: PlistWriteOptions, _ read: PlistReadOptions, eventLogMemory: Int = PropertyList.eventLogMemory,
        sharingAllowance: Int = PropertyList.sharingAllowance, entrySpillMemory: Int = PropertyList.entrySpillMemory,
        entryFanIn: Int = 64, temporaryDirectory: String? = nil
    ) -> Outcome {
        var out: [UInt8] = []
        do {
            try input.withUnsafeBytes { raw in
                _ = try PropertyList.convert(raw, to: format, options: options, readOptions: read, eventLogMemory: eventLogMemory,
                                             sharingAllowance: sharingAllowance, entrySpillMemory: entrySpillMemory,
                                             entryFanIn: entryFanIn, temporaryDirectory: temporaryDirectory) {
                    out.append(contentsOf: $0)
                }
            }
            return .bytes(out)
        } catch let e as PlistError {
            return .failure(e)
        } catch let e as StreamWriteFailure {
            return .failure(e.error)
        } catch {
            return .failure(PlistError(.io, "\(error)"))
        }
    }

    static let outputs: [(PlistFormat, PlistWriteOptions)] = {
        var list: [(PlistFormat, PlistWriteOptions)] = []
        for format in [PlistFormat.xml, .json, .openStep, .gnustep, .strings, .binary] {
            for sorted in [true, false] {
                var o = PlistWriteOptions()
                o.sortKeys = sorted
                list.append((format, o))
                if format == .json { o.prettyPrinted = true; list.append((format, o)) }
                if format == .openStep || format == .strings { o.lossy = true; list.append((format, o)) }
            }
        }
        return list
    }()

    static func expectSame(_ input: [UInt8], _ label: String, read: PlistReadOptions = PlistReadOptions(),
                           eventLogMemory: Int = PropertyList.eventLogMemory, sourceLocation: SourceLocation = #_sourceLocation) {
        for (format, options) in outputs {
            let expected = tree(input, format, options, read)
            let got = streamed(input, format, options, read, eventLogMemory: eventLogMemory)
            #expect(got == expected, "\(label) → \(format) sorted \(options.sortKeys) pretty \(options.prettyPrinted) lossy \(options.lossy)",
                    sourceLocation: sourceLocation)
        }
    }

    /// Every Corpus file (more than 150), its path and bytes.
    static func corpusFiles() throws -> [(path: String, bytes: [UInt8])] {
        let files = try CorpusTests.entries().map { entry in
            (entry.path, try [UInt8](Data(contentsOf: CorpusTests.root.appendingPathComponent(entry.path))))
        }
        #expect(files.count > 150)
        return files
    }

    /// 1,000 seeded random values (UIDs and float32 reals among them), each written by one of the writers (lossy
    /// where the format needs it; keys sorted for two seeds in three); the seeds no writer could write are left out.
    static func randomDocuments() -> [(seed: Int, label: String, bytes: [UInt8])] {
        var config = RandomPlist.Config()
        config.uids = true
        config.float32 = true
        return (0 ..< 1000).compactMap { seed in
            var generator = RandomPlist(seed: UInt64(seed), config: config)
            let value = generator.value()
            var options = PlistWriteOptions()
            options.sortKeys = seed % 3 != 0
            options.lossy = true
            let format = [PlistFormat.xml, .binary, .json, .gnustep, .openStep][seed % 5]
            guard let input = try? PropertyList.writeBytes(value, format: format, options: options) else { return nil }
            return (seed, "seed \(seed) from \(format)", input)
        }
    }

    @Test func everyCorpusFileStreamsAsTheTreeWrites() throws {
        for file in try Self.corpusFiles() { Self.expectSame(file.bytes, file.path) }
    }

    /// Every Corpus file converted from its file mapping (XML read by libxml2 through a read callback, pages given
    /// back as they are passed) gives what the conversion of its bytes in memory gives: the same bytes, or the same
    /// error at the same place.
    @Test func everyCorpusFileStreamsFromItsMappingAsFromMemory() throws {
        for file in try Self.corpusFiles() {
            let mapped = try MappedInput(path: CorpusTests.root.appendingPathComponent(file.path).path)
            for format in [PlistFormat.xml, .json] {
                let fromMemory = Self.streamed(file.bytes, format, PlistWriteOptions(), PlistReadOptions())
                var out: [UInt8] = []
                let fromFile: Outcome
                do {
                    try PropertyList.convert(mapped, to: format) { out.append(contentsOf: $0) }
                    fromFile = .bytes(out)
                } catch let e as PlistError {
                    fromFile = .failure(e)
                }
                #expect(fromFile == fromMemory, "\(file.path) → \(format)")
            }
        }
    }

    /// Errors deep inside a large XML file (past libxml2's first reads of a mapping) are the same from the file as
    /// from memory and as the tree reader's: kind, offset, line and column.
    @Test func errorsDeepInALargeMappedFileMatchTheTreeReader() throws {
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict>\n"
        for i in 0 ..< 20_000 { xml += "\t<key>k\(i)</key>\n\t<string>value \(i)</string>\n" }
        xml += "</dict>\n</plist>\n"
        let damages: [(String, String)] = [("<string>value 19000</string>", "<string>value 19000</strin>"),
                                           ("<string>value 12345</string>", "<integer>12x</integer>"),
                                           ("<string>value 15000</string>", "<date>not a date</date>"),
                                           ("<key>k16000</key>", "<key>k16000</key><dict>"),
                                           ("value 17000", "value \u{FF} 17000".replacingOccurrences(of: "\u{FF}", with: "&bogus;")),
                                           ("</dict>\n</plist>\n", "</dict>\n</plist>\n<extra/>")]
        for (find, replace) in damages {
            let bytes = Array(xml.replacingOccurrences(of: find, with: replace).utf8)
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("deep-\(UUID().uuidString).xml").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            defer { unlink(path) }
            let mapped = try MappedInput(path: path)
            var treeError: PlistError?
            do { _ = try PropertyList.read(bytes) } catch let e as PlistError { treeError = e }
            let expected = try #require(treeError, "\(replace) is an error")
            #expect(expected.offset ?? 0 > 100_000, "\(replace): deep inside (\(expected))")
            #expect(Self.streamed(bytes, .json, PlistWriteOptions(), PlistReadOptions()) == .failure(expected), "\(replace)")
            do {
                try PropertyList.convert(mapped, to: .json) { _ in }
                Issue.record("\(replace): the mapped file converted")
            } catch let e as PlistError {
                #expect(e.kind == expected.kind && e.offset == expected.offset && e.line == expected.line
                        && e.column == expected.column, "\(replace): \(e) against \(expected)")
            }
        }
    }

    /// 1,000 seeded random values, written by every writer, converted to every format both ways.
    @Test func randomDocumentsStreamAsTheTreeWrites() throws {
        for document in Self.randomDocuments() {
            // A small event log for some: its file is used.
            Self.expectSame(document.bytes, document.label, eventLogMemory: document.seed % 4 == 0 ? 64 : PropertyList.eventLogMemory)
        }
    }

    /// A library-shaped document past the event log's bounds: more distinct keys than its key table numbers (the
    /// rest are logged as text), a key longer than it numbers, non-ASCII keys, events spilled to the log's file, and
    /// a large dictionary ordered in runs on disk whose values the sorted replay reaches first nearly in file order
    /// (decimal IDs written in order) and then in no order (IDs shuffled): the bytes of the tree path.
    @Test func aLargeLibraryStreamsAsTheTreeWrites() throws {
        var r = SeededGenerator(seed: 4_096)
        var ids = Array(0 ..< EventLogKeys.maxKeys + 4_000)
        ids[ids.count / 2 ..< ids.count].shuffle(using: &r)
        let long = String(repeating: "a long key, longer than the table numbers ", count: 3)
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict>\n\t<key>Tracks</key>\n\t<dict>\n"
        for id in ids {
            xml += "\t\t<key>\(id)</key>\n\t\t<dict><key>Track ID</key><integer>\(id)</integer>"
            xml += "<key>Nåme</key><string>t\(id % 97)</string><key>\(long)</key><true/>"
            if id % 7 == 0 { xml += "<key>Play Count</key><integer>\(-id)</integer>" }
            xml += "</dict>\n"
        }
        xml += "\t</dict>\n\t<key>Major Version</key><integer>1</integer>\n</dict>\n</plist>\n"
        let input = Array(xml.utf8)
        for format in [PlistFormat.xml, .json] {
            let expected = Self.tree(input, format, PlistWriteOptions(), PlistReadOptions())
            guard case .bytes = expected else {
                Issue.record("the tree path failed: \(expected)")
                continue
            }
            let got = Self.streamed(input, format, PlistWriteOptions(), PlistReadOptions(), eventLogMemory: 64 << 10,
                                    entrySpillMemory: 256 << 10)
            #expect(got == expected, "\(format)")
        }
    }

    /// Repeated keys follow the policy in a stream as in the tree, and CF$UID dictionaries of text become UIDs.
    @Test(arguments: [DuplicateKeyPolicy.lastWins, .firstWins, .reject])
    func treePoliciesHoldInAStream(_ policy: DuplicateKeyPolicy) throws {
        var read = PlistReadOptions()
        read.duplicateKeys = policy
        for (_, bytes, _) in EventSeamTests.duplicateKeyDocuments {
            Self.expectSame(bytes, "duplicates \(policy)", read: read)
        }
        let uid = Array("<plist><array><dict><key>CF$UID</key><integer>7</integer></dict></array></plist>".utf8)
        Self.expectSame(uid, "CF$UID", read: read)
    }

    /// A binary dictionary whose repeated key drops a value that does not decode: CF decodes every value before it
    /// builds a dictionary (`CFBinaryPList.c`), so the file does not read, whichever value the policy keeps, and a
    /// stream that merges the keys first must not write it either.
    @Test(arguments: [DuplicateKeyPolicy.lastWins, .firstWins])
    func aValueDroppedByARepeatedKeyIsStillDecoded(_ policy: DuplicateKeyPolicy) throws {
        // {k: <marker 0x7f>, k: 2} for lastWins, {k: 2, k: <marker 0x7f>} for firstWins; the bad object at offset 15.
        let values: [UInt8] = policy == .lastWins ? [2, 3] : [3, 2]
        var bytes = Array("bplist00".utf8) + [0xD2, 1, 1] + values + [0x51, 0x6B, 0x7F, 0x10, 0x02]
        let offsetTable = bytes.count
        bytes += [8, 13, 15, 16]
        bytes += [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 4] + [UInt8](repeating: 0, count: 8)
        bytes += [0, 0, 0, 0, 0, 0, 0, UInt8(offsetTable)]
        var read = PlistReadOptions()
        read.duplicateKeys = policy
        for (format, options) in Self.outputs where format != .binary {
            guard case .failure(let e) = Self.streamed(bytes, format, options, read) else {
                Issue.record("\(policy) → \(format): the stream wrote a document whose value at k does not decode")
                continue
            }
            #expect(e.kind == .syntax && e.format == .binary && e.offset == 15 && e.keyPath == KeyPath(components: ["k"]),
                    "\(policy) → \(format): \(e)")
        }
        Self.expectSame(bytes, "repeated key over a bad value, \(policy)", read: read)
    }

    /// A value the output cannot hold is reported only after the input was read: a syntax error later in the file
    /// wins, as in the tree path.
    @Test func readErrorsComeBeforeWriteErrors() throws {
        let bytes = Array("<plist><array><date>2024-01-01T00:00:00Z</date><integer>x</integer></array></plist>".utf8)
        guard case .failure(let e) = Self.streamed(bytes, .json, PlistWriteOptions(), PlistReadOptions()) else {
            Issue.record("expected an error")
            return
        }
        #expect(e.kind == .invalidValue && e.format == .xml, "\(e)")
        Self.expectSame(bytes, "date then bad integer")
    }

    /// The output goes out in buffers as it is made: a large document reaches the output callback more than once,
    /// and a failing callback stops the conversion with its error. A tree write just before leaves its 4 MiB output
    /// buffer for the next output to reuse; the stream must still hand on no more than a drain's buffer at a time (it
    /// once used all of a kept buffer, and this test failed when another test had left one).
    @Test func outputIsHandedOnInBuffers() throws {
        var entries = PlistDictionary()
        for i in 0..<60_000 { entries["key \(i)"] = .string(String(repeating: "v", count: 40)) }
        let input = try PropertyList.writeBytes(["Tracks": .dictionary(entries)], format: .xml)
        _ = try PropertyList.writeBytes(["Tracks": .dictionary(entries)], format: .json)
        var calls = 0
        var total: [UInt8] = []
        try input.withUnsafeBytes { raw in
            _ = try PropertyList.convert(raw, to: .json) { total += $0; calls += 1 }
        }
        #expect(calls > 1)
        #expect(total == (try PropertyList.writeBytes(try PropertyList.read(input).value, format: .json)))
        struct Full: Error {}
        #expect(throws: Full.self) {
            try input.withUnsafeBytes { raw in _ = try PropertyList.convert(raw, to: .xml) { _ in throw Full() } }
        }
    }

    /// A small binary file whose arrays each hold the previous one twice (2^40 leaves as a tree of 41 shared
    /// objects): the tree reader accepts it, a stream would have to write every leaf, and stops at its allowance (1 MiB
    /// here) with a size-limit error instead of running for ever; the same shape 12 deep streams in full.
    @Test func exponentialSharingStopsAtTheAllowance() throws {
        func doubling(_ depth: Int) -> [UInt8] {
            var objects = [BinaryFixture.int(7)]
            for level in 1...depth { objects.append(BinaryFixture.array([UInt64(level - 1), UInt64(level - 1)])) }
            var fixture = BinaryFixture(objects)
            fixture.top = UInt64(depth)
            return fixture.bytes
        }
        let deep = doubling(40)
        #expect(throws: Never.self) { try PropertyList.read(deep) }
        let outcome = Self.streamed(deep, .json, PlistWriteOptions(), PlistReadOptions(), sharingAllowance: 1 << 20)
        guard case .failure(let error) = outcome else {
            Issue.record("streamed a 2^40-leaf document: \(outcome)")
            return
        }
        #expect(error.kind == .sizeLimit)
        #expect(error.format == .binary)
        let shallow = doubling(12)
        #expect(Self.streamed(shallow, .json, PlistWriteOptions(), PlistReadOptions(), sharingAllowance: 1 << 20)
                == Self.tree(shallow, .json, PlistWriteOptions(), PlistReadOptions()))
    }
}

import Testing
@testable import PlistKit

/// The binary and text writers keep their working memory between writes (`ScratchCache`): what one write leaves
/// there must never show in the next one's bytes, whatever came before and however many write at once.
@Suite struct WriterScratchReuseTests {
    static let formats: [PlistFormat] = [.binary, .xml, .json, .openStep]

    static func values() -> [PlistValue] {
        var config = RandomPlist.Config()
        config.maxDepth = 5
        config.maxCollection = 20
        config.nonFiniteReals = false
        config.dates = false
        return (0..<120).map { seed in
            var generator = RandomPlist(seed: UInt64(seed), config: config)
            return generator.value()
        }
    }

    /// A document larger than the values, so that the kept buffers and the scalar table it leaves are bigger and
    /// full of its own strings and numbers (many of them equal to the values' own).
    static let large: PlistValue = {
        var entries: [(String, PlistValue)] = []
        for i in 0..<5_000 { entries.append(("k\(i % 700)-\(i)", .array([.string("s\(i % 50)"), .integer(PlistInteger(Int64(i % 300)))]))) }
        return .dictionary(PlistDictionary(entries))
    }()

    static func write(_ value: PlistValue, _ format: PlistFormat) -> [UInt8]? {
        var options = PlistWriteOptions()
        options.lossy = true
        return try? PropertyList.writeBytes(value, format: format, options: options)
    }

    @Test(arguments: formats)
    func bytesDoNotDependOnEarlierWrites(_ format: PlistFormat) throws {
        let values = Self.values()
        let first = values.map { Self.write($0, format) }
        // In the other order, with the large document written before each value.
        for i in values.indices.reversed() {
            _ = Self.write(Self.large, format)
            let again = Self.write(values[i], format)
            #expect(again == first[i], "value \(i) → \(format.displayName): bytes differ after another write")
        }
        // And each reads back as the value it was written from (where the format holds it).
        if format == .binary {
            for (i, bytes) in first.enumerated() {
                let bytes = try #require(bytes)
                #expect(try PropertyList.read(bytes).value == values[i], "value \(i) does not read back")
            }
        }
    }

    /// Strings of a write are freed before the next, and the next one's new strings may get their memory: a
    /// string the writer remembered by its representation must not be taken for them.
    @Test func freedStringsOfAnEarlierWriteAreNotRecognised() throws {
        for round in 0..<300 {
            // Long enough to live on the heap; new contents each round.
            let value = PlistValue.array((0..<40).map { .string("a heap-allocated string, round \(round), element \($0)") })
            let bytes = try #require(Self.write(value, .binary))
            #expect(try PropertyList.read(bytes).value == value, "round \(round)")
        }
    }

    @Test func concurrentWritersGetTheSameBytes() async throws {
        let values = Self.values()
        let expected = values.map { Self.write($0, .binary) }
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for task in 0..<4 {
                group.addTask {
                    var bad = 0
                    for round in 0..<5 {
                        for (i, v) in values.enumerated() where (i + task + round) % 2 == 0 {
                            if Self.write(v, .binary) != expected[i] { bad += 1 }
                            if Self.write(v, .xml) == nil { bad += 1 }
                        }
                    }
                    return bad
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }
}

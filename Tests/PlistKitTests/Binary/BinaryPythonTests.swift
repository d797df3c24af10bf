import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// Differential tests against CPython's `plistlib` (an independent implementation), run as one `python3` process per
/// test with every value in a batch.
@Suite struct BinaryPythonTests {
    /// Random values Python can represent exactly and unique the same way: no −0.0 (Python's `0.0 == -0.0` merges
    /// them into one object, PlistKit keeps both) and no float32 (Python writes every real as 8 bytes).
    static func pythonConfig() -> RandomPlist.Config {
        var config = RandomPlist.Config()
        config.uids = true
        config.nul = true
        config.negativeZero = false
        config.float32 = false
        return config
    }

    static func requirePython() throws -> Bool {
        if ExternalTool.find("python3") == nil {
            Issue.record("python3 is not installed: the plistlib differential tests cannot run")
            return false
        }
        return true
    }

    /// Large values (tens of thousands of objects, so the writer's uniquing table grows many times and references
    /// and offsets take 2 and 4 bytes) are byte-identical too.
    @Test func largeValuesAreByteIdentical() throws {
        guard try Self.requirePython() else { return }
        var config = Self.pythonConfig()
        config.maxCollection = 40
        config.maxDepth = 3
        var values: [PlistValue] = []
        for seed in 0..<8 {
            var random = RandomPlist(seed: UInt64(90_000 + seed), config: config)
            values.append(.array((0..<6).map { _ in random.value() }))
        }
        values.append(.array((0..<30_000).map { .integer(PlistInteger(Int64($0 % 7_000) * 1_000_003)) }))
        values.append(.array((0..<30_000).map { .string("s\($0 % 9_000)") }))
        var lines: [String] = []
        for value in values {
            let ours = try BinaryWriter.write(value, options: PlistWriteOptions())
            lines.append(TypedJSONText.encode(value) + "\t" + Data(ours).base64EncodedString())
        }
        let script = """
            bad = 0
            lines = sys.stdin.read().split('\\n')
            for line in lines:
                j, b = line.split('\\t')
                if plistlib.dumps(dec(json.loads(j)), fmt=plistlib.FMT_BINARY) != base64.b64decode(b):
                    bad += 1
            print(len(lines), bad)
            """
        guard let result = try BinaryPython.run(script, input: Data(lines.joined(separator: "\n").utf8)) else { return }
        #expect(result.status == 0, "\(String(decoding: result.stderr, as: UTF8.self))")
        #expect(String(decoding: result.stdout, as: UTF8.self) == "\(values.count) 0\n")
    }

    /// ≥ 1,000 seeded values: PlistKit's bytes must equal `plistlib.dumps(fmt=FMT_BINARY)` of the same value rebuilt
    /// in Python from typed JSON, and `plistlib.loads` of PlistKit's bytes must give that value back.
    @Test func writerIsByteIdenticalToPlistlib() throws {
        guard try Self.requirePython() else { return }
        var lines: [String] = []
        for seed in 0..<1200 {
            var random = RandomPlist(seed: UInt64(seed), config: Self.pythonConfig())
            let value = random.value()
            let ours = try BinaryWriter.write(value, options: PlistWriteOptions())
            lines.append(TypedJSONText.encode(value) + "\t" + Data(ours).base64EncodedString())
        }
        let script = """
            bad = []
            lines = sys.stdin.read().split('\\n')
            for i, line in enumerate(lines):
                j, b = line.split('\\t')
                value = dec(json.loads(j))
                ours = base64.b64decode(b)
                theirs = plistlib.dumps(value, fmt=plistlib.FMT_BINARY)
                if theirs != ours:
                    bad.append('value %d: bytes differ\\n ours   %s\\n python %s' % (i, ours.hex(), theirs.hex()))
                    continue
                if not same(plistlib.loads(ours), value):
                    bad.append('value %d: plistlib reads back a different value' % i)
            print(len(lines))
            print('\\n'.join(bad[:5]))
            """
        guard let result = try BinaryPython.run(script, input: Data(lines.joined(separator: "\n").utf8)) else { return }
        let out = String(decoding: result.stdout, as: UTF8.self)
        #expect(result.status == 0, "\(String(decoding: result.stderr, as: UTF8.self))")
        #expect(out.hasPrefix("1200\n"), "python checked: \(out.prefix(20))")
        #expect(out.trimmingCharacters(in: .whitespacesAndNewlines) == "1200", "\(out)")
    }

    /// Python-written files (including 16-byte integers, UTF-16 strings with surrogate pairs, UIDs, and ≥ 256
    /// objects so references are 2 bytes) read back as the value Python was given.
    @Test func readerReadsPlistlibOutput() throws {
        guard try Self.requirePython() else { return }
        var values: [PlistValue] = []
        for seed in 5000..<5300 {
            var random = RandomPlist(seed: UInt64(seed), config: Self.pythonConfig())
            values.append(random.value())
        }
        var big = PlistDictionary()
        for i in 0..<400 { big["key\(i)"] = .array([.integer(PlistInteger(Int64(i * 1000))), .string("s\(i)")]) }
        values.append(.dictionary(big))
        values.append(.data(Data(repeating: 7, count: 70_000)))
        let script = """
            for line in sys.stdin.read().split('\\n'):
                print(base64.b64encode(plistlib.dumps(dec(json.loads(line)), fmt=plistlib.FMT_BINARY)).decode())
            """
        let input = values.map(TypedJSONText.encode).joined(separator: "\n")
        guard let result = try BinaryPython.run(script, input: Data(input.utf8)) else { return }
        #expect(result.status == 0, "\(String(decoding: result.stderr, as: UTF8.self))")
        let outputs = String(decoding: result.stdout, as: UTF8.self).split(separator: "\n")
        try #require(outputs.count == values.count)
        for (value, b64) in zip(values, outputs) {
            let bytes = try #require(Data(base64Encoded: String(b64)))
            let (read, format) = try PropertyList.read(bytes)
            #expect(format == .binary)
            #expect(read == value, "\(TypedJSONText.encode(value).prefix(300))")
        }
    }
}

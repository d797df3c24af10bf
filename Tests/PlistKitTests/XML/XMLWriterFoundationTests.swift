import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// Differential tests of `XMLWriter` against Foundation's `PropertyListSerialization` (Core Foundation's XML writer
/// and reader) in the same process: the bytes must be identical, and Foundation must read ours back.
@Suite struct XMLWriterFoundationTests {
    static func foundationXML(_ value: PlistValue) throws -> [UInt8] {
        let object = try FoundationBridge.toFoundation(value)
        return [UInt8](try PropertyListSerialization.data(fromPropertyList: object, format: .xml, options: 0))
    }

    static func ours(_ value: PlistValue, sortKeys: Bool = true) throws -> [UInt8] {
        var options = PlistWriteOptions()
        options.sortKeys = sortKeys
        return try PropertyList.writeBytes(value, format: .xml, options: options)
    }

    /// The first line where two outputs differ, for a readable failure.
    static func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> String {
        let la = String(decoding: a, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        let lb = String(decoding: b, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        for i in 0..<max(la.count, lb.count) {
            let x = i < la.count ? String(la[i]) : "<end>"
            let y = i < lb.count ? String(lb[i]) : "<end>"
            if x != y { return "line \(i + 1): ours \(x.debugDescription) vs Foundation \(y.debugDescription)" }
        }
        return "no line differs (lengths \(a.count) vs \(b.count))"
    }

    static func expectSameBytes(_ value: PlistValue, _ label: String) throws {
        let mine = try ours(value)
        let theirs = try foundationXML(value)
        #expect(mine == theirs, "\(label): \(firstDifference(mine, theirs))")
    }

    // MARK: 11a — byte identity

    @Test func randomValuesMatchFoundationBytes() throws {
        var failures = 0
        for seed in 0..<1000 {
            var generator = RandomPlist(seed: UInt64(seed))
            let value = generator.value()
            let mine = try Self.ours(value)
            let theirs = try Self.foundationXML(value)
            if mine != theirs {
                failures += 1
                if failures <= 5 { Issue.record("seed \(seed): \(Self.firstDifference(mine, theirs))") }
            }
        }
        #expect(failures == 0, "\(failures) of 1000 random values differ from Foundation")
    }

    @Test func deepRandomValuesWithFloat32MatchFoundationBytes() throws {
        var config = RandomPlist.Config()
        config.maxDepth = 10
        config.maxCollection = 4
        config.float32 = true
        var failures = 0
        for seed in 0..<300 {
            var generator = RandomPlist(seed: 10_000 + UInt64(seed), config: config)
            let value = generator.value()
            let mine = try Self.ours(value)
            let theirs = try Self.foundationXML(value)
            if mine != theirs {
                failures += 1
                if failures <= 5 { Issue.record("seed \(10_000 + seed): \(Self.firstDifference(mine, theirs))") }
            }
        }
        #expect(failures == 0)
    }

    @Test func controlCharactersNULAndLineEndingsMatchFoundation() throws {
        var all = ""
        for v in 0..<0x20 { all.unicodeScalars.append(Unicode.Scalar(UInt8(v))) }
        let value: PlistValue = [
            "controls": .string(all), "crlf": "a\r\nb\rc\nd", "nul": "x\u{0}y", "specials": "<a href=\"x\">&amp;'</a>",
            "\u{0}key\r\n": "value", "&<>": "k",
        ]
        try Self.expectSameBytes(value, "control characters")
    }

    @Test func keyOrderIsUTF16CodeUnitOrder() throws {
        // 😀 (U+1F600, surrogates D83D DE00) sorts before ～ (U+FF5E) in UTF-16 but after it by scalar value.
        // (No "e\u{301}" beside "é": Foundation's NSMutableDictionary on Linux merges canonically equivalent keys;
        // XMLWriterTests checks that pair against the reference order instead.)
        let keys = ["A", "Z", "a", "aa", "b", "é", "😀", "～", "\u{E000}", "\u{FFFD}", "𝄞", "", "a\u{0}", "ab", "\u{7F}", "\u{80}"]
        var d = PlistDictionary()
        for (i, k) in keys.enumerated() { d[k] = .integer(PlistInteger(i)) }
        try Self.expectSameBytes(.dictionary(d), "astral keys")
        var r = SeededGenerator(seed: 7)
        for round in 0..<50 {
            var d = PlistDictionary()
            for _ in 0..<30 {
                var s = ""
                for _ in 0..<Int.random(in: 1...4, using: &r) {
                    let pool: [UInt32] = [0x41, 0x61, 0xE9, 0xE000, 0xFF5E, 0xFFFF, 0x1F600, 0x10000, 0x10FFFF, 0xD7FF, 0x301]
                    s.unicodeScalars.append(Unicode.Scalar(pool[Int.random(in: 0..<pool.count, using: &r)])!)
                }
                d[s] = true
            }
            try Self.expectSameBytes(.dictionary(d), "random astral keys round \(round)")
        }
    }

    @Test func dataAtEveryDepthMatchesFoundation() throws {
        for depth in 0...10 {
            for size in [0, 1, 2, 3, 56, 57, 58, 100, 300] {
                let bytes = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ depth) })
                var value = PlistValue.data(bytes)
                for level in 0..<depth { value = level % 2 == 0 ? .array([value]) : ["k": value] }
                try Self.expectSameBytes(value, "data of \(size) bytes at depth \(depth)")
            }
        }
    }

    @Test func integersAndRealsMatchFoundation() throws {
        let ints: [PlistInteger] = [
            0, -1, 1, 9, 10, 99, 100, 12345, PlistInteger(Int64.min), PlistInteger(Int64.max),
            PlistInteger(UInt64(Int64.max) + 1), PlistInteger(UInt64.max), PlistInteger(Int64(Int32.min)),
        ]
        try Self.expectSameBytes(.array(ints.map { .integer($0) }), "integers")
        var reals: [Double] = [
            0.1, 0.2, 0.3, 1.0 / 3, 2, 1.5, 1e20, 1e21, 1e16, 1e17, 9007199254740992, 9007199254740994, 123456789012345680,
            1e-4, 1e-5, 0.000123456, 1e-7, .leastNonzeroMagnitude, .leastNormalMagnitude, 1.7976931348623157e308, 1e300,
            -0.0, 0.0, .nan, .infinity, -.infinity, 0.5, 100, 1e15, 99999999999999984, 0.30000000000000004,
            1e22, 1e23, 4.35, 204.434, 707732538304.3455, 3.4028236692093846e38, 1.7e38, 1.8e38,
        ]
        var r = SeededGenerator(seed: 99)
        for _ in 0..<2000 {
            reals.append(Double(bitPattern: r.next() & 0x7FEF_FFFF_FFFF_FFFF))
            reals.append(Double.random(in: -1e6...1e6, using: &r))
            reals.append(Double(Int.random(in: -1_000_000...1_000_000, using: &r)) / 1000)
        }
        try Self.expectSameBytes(.array(reals.map { .real(PlistReal($0)) }), "reals")
        let floats: [Float] = [0.1, 0.5, 1.0 / 3, 3.4e38, .leastNonzeroMagnitude, -2.5, 16_777_216]
        try Self.expectSameBytes(.array(floats.map { .real(PlistReal($0)) }), "float32 reals")
    }

    @Test func datesMatchFoundationIncludingYearZeroAndBefore() throws {
        var seconds: [Double] = [
            -63_145_612_800, -63_114_076_800, -63_113_990_400, -63_082_454_400, -62_135_769_600, -0.5, -0.001, 0,
            0.999, 1e12, -1e12, 252_423_993_600, 252_423_993_599, 1e15, -1e15,
        ]
        var r = SeededGenerator(seed: 3)
        for _ in 0..<3000 { seconds.append(Double.random(in: -2e11...3e11, using: &r).rounded(.down)) }
        for _ in 0..<500 { seconds.append(Double.random(in: -1e13...1e13, using: &r)) }
        // Every day of years −2 … 1 (where Core Foundation's calendar arithmetic changes sign).
        for day in -731_600 ... -730_100 { seconds.append(Double(day) * 86_400) }
        try Self.expectSameBytes(.array(seconds.map { .date(PlistDate(secondsSinceReferenceDate: $0)) }), "dates")
    }

    @Test func emptyAndNestedCollectionsMatchFoundation() throws {
        let value: PlistValue = [
            "a": [], "d": [:], "nested": [[], [:], [[]], ["x": [:]]], "s": "", "data": .data(Data()),
        ]
        try Self.expectSameBytes(value, "empty collections")
        try Self.expectSameBytes([], "empty root array")
        try Self.expectSameBytes([:], "empty root dict")
        try Self.expectSameBytes("root string", "scalar root")
        try Self.expectSameBytes(.data(Data(count: 200)), "data root")
    }

    // MARK: 11c — Foundation reads our XML back

    /// What XML can carry: −0.0 is written as `0.0`, and the float32 width is not recorded.
    static func xmlNormalised(_ v: PlistValue) -> PlistValue {
        switch v {
        case .real(let r): return .real(PlistReal(r.value == 0 ? 0.0 : r.value))
        case .array(let a): return .array(a.map(xmlNormalised))
        case .dictionary(let d): return .dictionary(PlistDictionary(d.map { ($0.key, xmlNormalised($0.value)) }))
        default: return v
        }
    }

    @Test func foundationReadsOurXMLBackToTheSameValue() throws {
        var config = RandomPlist.Config()
        config.float32 = true
        config.nul = true
        var failures = 0
        for seed in 0..<1000 {
            var generator = RandomPlist(seed: 50_000 + UInt64(seed), config: config)
            let value = generator.value()
            let xml = try Self.ours(value)
            let object = try PropertyListSerialization.propertyList(from: Data(xml), options: [], format: nil)
            let back = try FoundationBridge.fromFoundation(object)
            if back != Self.xmlNormalised(value) {
                failures += 1
                if failures <= 3 { Issue.record("seed \(50_000 + seed): Foundation read \(back), expected \(value)") }
            }
        }
        #expect(failures == 0)
    }

    @Test func foundationReadsUnsortedOutputToo() throws {
        var generator = RandomPlist(seed: 4242)
        for _ in 0..<200 {
            let value = generator.value()
            let xml = try Self.ours(value, sortKeys: false)
            let object = try PropertyListSerialization.propertyList(from: Data(xml), options: [], format: nil)
            #expect(try FoundationBridge.fromFoundation(object) == Self.xmlNormalised(value))
        }
    }

    @Test func foundationReadsOurUIDsAsKeyedArchiverUIDs() throws {
        // Foundation has no public UID type, but its reader turns a one-key CF$UID dictionary into one: the
        // binary form it writes for the value we wrote as XML must use the UID marker (0x8n).
        let xml = try Self.ours(.array([.uid(UID(5))]))
        let object = try PropertyListSerialization.propertyList(from: Data(xml), options: [], format: nil)
        let binary = [UInt8](try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0))
        #expect(binary.contains(0x80 | 0x00) && binary.contains(0x05), "binary: \(binary)")
        #expect(binary.firstIndex(of: 0x80).map { binary[$0 + 1] == 0x05 } == true, "UID marker 0x80 followed by 5")
    }
}

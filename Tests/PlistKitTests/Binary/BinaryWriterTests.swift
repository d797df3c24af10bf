import Foundation
import Testing
@testable import PlistKit

/// The writer's layout rules, checked byte by byte against the encoding `CFBinaryPList.c` and Python's
/// `plistlib` write.
@Suite struct BinaryWriterTests {
    func write(_ v: PlistValue, sortKeys: Bool = true) throws -> [UInt8] {
        var options = PlistWriteOptions()
        options.sortKeys = sortKeys
        return try PropertyList.writeBytes(v, format: .binary, options: options)
    }

    struct Parsed {
        var offsetSize: Int, refSize: Int, count: Int, top: Int, tableOffset: Int
        var offsets: [Int]
    }

    /// Splits a file into trailer fields and offsets (by the spec, independently of the reader).
    func parse(_ b: [UInt8]) -> Parsed {
        func be(_ at: Int, _ n: Int) -> Int { (0..<n).reduce(0) { $0 << 8 | Int(b[at + $1]) } }
        let t = b.count - 32
        let offsetSize = Int(b[t + 6]), refSize = Int(b[t + 7])
        let count = be(t + 8, 8), tableOffset = be(t + 24, 8)
        let offsets = (0..<count).map { be(tableOffset + $0 * offsetSize, offsetSize) }
        return Parsed(offsetSize: offsetSize, refSize: refSize, count: count, top: be(t + 16, 8), tableOffset: tableOffset, offsets: offsets)
    }

    func object(_ b: [UInt8], _ p: Parsed, _ i: Int) -> [UInt8] {
        let start = p.offsets[i]
        let end = p.offsets.filter { $0 > start }.min() ?? p.tableOffset
        return Array(b[start..<end])
    }

    @Test func headerAndTrailer() throws {
        let b = try write(["a", 1])
        #expect(Array(b.prefix(8)) == Array("bplist00".utf8))
        let p = parse(b)
        #expect(Array(b[(b.count - 32)..<(b.count - 26)]) == [0, 0, 0, 0, 0, 0])
        #expect(p.count == 3 && p.top == 0 && p.offsetSize == 1 && p.refSize == 1)
        #expect(p.tableOffset + p.count * p.offsetSize + 32 == b.count)
    }

    @Test func isDeterministic() throws {
        var random = RandomPlist(seed: 7)
        let v = random.value()
        let first = try write(v)
        for _ in 0..<5 { #expect(try write(v) == first) }
    }

    @Test func scalarsAreUniquedByValue() throws {
        let v: PlistValue = ["s", "s", 1, 1, 1.0, 1.0, true, true, false, false, .data(Data([1])), .data(Data([1])),
                             .date(PlistDate(secondsSinceReferenceDate: 5)), .date(PlistDate(secondsSinceReferenceDate: 5))]
        let b = try write(v)
        let p = parse(b)
        #expect(p.count == 1 + 7)
        // Array refs: each pair shares one object.
        #expect(Array(b[9..<23]) == [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7])
    }

    @Test func realsAreUniquedByBitsAndWidth() throws {
        let v: PlistValue = [.real(PlistReal(0.0)), .real(PlistReal(-0.0)), .integer(1), .real(PlistReal(1.0)),
                             .real(PlistReal(Float(1.0))), .real(PlistReal(Double.nan)), .real(PlistReal(Double.nan))]
        let p = parse(try write(v))
        #expect(p.count == 1 + 6)
    }

    @Test func collectionsAreNeverShared() throws {
        let inner: PlistValue = [1]
        let p = parse(try write([inner, inner, [:], [:]]))
        #expect(p.count == 1 + 2 + 1 + 2)
    }

    @Test func uidsAreNotUniqued() throws {
        let p = parse(try write([.uid(UID(3)), .uid(UID(3))]))
        #expect(p.count == 3)
    }

    @Test func integerEncodings() throws {
        func bytes(_ v: PlistValue) throws -> [UInt8] {
            let b = try write([v])
            return object(b, parse(b), 1)
        }
        #expect(try bytes(0) == [0x10, 0])
        #expect(try bytes(255) == [0x10, 0xFF])
        #expect(try bytes(256) == [0x11, 1, 0])
        #expect(try bytes(65536) == [0x12, 0, 1, 0, 0])
        #expect(try bytes(.integer(PlistInteger(Int64(1) << 32))) == [0x13, 0, 0, 0, 1, 0, 0, 0, 0])
        #expect(try bytes(-1) == [0x13] + Array(repeating: 0xFF, count: 8))
        #expect(try bytes(.integer(PlistInteger(UInt64.max))) == [0x14] + Array(repeating: 0, count: 8) + Array(repeating: 0xFF, count: 8))
        #expect(try bytes(.integer(PlistInteger(UInt64(Int64.max) + 1))) == [0x14] + Array(repeating: 0, count: 8) + [0x80] + Array(repeating: 0, count: 7))
    }

    @Test func realDateUIDEncodings() throws {
        func bytes(_ v: PlistValue) throws -> [UInt8] {
            let b = try write([v])
            return object(b, parse(b), 1)
        }
        #expect(try bytes(.real(PlistReal(Float(1.5)))) == [0x22, 0x3F, 0xC0, 0, 0])
        #expect(try bytes(1.5) == [0x23, 0x3F, 0xF8, 0, 0, 0, 0, 0, 0])
        #expect(try bytes(.date(PlistDate(secondsSinceReferenceDate: 1.5))) == [0x33, 0x3F, 0xF8, 0, 0, 0, 0, 0, 0])
        #expect(try bytes(.uid(UID(5))) == [0x80, 5])
        #expect(try bytes(.uid(UID(300))) == [0x81, 1, 0x2C])
        #expect(try bytes(.uid(UID(70000))) == [0x83, 0, 1, 0x11, 0x70])
        #expect(try bytes(.uid(UID(1 << 40))) == [0x87, 0, 0, 1, 0, 0, 0, 0, 0])
    }

    @Test func stringsAndLengths() throws {
        func bytes(_ v: PlistValue) throws -> [UInt8] {
            let b = try write([v])
            return object(b, parse(b), 1)
        }
        #expect(try bytes("abc") == [0x53, 0x61, 0x62, 0x63])
        #expect(try bytes(.string(String(repeating: "a", count: 14))).first == 0x5E)
        #expect(try bytes(.string(String(repeating: "a", count: 15))).prefix(3) == [0x5F, 0x10, 15])
        #expect(try bytes(.string(String(repeating: "a", count: 256))).prefix(4) == [0x5F, 0x11, 1, 0])
        // Non-ASCII: UTF-16BE, count in code units (😀 is two).
        #expect(try bytes("é😀") == [0x63, 0x00, 0xE9, 0xD8, 0x3D, 0xDE, 0x00])
        #expect(try bytes(.data(Data(repeating: 9, count: 15))).prefix(3) == [0x4F, 0x10, 15])
        let a = try write(.array(Array(repeating: true, count: 15)))
        #expect(Array(a[8..<11]) == [0xAF, 0x10, 15])
    }

    @Test func widthsAreTheSmallestThatFit() throws {
        // 255 objects: 1-byte refs; 256: 2-byte (the count, not count − 1, decides, as in CF and Python).
        let p255 = parse(try write(.array((0..<254).map { .integer(PlistInteger(Int64($0))) })))
        #expect(p255.count == 255 && p255.refSize == 1)
        let p256 = parse(try write(.array((0..<255).map { .integer(PlistInteger(Int64($0))) })))
        #expect(p256.count == 256 && p256.refSize == 2)
        // Offsets from the offset-table offset: 1, 2, then 4 (never 3).
        #expect(parse(try write(.data(Data(count: 200)))).offsetSize == 1)
        #expect(parse(try write(.data(Data(count: 300)))).offsetSize == 2)
        let big = parse(try write(.data(Data(count: 70_000))))
        #expect(big.offsetSize == 4)
    }

    @Test func objectOrderIsPreOrderKeysThenValues() throws {
        let v: PlistValue = ["b": ["x": 1], "a": "y"]
        let b = try write(v)
        let p = parse(b)
        // 0 dict, 1 "a", 2 "b", 3 "y", 4 inner dict, 5 "x", 6 1.
        #expect(object(b, p, 0) == [0xD2, 1, 2, 3, 4])
        #expect(object(b, p, 1) == [0x51, 0x61])
        #expect(object(b, p, 3) == [0x51, 0x79])
        #expect(object(b, p, 4) == [0xD1, 5, 6])
        // Without sorting, insertion order is kept.
        let u = try write(v, sortKeys: false)
        #expect(object(u, parse(u), 1) == [0x51, 0x62])
    }

    @Test func keysSortByScalarsNotUTF16() throws {
        // U+FF5E sorts before U+1F600 by scalar, after it by UTF-16 unit (0xD83D).
        let b = try write(["\u{1F600}": 1, "\u{FF5E}": 2])
        let p = parse(b)
        #expect(object(b, p, 1) == [0x61, 0xFF, 0x5E])
    }

    @Test func depthLimitOnWrite() throws {
        var v: PlistValue = 1
        for _ in 0..<600 { v = [v] }
        #expect(throws: PlistError.self) { try write(v) }
        var options = PlistWriteOptions()
        options.maxDepth = 1000
        #expect(try PropertyList.writeBytes(v, format: .binary, options: options).count > 600)
    }

    @Test func roundTripsThroughTheReader() throws {
        var config = RandomPlist.Config()
        config.uids = true
        config.float32 = true
        config.nul = true
        config.fractionalDates = true
        for seed in 0..<300 {
            var random = RandomPlist(seed: UInt64(seed), config: config)
            let v = random.value()
            let back = try PropertyList.read(try write(v)).value
            #expect(back == v, "seed \(seed)")
        }
    }

    /// The corpus files plistlib wrote (`Corpus/binary/plistlib-*.bplist`) come out of read + write byte for byte.
    @Test func rewritesPlistlibCorpusFilesIdentically() throws {
        let dir = CorpusTests.root.appendingPathComponent("binary")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path)
            .filter { $0.hasPrefix("plistlib-") && $0.hasSuffix(".bplist") }
        #expect(names.count >= 5)
        for name in names {
            let original = try Data(contentsOf: dir.appendingPathComponent(name))
            let value = try PropertyList.read(original).value
            #expect(try write(value) == Array(original), "\(name)")
        }
    }
}

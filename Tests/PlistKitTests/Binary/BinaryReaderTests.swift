import Foundation
import Testing
@testable import PlistKit

/// One test per reader rule, on files assembled by hand (`BinaryFixture`) from the layout CoreFoundation's
/// `CFBinaryPList.c` reads (header, objects, offset table, trailer). Expected values are the spec's meaning of the bytes.
@Suite struct BinaryReaderTests {
    typealias F = BinaryFixture

    func read(_ f: BinaryFixture, _ options: PlistReadOptions = PlistReadOptions()) throws -> PlistValue {
        try PropertyList.read(f.bytes, options: options).value
    }

    /// The error for `bytes`, or nil (recorded as a failure) when it reads.
    func failure(_ bytes: [UInt8], _ options: PlistReadOptions = PlistReadOptions()) -> PlistError? {
        do {
            let v = try bytes.withUnsafeBytes { try PropertyList.read($0, as: .binary, options: options) }
            Issue.record("expected an error, got \(v)")
            return nil
        } catch let e as PlistError {
            #expect(e.format == .binary)
            #expect(e.offset != nil, "no offset: \(e)")
            return e
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    // MARK: Accepted

    @Test func detectsBinaryAndReadsScalars() throws {
        let f = F([F.array([1, 2, 3, 4, 5, 6]), [0x09], [0x08], F.int(200), F.ascii("hi"), [0x42, 1, 2], [0x33] + F.bigEndian(Double(86_400).bitPattern, 8)])
        let (v, format) = try PropertyList.read(f.bytes)
        #expect(format == .binary)
        #expect(v == [true, false, 200, "hi", .data(Data([1, 2])), .date(PlistDate(secondsSinceReferenceDate: 86_400))])
    }

    @Test func acceptsAnyMinorVersionOfBplist0() throws {
        for magic in ["bplist00", "bplist01", "bplist0x"] {
            var f = F([F.int(7)])
            f.magic = magic
            #expect(try read(f) == 7)
        }
    }

    @Test func rejectsOtherVersions() {
        for magic in ["bplist15", "bplist16", "bplist17", "bplist1x", "bplist20"] {
            var f = F([F.int(7)])
            f.magic = magic
            let e = failure(f.bytes)
            #expect(e?.kind == .unsupportedVersion, "\(magic)")
            #expect(e?.message.contains("unsupported binary plist version") == true)
            #expect(e?.offset == 6)
        }
    }

    @Test func threeByteAndOtherOddWidths() throws {
        for width in 1...8 {
            var f = F([F.array([1, 2], refSize: width), F.ascii("a"), F.int(9)], offsetSize: width, refSize: width)
            f.offsetSize = width
            #expect(try read(f) == ["a", 9], "width \(width)")
        }
    }

    @Test func integerWidths() throws {
        #expect(try read(F([[0x10, 0xFF]])) == 255)
        #expect(try read(F([[0x11, 0xFF, 0xFF]])) == 65535)
        #expect(try read(F([[0x12, 0xFF, 0xFF, 0xFF, 0xFF]])) == 4_294_967_295)
        #expect(try read(F([[0x13] + F.bigEndian(UInt64.max, 8)])) == -1)
        // Non-minimal encodings are accepted (CF does).
        #expect(try read(F([[0x13, 0, 0, 0, 0, 0, 0, 0, 5]])) == 5)
    }

    @Test func sixteenByteIntegersCoverTheFullRange() throws {
        let big = try read(F([[0x14] + F.bigEndian(0, 8) + F.bigEndian(UInt64.max, 8)]))
        #expect(big == .integer(PlistInteger(UInt64.max)))
        let minusOne = try read(F([[0x14] + F.bigEndian(UInt64.max, 8) + F.bigEndian(UInt64.max, 8)]))
        #expect(minusOne == -1)
        let min = try read(F([[0x14] + F.bigEndian(UInt64.max, 8) + F.bigEndian(1 << 63, 8)]))
        #expect(min == .integer(PlistInteger(Int64.min)))
        // 2^64 and −2^63 − 1 are outside the plist range.
        #expect(failure(F([[0x14] + F.bigEndian(1, 8) + F.bigEndian(0, 8)]).bytes)?.kind == .integerOutOfRange)
        let below = failure(F([[0x14] + F.bigEndian(UInt64.max, 8) + F.bigEndian((1 << 63) - 1, 8)]).bytes)
        #expect(below?.kind == .integerOutOfRange)
        #expect(below?.offset == 8)
    }

    @Test func realsKeepTheirWidth() throws {
        let v = try read(F([F.array([1, 2]), [0x22] + F.bigEndian(UInt64(Float(0.1).bitPattern), 4), [0x23] + F.bigEndian(0.1.bitPattern, 8)]))
        let a = try #require(v.arrayValue)
        #expect(a[0].realValue?.isFloat32 == true)
        #expect(a[0].realValue?.value == Double(Float(0.1)))
        #expect(a[1].realValue?.isFloat32 == false)
        #expect(a[1].realValue?.value == 0.1)
    }

    @Test func utf16Strings() throws {
        // "é😀" = U+00E9, U+1F600 (surrogates D83D DE00); count is in UTF-16 units.
        #expect(try read(F([F.utf16([0xE9, 0xD83D, 0xDE00])])) == "é😀")
        #expect(try read(F([F.utf16([0x41, 0, 0x20AC])])) == "A\u{0}€")
        let long = (0..<20).map { _ in UInt16(0x4E2D) }
        #expect(try read(F([F.utf16(long)])) == .string(String(repeating: "中", count: 20)))
    }

    @Test func uidsOfAnyWidth() throws {
        #expect(try read(F([[0x80, 0x05]])) == .uid(UID(5)))
        #expect(try read(F([[0x82, 1, 0, 0]])) == .uid(UID(65536)))
        #expect(try read(F([[0x87] + F.bigEndian(UInt64.max, 8)])) == .uid(UID(UInt64.max)))
        #expect(failure(F([[0x88, 1] + F.bigEndian(0, 8)]).bytes)?.kind == .integerOutOfRange)
    }

    @Test func lengthsOfFifteenAndMore() throws {
        let s = String(repeating: "x", count: 15)
        #expect(try read(F([F.ascii(s)])) == .string(s))
        #expect(try read(F([[0x4F, 0x10, 15] + Array(repeating: 1, count: 15)])) == .data(Data(repeating: 1, count: 15)))
        // A 2-byte length.
        let t = String(repeating: "y", count: 300)
        #expect(try read(F([F.ascii(t)], offsetSize: 2)) == .string(t))
    }

    @Test func sharedSubtreesDecodeOnce() throws {
        // 64 levels, each an array holding the next level twice: 2^64 leaves if expanded, 66 objects in the file.
        var objects: [[UInt8]] = []
        for i in 0..<64 { objects.append(F.array([UInt64(i + 1), UInt64(i + 1)])) }
        objects.append(F.ascii("leaf"))
        let clock = ContinuousClock()
        let start = clock.now
        var v = try read(F(objects))
        #expect(clock.now - start < .seconds(2))
        for _ in 0..<64 {
            let a = try #require(v.arrayValue)
            #expect(a.count == 2)
            v = a[1]
        }
        #expect(v == "leaf")
    }

    /// Records with the same key objects (as writers lay out an array of dictionaries) share decoded keys; each
    /// record still gets its own values, and lookups work past the index threshold.
    @Test func recordsSharingKeyObjects() throws {
        // 0: array of 3 dicts (1, 2, 3); keys 4…17 (14 keys); values 18…31.
        let keyRefs = (4...17).map { UInt64($0) }
        var objects: [[UInt8]] = [F.array([1, 2, 3])]
        objects.append(F.dict(keyRefs, (18...31).map { UInt64($0) }))
        objects.append(F.dict(keyRefs, (18...31).reversed().map { UInt64($0) }))
        objects.append(F.dict(Array(keyRefs.prefix(2)), [18, 19]))
        objects += (0..<14).map { F.ascii("key\($0)") }
        objects += (0..<14).map { F.int(UInt8($0)) }
        let v = try read(F(objects))
        let records = try #require(v.arrayValue)
        #expect(records[0]["key13"] == 13)
        #expect(records[1]["key13"] == 0)
        #expect(records[1]["key0"] == 13)
        #expect(records[2] == ["key0": 0, "key1": 1])
        // A duplicate inside a repeated key sequence is found every time.
        let dup = F([F.array([1, 2]), F.dict([3, 3], [4, 4]), F.dict([3, 3], [4, 4]), F.ascii("k"), F.int(1)])
        var options = PlistReadOptions()
        options.duplicateKeys = .reject
        #expect(failure(dup.bytes, options)?.kind == .duplicateKey)
        #expect(try read(dup) == [["k": 1], ["k": 1]])
    }

    @Test func depthLimit() throws {
        func nested(_ n: Int) -> F {
            var objects = (0..<n).map { F.array([UInt64($0 + 1)], refSize: 2) }
            objects.append(F.int(1))
            return F(objects, offsetSize: 4, refSize: 2)
        }
        _ = try read(nested(512))
        let e = failure(nested(513).bytes)
        #expect(e?.kind == .depthLimit)
        var options = PlistReadOptions()
        options.maxDepth = 10
        _ = try read(nested(10), options)
        #expect(failure(nested(11).bytes, options)?.kind == .depthLimit)
    }

    @Test func duplicateKeysFollowThePolicy() throws {
        let f = F([F.dict([1, 2], [3, 4]), F.ascii("k"), F.ascii("k"), F.int(1), F.int(2)])
        // By default as Core Foundation's binary reader (`CFDictionaryAddValue` keeps the first).
        #expect(try read(f) == ["k": 1])
        var options = PlistReadOptions()
        options.duplicateKeys = .lastWins
        #expect(try read(f, options) == ["k": 2])
        options.duplicateKeys = .firstWins
        #expect(try read(f, options) == ["k": 1])
        options.duplicateKeys = .reject
        let e = failure(f.bytes, options)
        #expect(e?.kind == .duplicateKey)
        #expect(e?.offset == f.offset(of: 2))
        // Keys that differ only in normalisation are different keys.
        let g = F([F.dict([1, 2], [3, 4]), F.utf16([0xE9]), F.utf16([0x65, 0x301]), F.int(1), F.int(2)])
        #expect(try read(g, options).dictionaryValue?.count == 2)
    }

    /// Past the index threshold, and between distinct key objects with the same scalars, duplicates still follow
    /// the policy; the entry keeps the first key's position.
    @Test func duplicateKeysInLargeDictionaries() throws {
        // 0: dict of 20 keys: objects 1…19 ("k0"…"k18") and object 20, a second "k5"; values 21…40 (integers 0…19).
        let keys = (0..<19).map { F.ascii("k\($0)") } + [F.ascii("k5")]
        let f = F([F.dict((1...20).map { UInt64($0) }, (21...40).map { UInt64($0) })] + keys
            + (0..<20).map { F.int(UInt8($0)) })
        var options = PlistReadOptions()
        #expect(try read(f, options)["k5"] == 5, "by default the first, as Core Foundation reads binary")
        options.duplicateKeys = .lastWins
        let last = try #require(try read(f, options).dictionaryValue)
        #expect(last.count == 19)
        #expect(last["k5"] == 19)
        #expect(last.keys[5] == "k5")
        options.duplicateKeys = .firstWins
        #expect(try read(f, options)["k5"] == 5)
        options.duplicateKeys = .reject
        let e = failure(f.bytes, options)
        #expect(e?.kind == .duplicateKey)
        #expect(e?.offset == f.offset(of: 20))
    }

    /// One string object serving as a value, then as a key, then as a value again (writers share equal strings).
    @Test func stringSharedByKeysAndValues() throws {
        let f = F([F.array([1, 2, 1]), F.ascii("a shared string that is long"), F.dict([1], [1])])
        let v = try read(f)
        #expect(v == ["a shared string that is long", ["a shared string that is long": "a shared string that is long"],
                      "a shared string that is long"])
    }

    @Test func strictDates() throws {
        // By default a NaN or infinite date is an error (no text format can hold one); `strictDates = false` keeps it.
        let f = F([[0x33] + F.bigEndian(Double.nan.bitPattern, 8)])
        #expect(failure(f.bytes)?.kind == .invalidValue)
        let g = F([[0x33] + F.bigEndian(Double.infinity.bitPattern, 8)])
        #expect(failure(g.bytes)?.kind == .invalidValue)
        var options = PlistReadOptions()
        options.strictDates = false
        #expect(try read(f, options).dateValue?.secondsSinceReferenceDate.isNaN == true)
        #expect(try read(g, options).dateValue?.secondsSinceReferenceDate == .infinity)
    }

    @Test func errorsNameTheKeyPath() throws {
        let f = F([F.dict([1], [2]), F.ascii("outer"), F.array([3, 4]), F.int(1), [0x70]])
        let e = failure(f.bytes)
        #expect(e?.kind == .syntax)
        #expect(e?.keyPath?.components == ["outer", "1"])
        #expect(e?.offset == f.offset(of: 4))
    }

    @Test func errorsNameTheKeyOfKeysReadFirst() throws {
        // A dictionary of distinct keys hands them to the tree at once, before its values: the failing value's key
        // is still the one at its index. The second record has the same key objects (a remembered key set).
        let good = F.dict([1, 2, 3], [4, 4, 4])
        let bad = F.dict([1, 2, 3], [4, 5, 4])
        let f = F([F.array([6, 7]), F.ascii("a"), F.ascii("b"), F.ascii("c"), F.int(1), [0x70], good, bad])
        let e = failure(f.bytes)
        #expect(e?.kind == .syntax)
        #expect(e?.keyPath?.components == ["1", "b"])
        let g = F([F.dict([1, 2, 3], [4, 5, 4]), F.ascii("a"), F.ascii("b"), F.ascii("c"), F.int(1), [0x70]])
        #expect(failure(g.bytes)?.keyPath?.components == ["b"])
    }

    // MARK: Rejected: objects

    @Test func unknownMarkers() {
        for marker: [UInt8] in [[0x00], [0x0F], [0x70], [0xC0], [0xB0], [0x90], [0xE0], [0xF0], [0x21, 0, 0], [0x24], [0x15], [0x34]] {
            let f = F([F.array([1]), marker + Array(repeating: 0, count: 16)])
            let e = failure(f.bytes)
            #expect(e?.kind == .syntax, "marker \(marker)")
            #expect(e?.offset == f.offset(of: 1))
        }
    }

    /// Bytes ≥ 0x80 under the ASCII marker are ISO Latin-1 code points, as CF reads them (`CFStringCreateWithBytes`
    /// with `kCFStringEncodingASCII`; AcceptanceRulesTests asks Apple's plutil).
    @Test func highBytesUnderTheASCIIMarkerAreLatin1() throws {
        #expect(try read(F([[0x53, 0x61, 0xE9, 0x62]])) == "a\u{E9}b")
        #expect(try read(F([[0x54, 0x80, 0x9F, 0xA0, 0xFF]])) == "\u{80}\u{9F}\u{A0}\u{FF}")
    }

    /// A lone surrogate reads as U+FFFD: CF keeps it in the string, which it writes as U+FFFD; a pair still pairs.
    @Test func loneSurrogatesReadAsReplacementCharacters() throws {
        let cases: [([UInt16], String)] = [
            ([0x41, 0xD800], "A\u{FFFD}"), ([0xD800, 0x41], "\u{FFFD}A"), ([0xDC00], "\u{FFFD}"),
            ([0x41, 0xDBFF, 0xDBFF, 0xDC00], "A\u{FFFD}\u{10FC00}"), ([0xD83D, 0xDE00, 0xDE00], "\u{1F600}\u{FFFD}"),
        ]
        for (units, expected) in cases {
            #expect(try read(F([F.utf16(units)])) == .string(expected), "\(units)")
        }
    }

    @Test func nonStringKeys() {
        let f = F([F.dict([1], [1]), F.int(1)])
        let e = failure(f.bytes)
        #expect(e?.kind == .nonStringKey)
        #expect(e?.offset == f.offset(of: 1))
        #expect(failure(F([F.dict([1], [2]), F.array([]), F.int(1)]).bytes)?.kind == .nonStringKey)
    }

    @Test func referencesPastTheObjectCount() {
        let f = F([F.array([1, 5]), F.int(1)])
        let e = failure(f.bytes)
        #expect(e?.kind == .invalidReference)
        #expect(e?.offset == 10)  // the second reference byte
    }

    @Test func cyclesAtAnyDistance() {
        #expect(failure(F([F.array([0])]).bytes)?.kind == .cycle)
        #expect(failure(F([F.array([1]), F.dict([2], [0]), F.ascii("k")]).bytes)?.kind == .cycle)
        // 300 levels down and back to the top.
        var objects = (0..<300).map { F.array([UInt64($0 + 1)], refSize: 2) }
        objects.append(F.array([0], refSize: 2))
        let e = failure(F(objects, offsetSize: 2, refSize: 2).bytes)
        #expect(e?.kind == .cycle)
        #expect(e?.offset == 8)
    }

    @Test func lengthsPastTheEnd() {
        // Claims of 2^62 bytes must fail on the bounds check, never reach an allocation.
        let claims: [[UInt8]] = [
            [0x4F, 0x13] + F.bigEndian(1 << 62, 8),
            [0x5F, 0x13] + F.bigEndian(1 << 62, 8),
            [0x6F, 0x13] + F.bigEndian(1 << 62, 8),
            [0xAF, 0x13] + F.bigEndian(1 << 62, 8),
            [0xDF, 0x13] + F.bigEndian(UInt64.max, 8),
            [0x4F, 0x10, 200],  // just past the end
            [0x5E, 0x41],
            [0x13, 0, 0],
            [0x23, 0],
            [0x33, 0, 0, 0],
            [0x4F],  // length marker missing
        ]
        for claim in claims {
            let e = failure(F([claim]).bytes)
            #expect(e?.kind == .truncated, "\(claim)")
            #expect(e?.offset == 8, "\(claim)")
        }
        #expect(failure(F([[0x4F, 0x50, 1]]).bytes)?.kind == .syntax)
    }

    @Test func aliasedObjectsAreReadOnce() throws {
        // Many offset entries pointing at one 1000-byte data object (CF, libplist and plistlib read such files):
        // decoding each separately would take entries × 1000 bytes; remembered by offset, it is read once.
        var f = F([F.array(Array(repeating: 0, count: 0)), [0x4F, 0x11, 0x03, 0xE8] + Array(repeating: 0, count: 1000)])
        let entries = 2000
        f.objects[0] = F.array((1...UInt64(entries)).map { $0 }, refSize: 2)
        let dataOffset = UInt64(8 + f.objects[0].count)
        f.offsetsOverride = [8] + Array(repeating: dataOffset, count: entries)
        f.countOverride = UInt64(entries + 1)
        f.refSize = 2
        f.offsetSize = 2
        #expect(try PropertyList.read(f.bytes).value == .array(Array(repeating: .data(Data(count: 1000)), count: entries)))
    }

    // MARK: Rejected: header, trailer, offset table

    @Test func truncatedFiles() {
        let good = F([F.array([1, 2]), F.ascii("abc"), F.int(1)]).bytes
        for n in [0, 5, 8, 20, good.count - 1] {
            let e = failure(Array(good.prefix(n)))
            #expect(e?.kind == .truncated || e?.kind == .syntax || e?.kind == .invalidReference, "\(n): \(String(describing: e))")
        }
        #expect(failure(Array(good.prefix(20)))?.kind == .truncated)
        #expect(failure(Array("bplist00".utf8))?.kind == .truncated)
        // Cut short by a few bytes, the last 32 bytes are object data, not a trailer (whose unused bytes CF writes as
        // zeros): reported as truncation at the trailer's place, not as whatever its fields would say.
        let padded = F([F.array([1, 2]), F.ascii(String(repeating: "abcdefgh", count: 8)), F.int(1)]).bytes
        for cut in 1...3 {
            let e = failure(Array(padded.dropLast(cut)))
            #expect(e?.kind == .truncated && e?.message.contains("truncated") == true, "\(cut): \(String(describing: e))")
            #expect(e?.offset == padded.count - cut - 32)
        }
    }

    @Test func badMagic() {
        var b = F([F.int(1)]).bytes
        b[2] = 0x41
        let e = failure(b)
        #expect(e?.kind == .syntax)
        #expect(e?.offset == 2)
    }

    @Test func trailerFieldsOutOfRange() {
        func variant(_ change: (inout F) -> Void) -> [UInt8] {
            var f = F([F.array([1]), F.int(1)])
            change(&f)
            return f.bytes
        }
        #expect(failure(variant { $0.offsetSize = 0 })?.kind == .syntax)
        #expect(failure(variant { $0.offsetSize = 9 })?.kind == .syntax)
        #expect(failure(variant { $0.refSize = 0 })?.kind == .syntax)
        #expect(failure(variant { $0.countOverride = 0 })?.kind == .invalidReference)
        #expect(failure(variant { $0.top = 2 })?.kind == .invalidReference)
        #expect(failure(variant { $0.tableOffsetOverride = 8 })?.kind == .invalidReference)
        #expect(failure(variant { $0.tableOffsetOverride = 1 << 40 })?.kind == .invalidReference)
        #expect(failure(variant { $0.countOverride = UInt64.max })?.kind == .truncated)
        #expect(failure(variant { $0.countOverride = 3 })?.kind == .truncated)
        let gap = failure(variant { $0.gap = [0, 0] })
        #expect(gap?.kind == .syntax)
        #expect(gap?.offset == 14)  // 2 + 2 object bytes after the header, 2 offset entries
        var options = PlistReadOptions()
        options.maxObjectCount = 1
        #expect(failure(F([F.array([1]), F.int(1)]).bytes, options)?.kind == .countLimit)
    }

    @Test func widthsTooSmallForTheCounts() {
        // 256 objects need 2-byte references.
        var objects = [F.array([1])]
        objects += (0..<255).map { _ in F.int(1) }
        var f = F(objects, offsetSize: 2, refSize: 1)
        f.offsetSize = 2
        let e = failure(f.bytes)
        #expect(e?.kind == .invalidReference)
        #expect(e?.message.contains("reference size") == true)
        // An offset table at ≥ 256 needs 2-byte offsets.
        let g = F([F.ascii(String(repeating: "z", count: 300))])
        #expect(failure(g.bytes)?.kind == .invalidReference)
    }

    @Test func offsetsIntoHeaderOrTrailer() {
        for bad: UInt64 in [0, 3, 7] {
            var f = F([F.int(1)])
            f.offsetsOverride = [bad]
            let e = failure(f.bytes)
            #expect(e?.kind == .invalidReference)
            #expect(e?.offset == 10)  // the offset-table entry
        }
        var f = F([F.array([1]), F.int(1)])
        f.offsetsOverride = [8, UInt64(f.tableOffset)]  // into the offset table
        #expect(failure(f.bytes)?.kind == .invalidReference)
        f.offsetsOverride = [8, UInt64(f.tableOffset + 3)]  // into the trailer
        #expect(failure(f.bytes)?.kind == .invalidReference)
    }
}

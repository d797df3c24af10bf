import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// The places where readers commonly disagree, checked against Core Foundation itself: the Swift toolchain's `plutil`
/// (swift-corelibs-foundation, which runs `CFBinaryPList.c` and `CFPropertyList.c`) is run on each document, and
/// PlistKit must read what it reads — or, where CF is plainly wrong (README, "Where PlistKit and Core Foundation
/// differ"), CF must still do what README says it does, so the list cannot go stale.
@Suite(.enabled(if: ApplePlutil.path != nil, ApplePlutil.missingReason))
struct AcceptanceRulesTests {
    typealias F = BinaryFixture

    /// What Apple's plutil makes of `bytes` as XML: the document, or nil when it refuses the file.
    static func cf(_ bytes: [UInt8], to format: String = "xml1") throws -> String? {
        let directory = try ApplePlutil.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("input.plist")
        try Data(bytes).write(to: file)
        let r = try ApplePlutil.run(["-convert", format, "-o", "-", file.path])
        return r.status == 0 ? r.out : nil
    }

    /// Whether Apple's plutil reads `bytes` at all (`-lint`; it reads some values it cannot convert).
    static func cfAccepts(_ bytes: [UInt8]) throws -> Bool {
        let directory = try ApplePlutil.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("input.plist")
        try Data(bytes).write(to: file)
        return try ApplePlutil.run(["-lint", file.path]).status == 0
    }

    /// PlistKit's reading of `bytes` written as XML (byte-identical to CF's writer), or nil when it refuses the file.
    static func ours(_ bytes: [UInt8], _ options: PlistReadOptions = PlistReadOptions()) -> String? {
        guard let value = try? PropertyList.read(bytes, options: options).value,
              let xml = try? PropertyList.writeBytes(value, format: .xml) else { return nil }
        return String(decoding: xml, as: UTF8.self)
    }

    static func expectSameAsCF(_ bytes: [UInt8], _ label: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let cf = try cf(bytes)
        #expect(cf != nil, "\(label): CF refused the file", sourceLocation: sourceLocation)
        #expect(ours(bytes) == cf, "\(label): PlistKit read \(ours(bytes) ?? "nothing"), CF \(cf ?? "nothing")",
                sourceLocation: sourceLocation)
    }

    // MARK: Binary

    /// A key twice in one binary dictionary: CF keeps the first (`CFDictionaryAddValue`), whether the two keys are
    /// one object or two equal ones.
    @Test func duplicateKeysInABinaryDictionary() throws {
        try Self.expectSameAsCF(F([F.dict([1, 1], [2, 3]), F.ascii("a"), F.ascii("first"), F.ascii("second")]).bytes, "one key object")
        try Self.expectSameAsCF(F([F.dict([1, 2, 3], [4, 5, 6]), F.ascii("a"), F.utf16([0x62]), F.ascii("a"),
                                   F.int(1), F.int(2), F.int(3)]).bytes, "equal key objects, ASCII and UTF-16")
        try Self.expectSameAsCF(F([F.dict([1, 2], [3, 4]), F.utf16([0x61]), F.ascii("a"), F.int(1), F.int(2)]).bytes,
                                "UTF-16 then ASCII")
    }

    /// Bytes ≥ 0x80 under the ASCII marker: CF takes each as its ISO Latin-1 code point.
    @Test func highBytesUnderTheASCIIMarker() throws {
        for bytes: [UInt8] in [[0x61, 0xE9], [0x80], [0x9F, 0x41], [0xA4], [0xFF], Array(0x80 ... 0xFF)] {
            let string = [UInt8(bytes.count < 15 ? 0x50 | bytes.count : 0x5F)] + (bytes.count < 15 ? [] : [0x10, UInt8(bytes.count)]) + bytes
            try Self.expectSameAsCF(F([F.array([1]), string]).bytes, "\(bytes)")
        }
        // As a key, too: the dictionary reads it, and a lookup finds it by the Latin-1 string.
        let dict = F([F.dict([1], [2]), [0x53, 0x63, 0x61, 0xE9], F.int(7)]).bytes
        try Self.expectSameAsCF(dict, "a Latin-1 key")
        #expect(try BinaryPlistDocument(dict).value(at: KeyPath(components: ["ca\u{E9}"])) == 7)
    }

    /// A lone UTF-16 surrogate: CF keeps it in the string, which comes out as U+FFFD.
    @Test func loneSurrogatesInUTF16Strings() throws {
        for units: [UInt16] in [[0x61, 0xD800, 0x62], [0x61, 0xDC00], [0xD800], [0xDBFF, 0xDBFF, 0xDC00], [0xDE00, 0xD83D],
                                [0xD83D, 0xDE00]] {
            try Self.expectSameAsCF(F([F.array([1]), F.utf16(units)]).bytes, "\(units)")
        }
    }

    /// UIDs of every width CF reads (1 to 16 bytes). Apple's plutil on Linux cannot write a UID in any format, so
    /// what is compared is that it reads the file at all; the value is plistlib's (`UID(7)` for each).
    @Test func uidWidths() throws {
        for width in 1 ... 16 {
            let bytes = F([F.array([1]), [0x80 | UInt8(width - 1)] + F.bigEndian(7, min(width, 8)).paddedFront(to: width)]).bytes
            #expect(try Self.cfAccepts(bytes), "width \(width)")
            #expect(try PropertyList.read(bytes).value == [.uid(UID(7))], "width \(width)")
        }
        // Above 2^32 − 1 CF refuses a UID (its UID type is 32 bits); plistlib writes them, and PlistKit reads them.
        let big = F([F.array([1]), [0x84] + F.bigEndian(1 << 32, 5)]).bytes
        #expect(try !Self.cfAccepts(big))
        #expect(try PropertyList.read(big).value == [.uid(UID(1 << 32))])
    }

    /// A 16-byte integer: CF keeps only the low 64 bits, as unsigned (`CFBinaryPList.c`: "only the last 64 bits are
    /// significant currently"). Where that changes the value — a negative number, or one past 64 bits — CF is
    /// plainly wrong and PlistKit reads the two's-complement value plistlib reads, or refuses one it cannot hold.
    @Test func sixteenByteIntegers() throws {
        let unsigned = F([F.array([1]), [0x14] + F.bigEndian(0, 8) + F.bigEndian(UInt64.max - 4, 8)]).bytes
        try Self.expectSameAsCF(unsigned, "2^64 − 5, high half zero")
        let negative = F([F.array([1]), [0x14] + F.bigEndian(UInt64.max, 8) + F.bigEndian(UInt64.max - 4, 8)]).bytes
        #expect(try Self.cf(negative)?.contains("<integer>18446744073709551611</integer>") == true, "CF reads −5 as 2^64 − 5")
        #expect(try PropertyList.read(negative).value == [-5])
        let python = try ExternalTool.python("import plistlib,sys; print(plistlib.loads(sys.stdin.buffer.read())[0])", input: Data(negative))
        if let python {
            let printed = String(decoding: python.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(printed == "-5", "plistlib read \(printed)")
        }
        let past = F([F.array([1]), [0x14] + F.bigEndian(1, 8) + F.bigEndian(5, 8)]).bytes
        #expect(try Self.cf(past)?.contains("<integer>5</integer>") == true, "CF reads 2^64 + 5 as 5")
        #expect(throws: PlistError.self) { try PropertyList.read(past) }
    }

    /// A NaN or infinite date: CF reads it and writes an XML date nothing can read back; PlistKit refuses it by
    /// default (`strictDates`), and keeps it when asked.
    @Test func nonFiniteDates() throws {
        for seconds in [Double.nan, .infinity, -.infinity] {
            let bytes = F([F.array([1]), [0x33] + F.bigEndian(seconds.bitPattern, 8)]).bytes
            let cf = try #require(try Self.cf(bytes), "CF refused \(seconds)")
            #expect(cf.contains("<date>2030437302-06-07T24:60:-2147483648Z</date>"), "\(seconds): \(cf)")
            let e = #expect(throws: PlistError.self) { try PropertyList.read(bytes) }
            #expect(e?.kind == .invalidValue && e?.offset == 10, "\(String(describing: e))")
            var keep = PlistReadOptions()
            keep.strictDates = false
            let kept = try PropertyList.read(bytes, options: keep).value.arrayValue?.first?.dateValue?.secondsSinceReferenceDate
            #expect(kept.map { $0.bitPattern == seconds.bitPattern } == true)
        }
    }

    /// A key that is not a string: CF reads the file (any non-container key) but cannot convert it; a `PlistValue`
    /// dictionary has string keys only, so PlistKit refuses it where it is.
    @Test func nonStringKeys() throws {
        let bytes = F([F.dict([1], [2]), F.int(5), F.ascii("v")]).bytes
        #expect(try Self.cfAccepts(bytes))
        #expect(try Self.cf(bytes) == nil)
        let e = #expect(throws: PlistError.self) { try PropertyList.read(bytes) }
        #expect(e?.kind == .nonStringKey)
    }

    // MARK: XML

    static func xml(_ body: String) -> [UInt8] {
        Array(("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" "
               + "\"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n<plist version=\"1.0\">\n\(body)\n</plist>\n").utf8)
    }

    /// `<key>` where a value belongs is a string to CF; where a key belongs, a key.
    @Test func keyTagsWhereAValueBelongs() throws {
        for body in ["<key>k</key>", "<array><key>k</key><key/></array>", "<dict><key>a</key><key>b</key></dict>",
                     "<dict><key>a</key><array><key>b</key></array><key>c</key><key>d</key></dict>"] {
            try Self.expectSameAsCF(Self.xml(body), body)
        }
        for body in ["<dict><key>a</key><key>b</key><key>c</key></dict>", "<dict><string>a</string><string>b</string></dict>"] {
            #expect(try Self.cf(Self.xml(body)) == nil, "CF read \(body)")
            #expect(Self.ours(Self.xml(body)) == nil, "PlistKit read \(body)")
        }
    }

    /// An internal DTD subset: CF stops at its `[`, with or without declarations in it.
    @Test func internalDTDSubsets() throws {
        for doctype in ["<!DOCTYPE plist [ <!ELEMENT plist ANY> ]>", "<!DOCTYPE plist [ ]>",
                        "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"x.dtd\" [<!ATTLIST plist version CDATA \"1.0\">]>",
                        "<!DOCTYPE plist [<!ENTITY e \"x\">]>"] {
            let bytes = Array("<?xml version=\"1.0\"?>\(doctype)<plist><string>x</string></plist>".utf8)
            #expect(try Self.cf(bytes) == nil, "CF read \(doctype)")
            let e = #expect(throws: PlistError.self, "\(doctype)") { try PropertyList.read(bytes) }
            #expect(e?.kind == .forbiddenConstruct, "\(String(describing: e))")
        }
        try Self.expectSameAsCF(Array("<?xml version=\"1.0\"?><!DOCTYPE plist SYSTEM \"x.dtd\"><plist><string>x</string></plist>".utf8),
                                "an external identifier only")
    }

    /// A repeated key in XML, OpenStep and JSON: CF keeps the last.
    @Test func duplicateKeysInTextFormats() throws {
        try Self.expectSameAsCF(Self.xml("<dict><key>a</key><string>1</string><key>b</key><true/><key>a</key><string>2</string></dict>"), "XML")
        try Self.expectSameAsCF(Array("{a = 1; b = x; a = 2;}".utf8), "OpenStep")
        try Self.expectSameAsCF(Array("{\"a\": 1, \"b\": true, \"a\": 2}".utf8), "JSON")
    }
}

private extension Array where Element == UInt8 {
    /// Zero bytes in front up to `width` (a big-endian number written wider than it needs).
    func paddedFront(to width: Int) -> [UInt8] { Array(repeating: 0, count: Swift.max(0, width - count)) + self }
}

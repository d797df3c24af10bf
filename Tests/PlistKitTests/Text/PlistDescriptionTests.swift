import Foundation
import Testing
@testable import PlistKit

/// `plutil -p` and `-extract … raw` text. Oracle: Apple's `plutil` run on the same documents (written by Foundation),
/// except where that tool is wrong on Linux (data bytes without zero padding), where Darwin's `NSData` description
/// format is the reference.
@Suite struct PlistDescriptionTests {
    static var config: RandomPlist.Config {
        var c = RandomPlist.Config()
        c.unicode = false  // the key order approximates ICU collation for ASCII and Latin-1 only
        c.data = false  // Apple's Linux tool drops zero padding in data bytes; tested separately below
        c.uids = false
        c.float32 = false
        c.dateYears = 1900...2100
        c.negativeZero = false  // Foundation's XML writer (which makes the oracle's input) writes -0.0 as 0.0
        return c
    }

    @Test(.enabled(if: ApplePlutil.path != nil, ApplePlutil.missingReason), arguments: 1...40)
    func humanReadableMatchesApplePlutil(seed: UInt64) throws {
        var random = RandomPlist(seed: seed, config: Self.config)
        let value = random.value()
        let dir = try ApplePlutil.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try ApplePlutil.writeTemporary(value, in: dir)
        let apple = try ApplePlutil.run(["-p", file])
        #expect(apple.status == 0)
        #expect(PlistDescription.humanReadable(value) == apple.out)
    }

    @Test(.enabled(if: ApplePlutil.path != nil, ApplePlutil.missingReason), arguments: 1...10)
    func rawMatchesApplePlutil(seed: UInt64) throws {
        var config = Self.config
        config.data = true
        config.maxDepth = 1
        var random = RandomPlist(seed: seed, config: config)
        var document = PlistDictionary()
        for i in 0..<12 { document["k\(i)"] = random.value(depth: 0) }
        let dir = try ApplePlutil.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try ApplePlutil.writeTemporary(.dictionary(document), in: dir)
        for (key, value) in document {
            let apple = try ApplePlutil.run(["-extract", key, "raw", "-n", file])
            #expect(apple.status == 0)
            #expect(PlistDescription.raw(value) == apple.out, "\(key): \(value)")
        }
    }

    /// Darwin's `NSData` description: all bytes up to 24, else the first 16 and last 8 in groups of four.
    @Test func dataDescriptionFollowsDarwin() {
        #expect(PlistDescription.dataDescription(Data()) == "{length = 0, bytes = 0x}")
        #expect(PlistDescription.dataDescription(Data([1, 2, 3])) == "{length = 3, bytes = 0x010203}")
        #expect(PlistDescription.dataDescription(Data(0..<24)) == "{length = 24, bytes = 0x" + (0..<24).map { String(format: "%02x", $0) }.joined() + "}")
        #expect(PlistDescription.dataDescription(Data(0..<28))
            == "{length = 28, bytes = 0x00010203 04050607 08090a0b 0c0d0e0f ... 14151617 18191a1b }")
    }

    @Test func percentFMatchesFoundation() {
        for v in [0.0, -0.0, 1.5, 0.1, 1e100, -1e-7, 123456789.123, .greatestFiniteMagnitude, .leastNonzeroMagnitude, .nan, .infinity, -.infinity] {
            #expect(PlistDescription.percentF(v) == String(format: "%f", v))
        }
    }

    /// A NaN with its sign bit set (what x86 makes of 0/0, common in real binary files): Apple's `plutil -extract …
    /// raw` prints it `nan`, as every other NaN, where glibc's `%f` (and so `String(format:)` here) prints `-nan`.
    @Test(.enabled(if: ApplePlutil.path != nil, ApplePlutil.missingReason))
    func everyNaNPrintsAsApplesPlutilPrintsIt() throws {
        let nans = [Double.nan, -.nan, Double(bitPattern: 0xFFF8_0000_0000_0000), Double(bitPattern: 0x7FF0_0000_0000_0001)]
        let directory = try ApplePlutil.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("nans.plist")
        try Data(PropertyList.writeBytes(.array(nans.map { .real(PlistReal($0)) }), format: .binary)).write(to: file)
        for (i, v) in nans.enumerated() {
            let apple = try ApplePlutil.run(["-extract", "\(i)", "raw", "-o", "-", file.path])
            #expect(apple.status == 0, "\(apple.err)")
            #expect(PlistDescription.percentF(v) == apple.out.trimmingCharacters(in: .newlines), "NaN bits \(String(v.bitPattern, radix: 16))")
        }
    }

    @Test func datesAndRealsInHumanReadableForm() {
        // Date.description and Swift's shortest round-trip Double spelling, as NSNumber/NSDate print them.
        let date = PlistDate(Date(timeIntervalSince1970: 1_706_820_194))
        #expect(PlistDescription.dateDescription(date) == "\(Date(timeIntervalSince1970: 1_706_820_194))")
        #expect(PlistDescription.realDescription(PlistReal(Float(0.1))) == "\(NSNumber(value: Float(0.1)))")
        #expect(PlistDescription.realDescription(PlistReal(1e100)) == "\(NSNumber(value: 1e100))")
        #expect(PlistDescription.humanReadable(.uid(UID(5))) == "<CFKeyedArchiverUID>{value = 5}\n")
        #expect(PlistDescription.raw(.uid(UID(5))) == "5")
    }
}

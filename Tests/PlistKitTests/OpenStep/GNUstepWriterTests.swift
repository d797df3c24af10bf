import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// GNUstep's extended text format: every type round-trips through our writer and reader (dates to the second), and
/// GNUstep's own tools (`plser` from gnustep-base-runtime, run as a process) read what we write and write what we read.
@Suite struct GNUstepWriterTests {
    static func allTypesConfig() -> RandomPlist.Config {
        var c = RandomPlist.Config()
        c.uids = true
        c.nul = true
        c.float32 = true
        c.fractionalDates = true
        return c
    }

    @Test(arguments: 0..<200)
    func everyTypeRoundTrips(seed: Int) throws {
        var rng = RandomPlist(seed: UInt64(seed) &+ 5000, config: Self.allTypesConfig())
        let value = rng.value()
        let text = try OS.write(value, .gnustep)
        let (back, _) = try PropertyList.read(text)
        #expect(PlistEquivalence.equivalent(value, back, format: .gnustep), "seed \(seed):\n\(OS.text(text))")
    }

    @Test func scalarForms() throws {
        let value: PlistValue = [
            "i": -5, "u": .integer(PlistInteger(UInt64.max)), "r": 0.1, "z": .real(PlistReal(-0.0)),
            "n": .real(PlistReal(Double.nan)), "p": .real(PlistReal(Double.infinity)), "t": true, "f": false,
            "d": .date(PlistDate(secondsSinceReferenceDate: 86_400 * 366 + 3661)),
            "df": .date(PlistDate(secondsSinceReferenceDate: -0.25)), "x": .uid(UID(7)), "b": .data(Data([0, 1, 2])),
        ]
        let text = OS.text(try OS.write(value, .gnustep))
        for form in ["i = <*I-5>;", "u = <*I18446744073709551615>;", "r = <*R0.1>;", "z = <*R-0.0>;", "n = <*Rnan>;",
                     "p = <*Rinf>;", "t = <*BY>;", "f = <*BN>;", "d = <*D2002-01-02 01:01:01 +0000>;",
                     "df = <*D2000-12-31 23:59:59 +0000>;", "x = {CF$UID = <*I7>;};", "b = <[AAEC]>;"] {
            #expect(text.contains(form), "\(form) not in\n\(text)")
        }
        let (back, format) = try OS.read(text)
        #expect(PlistEquivalence.equivalent(value, back, format: .gnustep) && format == .gnustep)
    }

    /// GNUstep refuses the whole document when a `<*D…>` has a fraction of a second (checked with `plser`), so dates
    /// are written to the second, rounded down, and GNUstep reads every one of them back as that second.
    @Test func datesAreWrittenToTheSecondSoGNUstepReadsThem() throws {
        let seconds: [Double] = [0.5, 0.001, -0.25, -7.367054818999254e-145, -1e-17, 86_400.999, -63_113_903_999.5, 1e10 + 0.75]
        let value = PlistValue.array(seconds.map { .date(PlistDate(secondsSinceReferenceDate: $0)) })
        let ours = try OS.write(value, .gnustep)
        #expect(!OS.text(ours).contains("."), "\(OS.text(ours))")
        let expected = PlistValue.array(seconds.map { .date(PlistDate(secondsSinceReferenceDate: $0.rounded(.down))) })
        #expect(try PropertyList.read(ours).value == expected)
        let theirs = try #require(try Self.plser(ours, format: "NSPropertyListGNUstepFormat"), "GNUstep could not read:\n\(OS.text(ours))")
        #expect(try PropertyList.read(theirs).value == expected, "\(OS.text(theirs))")
        // A fraction is what GNUstep refuses: the same document with one, by hand.
        let fractional = Array("(<*D2024-01-02 03:04:05.5 +0000>)".utf8)
        #expect(try Self.plser(fractional, format: "NSPropertyListGNUstepFormat") == nil)
    }

    /// Years GNUstep's date form cannot hold are refused rather than written unreadable.
    @Test func yearsOutsideOneToNineThousandNineHundredNinetyNineAreUnrepresentable() throws {
        for year: Int64 in [0, -1, 10_000] {
            let d = PlistDateText.date(year: year, month: 6, day: 1, hour: 0, minute: 0, second: 0)
            #expect(throws: PlistError.self) { try OS.write([.date(d)], .gnustep) }
        }
        let ok = PlistDateText.date(year: 9999, month: 12, day: 31, hour: 23, minute: 59, second: 59)
        #expect(OS.text(try OS.write([.date(ok)], .gnustep)).contains("<*D9999-12-31 23:59:59 +0000>"))
    }

    @Test func nonFiniteDatesAreUnrepresentable() throws {
        #expect(throws: PlistError.self) { try OS.write(["d": .date(PlistDate(secondsSinceReferenceDate: .nan))], .gnustep) }
    }

    // MARK: Against GNUstep's tools

    /// GNUstep's `plser` re-serialising `bytes` in `format`, or nil when it fails.
    static func plser(_ bytes: [UInt8], format: String) throws -> [UInt8]? {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("plistkit-gs-\(UUID().uuidString).plist")
        try Data(bytes).write(to: path)
        defer { try? FileManager.default.removeItem(at: path) }
        let plser = try #require(ExternalTool.find("plser"), "plser (gnustep-base-runtime) is not installed")
        let r = try ExternalTool.run(plser, ["-Format", format, path.path])
        guard r.status == 0, !r.stdout.isEmpty else { return nil }
        return Array(r.stdout)
    }

    static func gnustepComparableConfig() -> RandomPlist.Config {
        var c = RandomPlist.Config()
        c.uids = true
        c.nul = true
        return c
    }

    @Test(arguments: 0..<40)
    func gnustepReadsOursAndWeReadTheirs(seed: Int) throws {
        var rng = RandomPlist(seed: UInt64(seed) &+ 90_000, config: Self.gnustepComparableConfig())
        let value = PlistValue.array([rng.value(), rng.value()])
        let ours = try OS.write(value, .gnustep)
        let theirs = try #require(try Self.plser(ours, format: "NSPropertyListGNUstepFormat"),
                                  "GNUstep could not read:\n\(OS.text(ours))")
        let (back, format) = try PropertyList.read(theirs)
        // GNUstep prints reals with 16 significant digits, so reals are compared to 1e-15.
        #expect(back.nearlyEquals(value), "seed \(seed)\nours:\n\(OS.text(ours))\ntheirs:\n\(OS.text(theirs))")
        #expect(format == .gnustep || !OS.text(theirs).contains("<*"))
    }

    @Test(arguments: 0..<30)
    func gnustepReadsOurOpenStepAndWeReadTheirOpenStep(seed: Int) throws {
        var rng = RandomPlist(seed: UInt64(seed) &+ 70_000, config: OpenStepWriterTests.openStepConfig())
        let value = OpenStepWriterTests.openStepOnly(rng.value(), &rng)
        let ours = try OS.write(value, .openStep)
        let theirs = try #require(try Self.plser(ours, format: "NSPropertyListOpenStepFormat"),
                                  "GNUstep could not read:\n\(OS.text(ours))")
        #expect(try PropertyList.read(theirs).value == value, "seed \(seed)\n\(OS.text(theirs))")
    }

    @Test func trickyStringsThroughGNUstep() throws {
        // GNUstep quirk: it drops a leading U+FEFF from a string (as if it were a byte-order mark).
        let strings = OS.trickyStrings.filter { !$0.hasPrefix("\u{FEFF}") }
        let value = PlistValue.array(strings.map(PlistValue.string))
        let theirs = try #require(try Self.plser(try OS.write(value, .openStep), format: "NSPropertyListGNUstepFormat"))
        let back = try PropertyList.read(theirs).value
        #expect(back == value, "\(OS.text(theirs))")
    }

    /// GNUstep's `plget` prints a string value raw: an independent reading of each string we write.
    @Test func plgetReadsEachStringWeWrite() throws {
        let plget = try #require(ExternalTool.find("plget"), "plget (gnustep-base-runtime) is not installed")
        // GNUstep quirk: it drops a leading U+FEFF from a string (as if it were a byte-order mark).
        let strings = OS.trickyStrings.filter { !$0.hasPrefix("\u{FEFF}") }
        var dict = PlistDictionary()
        for (k, s) in strings.enumerated() { dict["k\(k)"] = .string(s) }
        let document = Data(try OS.write(.dictionary(dict), .openStep))
        for (k, s) in strings.enumerated() {
            let r = try ExternalTool.run(plget, ["k\(k)"], input: document)
            #expect(r.status == 0 && Array(r.stdout) == Array(s.utf8), "\(s.debugDescription): \(String(decoding: r.stdout, as: UTF8.self).debugDescription)")
        }
    }
}

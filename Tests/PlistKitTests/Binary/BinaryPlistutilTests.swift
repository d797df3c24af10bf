import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// libplist's `plistutil` (Debian `libplist-utils`) converts PlistKit's binary to XML and back without loss.
@Suite struct BinaryPlistutilTests {
    /// libplist 2.2 writes a UID to XML as `<dict><key>CF$UID</key><integer>n</integer></dict>` and reads that back
    /// as a dictionary, so after its XML round trip a UID is expected in that form.
    static func uidsAsDictionaries(_ v: PlistValue) -> PlistValue {
        switch v {
        case .uid(let u): return .dictionary(["CF$UID": .integer(PlistInteger(u.value))])
        case .array(let a): return .array(a.map(uidsAsDictionaries))
        case .dictionary(let d): return .dictionary(PlistDictionary(d.map { ($0.key, uidsAsDictionaries($0.value)) }))
        default: return v
        }
    }

    @Test func plistutilRoundTripsOurBinary() throws {
        guard let plistutil = ExternalTool.find("plistutil") else {
            Issue.record("plistutil (libplist-utils) is not installed: the libplist differential test cannot run")
            return
        }
        var config = RandomPlist.Config()
        config.uids = true
        config.nul = false  // libplist 2.2's XML writer cuts strings at U+0000 (C strings)
        config.nonFiniteReals = false  // libplist 2.2 writes NaN/∞ as XML it cannot read back
        config.dateYears = 1902...2037  // libplist 2.2 keeps dates as a 32-bit-safe timeval
        config.negativeZero = false  // libplist 2.2 writes −0.0 as <real>0.0</real> in XML
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("plistkit-plistutil-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for seed in 0..<60 {
            var random = RandomPlist(seed: UInt64(seed), config: config)
            // plistutil needs a container root.
            let value = PlistValue.array([random.value(), random.value()])
            let bin = dir.appendingPathComponent("\(seed).bin")
            let xml = dir.appendingPathComponent("\(seed).xml")
            let back = dir.appendingPathComponent("\(seed).back")
            try Data(try PropertyList.writeBytes(value, format: .binary)).write(to: bin)
            let toXML = try ExternalTool.run(plistutil, ["-i", bin.path, "-o", xml.path, "-f", "xml"])
            try #require(toXML.status == 0, "\(String(decoding: toXML.stderr, as: UTF8.self))")
            let toBinary = try ExternalTool.run(plistutil, ["-i", xml.path, "-o", back.path, "-f", "bin"])
            try #require(toBinary.status == 0, "\(String(decoding: toBinary.stderr, as: UTF8.self))")
            let xmlText = try String(contentsOf: xml, encoding: .utf8)
            #expect(xmlText.contains("<plist"), "seed \(seed): plistutil did not write XML")
            let (read, format) = try PropertyList.read(try Data(contentsOf: back))
            #expect(format == .binary)
            #expect(read == Self.uidsAsDictionaries(value), "seed \(seed): \(TypedJSONText.encode(value).prefix(400))")
        }
    }
}

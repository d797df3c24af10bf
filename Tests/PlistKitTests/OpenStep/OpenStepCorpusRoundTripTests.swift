import Foundation
import Testing
@testable import PlistKit

/// Every valid corpus value (from any section's manifest) survives our OpenStep writer when it holds only strings,
/// data, arrays and dictionaries, and our GNUstep writer whatever it holds.
@Suite struct OpenStepCorpusRoundTripTests {
    static func values() throws -> [(String, PlistValue)] {
        try CorpusTests.entries().compactMap { entry in
            guard let typed = entry.fields["value"] else { return nil }
            return (entry.path, try TypedJSON.decode(typed))
        }
    }

    static func openStepOnly(_ v: PlistValue) -> Bool {
        switch v {
        case .string, .data: return true
        case .array(let a): return a.allSatisfy(openStepOnly)
        case .dictionary(let d): return d.values.allSatisfy(openStepOnly)
        default: return false
        }
    }

    /// Whether some dictionary holds two keys that are distinct scalars but canonically equivalent (`é`, `e\u{301}`).
    static func hasCanonicallyEquivalentKeys(_ v: PlistValue) -> Bool {
        switch v {
        case .array(let a): return a.contains(where: hasCanonicallyEquivalentKeys)
        case .dictionary(let d):
            let keys = d.keys
            for i in keys.indices {
                for j in keys.indices where j > i && keys[i] == keys[j] { return true }
            }
            return d.values.contains(where: hasCanonicallyEquivalentKeys)
        default: return false
        }
    }

    static func hasDateJustBefore2001(_ v: PlistValue) -> Bool {
        switch v {
        case .array(let a): return a.contains(where: hasDateJustBefore2001)
        case .dictionary(let d): return d.values.contains(where: hasDateJustBefore2001)
        case .date(let d): return d.secondsSinceReferenceDate > -1 && d.secondsSinceReferenceDate < 0
        default: return false
        }
    }

    @Test func corpusValuesRoundTrip() throws {
        let values = try Self.values()
        #expect(!values.isEmpty)
        for (path, value) in values {
            let gnustep = try OS.write(value, .gnustep)
            // Dates less than a second before 2001 are GNUstep text's one documented loss (`GNUstepScalarWriter`).
            if !Self.hasDateJustBefore2001(value) {
                #expect(try PropertyList.read(gnustep).value == value, "\(path) via GNUstep")
            }
            if Self.openStepOnly(value) {
                let openStep = try OS.write(value, .openStep)
                let back = try PropertyList.read(openStep).value
                #expect(back == value, "\(path) via OpenStep")
                // The criterion: XML → OpenStep → XML gives the same XML bytes.
                #expect(try PropertyList.writeBytes(back, format: .xml) == PropertyList.writeBytes(value, format: .xml),
                        "\(path): XML bytes after an OpenStep round trip")
                // Foundation's bridge hands back Swift `String` keys, which merge canonically equivalent keys.
                if !Self.hasCanonicallyEquivalentKeys(value) {
                    #expect(OS.foundation(openStep) == value, "\(path): Foundation reading our OpenStep")
                }
            } else {
                #expect(throws: PlistError.self, "\(path)") { try OS.write(value, .openStep) }
            }
        }
    }
}

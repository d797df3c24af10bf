import Foundation
import Testing
@testable import PlistKit
import TestSupport

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

    @Test func corpusValuesRoundTrip() throws {
        let values = try Self.values()
        #expect(!values.isEmpty)
        for (path, value) in values {
            let gnustep = try OS.write(value, .gnustep)
            // Dates less than a second before 2001 are GNUstep text's one documented loss (`GNUstepScalarWriter`).
            let viaGNUstep = try PropertyList.read(gnustep).value
            #expect(PlistEquivalence.equivalent(value, viaGNUstep, format: .gnustep),
                    "\(path) via GNUstep: \(PlistEquivalence.difference(value, viaGNUstep, format: .gnustep) ?? "")")
            if Self.openStepOnly(value) {
                let openStep = try OS.write(value, .openStep)
                let back = try PropertyList.read(openStep).value
                #expect(back == value, "\(path) via OpenStep")
                // The criterion: XML → OpenStep → XML gives the same XML bytes.
                #expect(try PropertyList.writeBytes(back, format: .xml) == PropertyList.writeBytes(value, format: .xml),
                        "\(path): XML bytes after an OpenStep round trip")
                // Foundation's bridge hands back Swift `String` keys, which merge canonically equivalent keys.
                if !FoundationBridge.hasCanonicallyEquivalentKeys(value) {
                    #expect(OS.foundation(openStep) == value, "\(path): Foundation reading our OpenStep")
                }
            } else {
                #expect(throws: PlistError.self, "\(path)") { try OS.write(value, .openStep) }
            }
        }
    }
}

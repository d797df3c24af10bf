import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// Mutated and truncated documents: the reader must return a value or a positioned `PlistError`, never crash or hang.
@Suite struct OpenStepRobustnessTests {
    static let seeds: [String] = [
        "{ a = b; c = (1, \"two\", <0fab>); \"d e\" = { x = \"\\U00e9\\n\\101\"; }; f; }",
        "/* c */ \"k\" = \"v\"; // x\n'k2' = 'v\\'2';",
        "{i = <*I-5>; r = <*R0.5>; b = <*BY>; d = <*D2024-01-02 03:04:05 +0100>; e = <[AAE=]>; u = {CF$UID = <*I3>;};}",
        "(a, (b, (c, <00 11\n22>)), \"\\UD83D\\UDCA9\", 'x\u{2028}y', )",
    ]

    @Test func mutatedInputsGiveValuesOrPositionedErrors() {
        var rng = SeededGenerator(seed: 4242)
        let alphabet = Array("{}()<>*[]=;,\"'\\/ \n\tUIRBDxy0129aAf+-.:$_".utf8) + [0x00, 0x80, 0xC3, 0xE2, 0xFF]
        for round in 0..<4000 {
            var bytes = Array(Self.seeds[round % Self.seeds.count].utf8)
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                let pos = Int.random(in: 0...bytes.count, using: &rng)
                switch Int.random(in: 0...3, using: &rng) {
                case 0 where pos < bytes.count: bytes.remove(at: pos)
                case 1: bytes.insert(alphabet.randomElement(using: &rng)!, at: pos)
                case 2 where pos < bytes.count: bytes[pos] = alphabet.randomElement(using: &rng)!
                default: bytes = Array(bytes.prefix(pos))
                }
            }
            do {
                _ = try bytes.withUnsafeBytes { try OpenStepReader.readDetectingFormat($0, options: PlistReadOptions()) }
            } catch let e as PlistError {
                #expect(e.line != nil && e.column != nil || e.offset != nil, "round \(round): \(e)")
            } catch {
                Issue.record("round \(round): unexpected error \(error)")
            }
        }
    }
}

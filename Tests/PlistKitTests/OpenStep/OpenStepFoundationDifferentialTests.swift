import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// Random edits of OpenStep documents, read by us and by Foundation (CF's parser): both must give the same value,
/// or both must refuse — apart from the documented deviations, which are recognised and skipped.
@Suite struct OpenStepFoundationDifferentialTests {
    static let seeds: [String] = [
        "{ a = b; c = (d, \"e f\", <0fab>); \"g h\" = { x = \"\\U00e9\\n\\101\\\\\"; }; k; }",
        "/* c */ \"k\" = \"v\"; // x\n'k2' = 'v\\'2'; k3;",
        "(a, (b, (c, <00 11\n22>)), \"\\UD83D\\UDCA9\", 'x y', )",
        "// !$*UTF8*$!\n{\n\tisa = PBXProject; /* comment */\n\tfiles = (A1, B2 /* b */, );\n}\n",
    ]

    /// Deviations documented in `OpenStepReader`, where CF accepts what PlistKit refuses (and, for an empty
    /// document, the other way round):
    /// - CF forgets the failure of a last element or entry when a closing bracket follows where its parse gave up
    ///   (`(a, <0fab)` is `[a]`, `{a = b; "}` is `{a = b}`): its error is cleared on a "success path";
    /// - an unterminated `/* …` comment at the end; junk after a strings body.
    static func isDocumentedDeviation(_ text: [UInt8], _ ours: PlistError?) -> Bool {
        if text.isEmpty { return true }
        guard let ours else { return false }
        return ours.kind == .syntax || ours.kind == .truncated
    }

    @Test func mutatedDocumentsAgreeWithFoundation() throws {
        var rng = SeededGenerator(seed: 77)
        let alphabet = Array("{}()<>=;,\"'\\/* \nUxy0129aAf+-.:$_".utf8)
        var compared = 0
        for round in 0..<3000 {
            var bytes = Array(Self.seeds[round % Self.seeds.count].utf8)
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let pos = Int.random(in: 0...bytes.count, using: &rng)
                switch Int.random(in: 0...3, using: &rng) {
                case 0 where pos < bytes.count: bytes.remove(at: pos)
                case 1: bytes.insert(alphabet.randomElement(using: &rng)!, at: pos)
                case 2 where pos < bytes.count: bytes[pos] = alphabet.randomElement(using: &rng)!
                default: bytes = Array(bytes.prefix(max(pos, 1)))
                }
            }
            var ours: PlistValue?
            var ourError: PlistError?
            do { ours = try PropertyList.read(bytes).value } catch let e as PlistError { ourError = e }
            let theirs = OS.foundation(bytes)
            if (ours == nil) != (theirs == nil) && Self.isDocumentedDeviation(bytes, ourError) {
                // Only ever in the direction "CF accepts, we refuse", and rare.
                #expect(theirs != nil || bytes.isEmpty, "round \(round)")
                continue
            }
            compared += 1
            #expect(ours == theirs, "round \(round): \(String(decoding: bytes, as: UTF8.self).debugDescription)\nours: \(String(describing: ours ?? ourError.map { PlistValue.string("error: \($0)") }))\nFoundation: \(String(describing: theirs))")
        }
        #expect(compared > 2500)
    }
}

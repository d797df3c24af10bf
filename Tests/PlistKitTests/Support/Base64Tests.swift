import Foundation
import Testing
@testable import PlistKit

/// `Base64` against Foundation's `Data.base64EncodedString()`.
@Suite struct Base64Tests {
    @Test func matchesFoundation() {
        var r = SeededGenerator(seed: 64)
        for size in Array(0...70) + [255, 256, 257, 1000, 4099] {
            let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &r) }
            let ours = bytes.withUnsafeBytes { Base64.encode($0) }
            #expect(String(decoding: ours, as: UTF8.self) == Data(bytes).base64EncodedString(), "size \(size)")
            #expect(ours.count == Base64.encodedLength(size))
        }
    }
}

import Foundation
import Testing
@testable import PlistKit
import TestSupport

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

    @Test func linesWrapFoundationsTextWithIndentation() {
        var r = SeededGenerator(seed: 65)
        for size in [0, 1, 44, 45, 46, 57, 300, 1000] {
            for (width, indent) in [(76, 0), (60, 2), (12, 8)] {
                let bytes = (0..<size).map { _ in UInt8.random(in: 0...255, using: &r) }
                let length = Base64.linesLength(size, width: width, indent: indent)
                var out = [UInt8](repeating: 0, count: length)
                let n = bytes.withUnsafeBytes { raw in
                    out.withUnsafeMutableBufferPointer { Base64.encodeLines(raw, width: width, indent: indent, into: $0.baseAddress!) }
                }
                #expect(n == length)
                var expected = ""
                var rest = Substring(Data(bytes).base64EncodedString())
                while !rest.isEmpty {
                    expected += String(repeating: "\t", count: indent) + rest.prefix(width) + "\n"
                    rest = rest.dropFirst(width)
                }
                #expect(String(decoding: out, as: UTF8.self) == expected, "size \(size) width \(width)")
            }
        }
    }
}

import Testing
@testable import PlistKit
import TestSupport

/// `KeySorting.utf16Less` (on UTF-8 bytes) against the definition: lexicographic order of UTF-16 code units.
@Suite struct KeySortingTests {
    static let pool: [UInt32] = [0x0, 0x41, 0x61, 0x7F, 0x80, 0xE9, 0x301, 0x7FF, 0x800, 0xD7FF, 0xE000, 0xFF5E, 0xFFFF,
                                 0x10000, 0x1F600, 0x10FFFF]

    @Test func agreesWithUTF16CodeUnitOrder() {
        var r = SeededGenerator(seed: 16)
        for _ in 0..<200_000 {
            var a = "", b = ""
            for _ in 0..<Int.random(in: 0...4, using: &r) { a.unicodeScalars.append(Unicode.Scalar(Self.pool.randomElement(using: &r)!)!) }
            if Bool.random(using: &r) { b = a }
            for _ in 0..<Int.random(in: 0...3, using: &r) { b.unicodeScalars.append(Unicode.Scalar(Self.pool.randomElement(using: &r)!)!) }
            let (x, y) = Bool.random(using: &r) ? (a, b) : (b, a)
            #expect(KeySorting.utf16Less(x, y) == x.utf16.lexicographicallyPrecedes(y.utf16), "\(x.unicodeScalars.map(\.value)) vs \(y.unicodeScalars.map(\.value))")
        }
    }

    @Test func orderSortsWhenAskedAndKeepsInsertionOrderOtherwise() {
        var r = SeededGenerator(seed: 61)
        for n in [0, 1, 2, 5, 24, 25, 100] {
            var keys: [String] = []
            while keys.count < n {
                var s = ""
                for _ in 0..<Int.random(in: 1...3, using: &r) { s.unicodeScalars.append(Unicode.Scalar(Self.pool.randomElement(using: &r)!)!) }
                if !keys.contains(where: { $0.utf8.elementsEqual(s.utf8) }) { keys.append(s) }
            }
            let d = PlistDictionary(keys.map { ($0, PlistValue.bool(true)) })
            let sorted = KeySorting.withOrder(d, sorted: true) { entries, order in order.map { entries[$0].key } }
            #expect(sorted.map { Array($0.utf16) } == keys.sorted { $0.utf16.lexicographicallyPrecedes($1.utf16) }.map { Array($0.utf16) })
            #expect(KeySorting.withOrder(d, sorted: false) { _, order in Array(order) } == Array(0..<n))
        }
    }
}

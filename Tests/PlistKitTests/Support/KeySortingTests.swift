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
            let sorted = keys.withUnsafeBufferPointer { column in
                withUnsafeTemporaryAllocation(of: Int.self, capacity: n) { order in
                    KeySorting.sort(KeyColumn(column), by: KeySorting.utf16Less, into: order)
                    return order.map { keys[$0] }
                }
            }
            #expect(sorted.map { Array($0.utf16) } == keys.sorted { $0.utf16.lexicographicallyPrecedes($1.utf16) }.map { Array($0.utf16) })
        }
    }

    /// A writer's walk remembers the order of a dictionary whose keys are bit for bit those of one sorted before
    /// (`KeyOrderMemo`): every dictionary must still come out in key order with its own values. The tree mixes what
    /// could fool it: one key set inserted in several orders, key sets of the same size and first key that differ
    /// later, long keys shared (the same storage) and long keys built anew, nested dictionaries walked between two
    /// records, and runs of unrelated dictionaries long enough to make the memo stop storing every order.
    @Test func rememberedKeyOrdersGiveEachDictionaryItsOwnOrder() throws {
        var r = SeededGenerator(seed: 1_203)
        let shared = ["identifier-of-the-record", "a much longer shared key", "zeta", "Zeta", "é", "e\u{301}", "\u{1F600}", "\u{FF5E}", "b"]
        func key(_ i: Int) -> String {
            // Long keys built anew half the time: equal text, other storage.
            Bool.random(using: &r) || shared[i].utf8.count <= 15 ? shared[i] : String(decoding: Array(shared[i].utf8), as: UTF8.self)
        }
        var serial = 0
        func dictionary(depth: Int) -> PlistValue {
            var entries: [(String, PlistValue)] = []
            switch Int.random(in: 0..<4, using: &r) {
            case 0: // the shared set in one of a few orders
                let order = [[0, 1, 2, 3, 4, 5], [5, 4, 3, 2, 1, 0], [0, 2, 1, 3, 5, 4]][Int.random(in: 0..<3, using: &r)]
                entries = order.map { (key($0), .integer(PlistInteger($0))) }
            case 1: // the same size and first key, a different tail
                entries = [0, 6, 7, 8, 3, 2].shuffled(using: &r).map { (key($0), .integer(PlistInteger($0))) }
            case 2: // keys of its own, never seen again
                serial += 1
                entries = (0..<Int.random(in: 2...9, using: &r)).map { ("k\(serial)-\(Int.random(in: 0..<1000, using: &r))-\($0)", .bool(true)) }
            default:
                entries = [(key(1), .string("x")), (key(0), .string("y"))]
            }
            if depth < 2, Bool.random(using: &r) {
                entries.append(("nested", dictionary(depth: depth + 1)))
            }
            var d = PlistDictionary()
            for (k, v) in entries where d[k] == nil { d[k] = v }
            return .dictionary(d)
        }
        let tree = PlistValue.array((0..<3_000).map { _ in dictionary(depth: 0) })

        func expected(_ value: PlistValue, into events: inout [PlistEvent]) {
            switch value {
            case .array(let a):
                events.append(.beginArray(count: a.count))
                for v in a { expected(v, into: &events) }
                events.append(.endArray)
            case .dictionary(let d):
                events.append(.beginDictionary(count: d.count))
                for (k, v) in d.sorted(by: { $0.key.utf16.lexicographicallyPrecedes($1.key.utf16) }) {
                    events.append(.key(k))
                    expected(v, into: &events)
                }
                events.append(.endDictionary)
            default:
                events.append(.value(value))
            }
        }
        var want: [PlistEvent] = []
        expected(tree, into: &want)
        var recorder = PlistEventRecorder()
        try PlistValueEvents<PlistEventRecorder, UTF16KeyOrder>.send(tree, to: &recorder)
        #expect(recorder.plainEvents.count == want.count)
        // Keys compared by scalars (`==` on String would call "é" and "e\u{301}" equal).
        let got = recorder.plainEvents.map(Self.exact), expectedEvents = want.map(Self.exact)
        let firstDifference = zip(got, expectedEvents).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(firstDifference == nil, "first difference at event \(firstDifference ?? -1)")
    }

    /// A memo used for keys made and dropped one dictionary at a time (a stream's replay): a dropped key's storage
    /// may be reused for a new key of other text, whose bits are then those of a stored one. Each round's keys are
    /// long (stored out of line), of one length, and start alike (so they meet the same slots); every order must be
    /// the one an independent sort gives. A memo that kept only the bits of what it stored answered with a dropped
    /// set's order here.
    @Test func rememberedKeyOrdersSurviveKeysDroppedAndMadeAgain() {
        var r = SeededGenerator(seed: 77)
        var memo = KeyOrderMemo()
        var wrong = 0
        for _ in 0..<4_000 {
            let keys: [String] = (0..<6).map { _ in
                let tail = (0..<12).map { _ in UInt8.random(in: 0x61...0x66, using: &r) }
                return String(decoding: Array("shared-prefix-".utf8) + tail, as: UTF8.self)
            }
            let want = keys.indices.sorted { keys[$0].utf16.lexicographicallyPrecedes(keys[$1].utf16) }
            let got = keys.withUnsafeBufferPointer { held in
                [Int](unsafeUninitializedCapacity: held.count) { order, n in
                    memo.sort(KeyColumn(held), by: KeySorting.utf16Less, into: order)
                    n = held.count
                }
            }
            if got != want { wrong += 1 }
        }
        #expect(wrong == 0)
    }

    private static func exact(_ event: PlistEvent) -> String {
        if case .key(let k) = event { return "key " + k.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " ") }
        return "\(event)"
    }
}

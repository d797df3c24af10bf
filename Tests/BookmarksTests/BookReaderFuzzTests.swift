import Foundation
import Testing
@testable import Bookmarks
import TestSupport

/// Mutation fuzzing against the reader's caps (`BookLimits`): 20,000 mutated blobs from the Apple fixtures and from our own writer.
/// Only `BookmarkError` may come out — a trap or a hang would kill or stall the test process.
@Suite struct BookReaderFuzzTests {
    @Test func twentyThousandMutatedBlobsOnlyThrowBookmarkError() throws {
        let s = Scratch()
        var seeds: [[UInt8]] = [try Bookmark.create(path: s.file("a/b/c.txt")),
                                try Bookmark.create(path: s.dir("a"), options: [.minimalBookmark])]
        for name in Fixtures.names { if let b = Fixtures.bytes(name + ".bookmark") { seeds.append(b) } }
        var rng = SeededGenerator(seed: 1)
        var outcomes: [String: Int] = [:]
        let interesting: [UInt32] = [0, 1, 3, 4, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFE, 0xFFFF_FFFF, 48, 0x0601, 0x0701, 0x0902]
        let started = Date()
        var fuzzResolve = BookmarkResolveOptions()
        fuzzResolve.budget = SearchBudget(maxEntries: 200, maxMilliseconds: 20, maxDepth: 2, maxLevelsUp: 0)
        fuzzResolve.refreshWhenStale = false
        for i in 0..<20_000 {
            var b = seeds[i % seeds.count]
            for _ in 0...rng.below(4) {
                switch rng.below(5) {
                case 0: b[rng.below(b.count)] = UInt8(truncatingIfNeeded: rng.next())
                case 1:
                    let at = rng.below(b.count / 4) * 4
                    if at + 4 <= b.count {
                        let v = interesting[rng.below(interesting.count)]
                        b.replaceSubrange(at..<(at + 4), with: withUnsafeBytes(of: v.littleEndian, Array.init))
                    }
                case 2: b.removeLast(min(b.count - 1, rng.below(64)))
                case 3: b[rng.below(b.count)] ^= UInt8(1 << rng.below(8))
                default:
                    let at = rng.below(b.count / 4) * 4
                    let from = rng.below(b.count / 4) * 4
                    if at + 4 <= b.count, from + 4 <= b.count { b.replaceSubrange(at..<(at + 4), with: Array(b[from..<(from + 4)])) }
                }
            }
            // Keep the size field consistent half the time so the mutations reach the TOC and items.
            if i % 2 == 0, b.count >= 8 {
                b.replaceSubrange(4..<8, with: withUnsafeBytes(of: UInt32(b.count).littleEndian, Array.init))
            }
            do {
                let c = try BookContainer.read(b)
                _ = try? BookmarkRecord(container: c)
                _ = try? BookmarkInspection.json(b)
                if i % 10 == 0 {
                    // Forged data may steer resolution anywhere the caller can look, within the caller's budget.
                    _ = try? Bookmark.resolve(b, options: fuzzResolve)
                }
                outcomes["ok", default: 0] += 1
            } catch {
                outcomes["BookmarkError", default: 0] += 1   // typed throws: nothing else can arrive here
            }
        }
        #expect(outcomes.values.reduce(0, +) == 20_000)
        #expect((outcomes["BookmarkError"] ?? 0) > 1000, "mutations must reach the error paths: \(outcomes)")
        #expect(Date().timeIntervalSince(started) < 120, "bounded time")
    }

    /// A forged blob whose array references one big string thousands of times is cut off by the visit cap,
    /// and decoding a shared item costs no extra memory (it is decoded once).
    @Test func repeatedReferencesAreCapped() throws {
        var entries: [BookValue] = []
        for _ in 0..<10 { entries.append(.string(String(repeating: "x", count: 1000))) }
        let container = BookContainer(tocs: [.init(id: 1, entries: [.init(key: .numeric(0x1004), value: .array(entries))])])
        var bytes = try container.write()
        // Point all ten array elements at the first string.
        let toc = 48 + (Int(bytes[48]) | Int(bytes[49]) << 8)
        let arrayAt = 48 + (Int(bytes[toc + 24]) | Int(bytes[toc + 25]) << 8)
        let first = Array(bytes[(arrayAt + 8)..<(arrayAt + 12)])
        for k in 0..<10 { bytes.replaceSubrange((arrayAt + 8 + 4 * k)..<(arrayAt + 12 + 4 * k), with: first) }
        let c = try BookContainer.read(bytes)
        #expect(c[0x1004]?.arrayValue?.count == 10)
        var limits = BookLimits()
        limits.maxItemVisits = 5
        #expect(throws: BookmarkError.self) { try BookContainer.read(bytes, limits: limits) }
    }
}

import Foundation
import Testing
@testable import Bookmarks
@testable import plistbench

/// plistbench's bookmark benchmark runs end to end on a small tree (the figures themselves are measured in release
/// mode).
@Suite struct BookmarkBenchTests {
    @Test func smallRunProducesFiguresAndCleansUp() throws {
        let s = Scratch()
        let f = try BookmarkBench.run(scratch: s.path, files: 200, treeEntries: 2000, repetitions: 100)
        #expect(f.createMicroseconds > 0 && f.resolveInPlaceMicroseconds > 0)
        #expect(f.deepMoveEntriesSearched > 0 && f.searchEntriesPerSecond > 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.path).isEmpty, "scratch tree removed")
    }
}

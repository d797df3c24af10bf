import Foundation
@testable import PlistKit

/// Line comparisons for the edit tests.
enum TextDiff {
    static func lines(_ bytes: [UInt8]) -> [String] {
        String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The changed block: old lines `[start, oldEnd)` became new lines `[start, newEnd)` (common prefix and suffix
    /// trimmed).
    static func block(_ old: [String], _ new: [String]) -> (start: Int, oldEnd: Int, newEnd: Int) {
        var p = 0
        while p < old.count, p < new.count, old[p] == new[p] { p += 1 }
        var s = 0
        while s < old.count - p, s < new.count - p, old[old.count - 1 - s] == new[new.count - 1 - s] { s += 1 }
        return (p, old.count - s, new.count - s)
    }

    /// 1-based numbers of the lines that differ, for texts with the same number of lines.
    static func changedLines(_ old: [String], _ new: [String]) -> [Int]? {
        guard old.count == new.count else { return nil }
        return old.indices.filter { old[$0] != new[$0] }.map { $0 + 1 }
    }

    /// The 1-based line of byte offset `p`.
    static func line(of p: Int, in bytes: [UInt8]) -> Int {
        var n = 1
        for b in bytes[..<min(p, bytes.count)] where b == 0x0A { n += 1 }
        return n
    }
}

#if canImport(Glibc)
import Glibc
#endif
import PlistKit

/// `plistbench phases FILE [SECONDS]`: where a parse's time goes, each phase timed apart on the same bytes in one
/// process, one JSON line each:
///   open         binary only: `BinaryPlistDocument` checks the trailer and every offset-table entry, builds nothing
///   visit        every value's event into a sink that only counts (each scalar decoded, no container built)
///   materialise  `PropertyList.read`: the whole `PlistValue` tree
/// The visit's counts are checked against the tree's (values, string and key bytes, data bytes), so a visit that
/// skipped work would show.
enum PhasesBench {
    /// Counts what it is sent, as `TreeStats` counts a tree. It remembers the counts of a value a binary document
    /// refers to again (`rememberSubtree`), as the tree builder remembers the value, so a shared subtree is decoded
    /// about as often as for a tree.
    struct CountingSink: PlistEventSink {
        var stats = TreeStats()
        /// The counts when each open container began.
        private var starts: [TreeStats] = []
        /// The counts of the last complete value, and those remembered.
        private var last = TreeStats()
        private var remembered: [TreeStats] = []

        mutating func beginArray(count: Int?, at range: Range<Int>) throws { begin() }
        mutating func endArray(at range: Range<Int>) throws { end() }
        mutating func beginDictionary(count: Int?, at range: Range<Int>) throws { begin() }
        mutating func endDictionary(at range: Range<Int>) throws { end() }
        mutating func key(_ key: consuming String, at range: Range<Int>) throws { stats.strBytes += key.utf8.count }

        mutating func value(_ value: PlistValue, at range: Range<Int>) throws {
            last = TreeStats()
            last.walk(value)
            add(last)
        }

        mutating func rememberSubtree() -> Int? {
            remembered.append(last)
            return remembered.count - 1
        }

        mutating func repeatSubtree(_ token: Int, at range: Range<Int>) throws {
            last = remembered[token]
            add(last)
        }

        private mutating func begin() {
            starts.append(stats)
            stats.nodes += 1
        }

        private mutating func end() {
            let start = starts.removeLast()
            last = TreeStats(nodes: stats.nodes - start.nodes, strBytes: stats.strBytes - start.strBytes,
                             dataBytes: stats.dataBytes - start.dataBytes)
        }

        private mutating func add(_ s: TreeStats) {
            stats.nodes += s.nodes
            stats.strBytes += s.strBytes
            stats.dataBytes += s.dataBytes
        }
    }

    static func run(_ args: [String]) -> Int32 {
        guard args.count == 1 || args.count == 2, let bytes = readFile(args[0]) else {
            StreamBench.complain("usage: plistbench phases FILE [SECONDS]  (the file must be readable)\n")
            return 64
        }
        let seconds = args.count == 2 ? Double(args[1]) ?? 1 : 1
        do {
            let (tree, format) = try PropertyList.read(bytes)
            var expected = TreeStats()
            expected.walk(tree)
            if format == .binary {
                report("open", args[0], bytes.count, try measure(seconds: seconds) { try BinaryPlistDocument(bytes) })
            }
            var visited = CountingSink()
            report("visit", args[0], bytes.count, try measure(seconds: seconds) { () throws -> Int in
                var sink = CountingSink()
                try bytes.withUnsafeBytes { _ = try PropertyList.parse($0, into: &sink) }
                visited = sink
                return sink.stats.nodes
            })
            guard visited.stats.nodes == expected.nodes, visited.stats.strBytes == expected.strBytes,
                  visited.stats.dataBytes == expected.dataBytes else {
                StreamBench.complain("phases: the visit counted \(visited.stats) but the tree holds \(expected)\n")
                return 1
            }
            report("materialise", args[0], bytes.count, try measure(seconds: seconds) { try PropertyList.read(bytes).value })
            return 0
        } catch {
            StreamBench.complain("\(args[0]): \(error)\n")
            return 1
        }
    }

    static func report(_ phase: String, _ file: String, _ bytes: Int, _ samples: [UInt64]) {
        let s = Stats(samples)
        let mbPerS = Double(bytes) / s.median * 1000
        print("{\"phase\":\"\(phase)\",\"file\":\(jsonString(file)),\"bytes\":\(bytes),\"iterations\":\(samples.count),"
            + "\"median_ms\":\(s.median / 1e6),\"min_ms\":\(Double(s.min) / 1e6),\"mb_per_s\":\(mbPerS)}")
    }
}

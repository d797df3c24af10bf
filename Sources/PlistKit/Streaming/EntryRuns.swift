#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One entry of a dictionary being put in key order: its key, where its value starts in the `EventLog`, where the key
/// starts in the input (for the error about a repeated one) and its place in the document.
struct LoggedEntry {
    var key: String
    var value: Int
    var offset: Int
    var index: Int
    /// Where the value's records end in the log (0 where no log holds the value), so that a replay reads just them.
    var valueEnd = 0
}

extension KeyColumn {
    /// The keys of `entries`, in place.
    init(_ entries: UnsafeBufferPointer<LoggedEntry>) {
        base = entries.baseAddress.map { UnsafeRawPointer(UnsafeMutablePointer(mutating: $0).pointer(to: \.key)!) }
        stride = MemoryLayout<LoggedEntry>.stride
        count = entries.count
    }
}

/// The entries of a dictionary too large to order in memory (an iTunes library's `Tracks` has millions): sorted a
/// run at a time, each run written to an unlinked temporary file, and merged (up to `fanIn` runs at once, in passes
/// when there are more) into the order `Order` gives, entries with equal keys in document order — the order the
/// in-memory path sorts them in. Memory is a run's entries plus a window per merged run, whatever the dictionary's size.
final class EntryRuns<Order: KeyOrdering> {
    private let fanIn: Int
    private let file: SpillFile
    private var fileLength = 0
    /// The sorted runs, as byte ranges of the file.
    private(set) var runs: [Range<Int>] = []
    /// Entries written, in all runs.
    private(set) var count = 0

    /// Bytes a window of a run being merged holds.
    static var windowSize: Int { 64 << 10 }

    init(fanIn: Int = 64, directory: String? = nil) {
        self.fanIn = max(fanIn, 2)
        file = SpillFile(directory: directory, prefix: "plistkit-entries")
    }

    /// The order of the merge: `Order`, then the document's.
    @inline(__always)
    static func precedes(_ a: LoggedEntry, _ b: LoggedEntry) -> Bool {
        Order.less(a.key, b.key) || (!Order.less(b.key, a.key) && a.index < b.index)
    }

    /// About the memory an entry takes in a run being collected.
    @inline(__always)
    static func footprint(of key: String) -> Int { key.utf8.count + MemoryLayout<LoggedEntry>.stride + 16 }

    /// Sorts `entries` and writes them as a run; empties `entries` (keeping its capacity).
    func writeRun(_ entries: inout [LoggedEntry]) throws {
        guard !entries.isEmpty else { return }
        entries.sort { Self.precedes($0, $1) }
        var writer = RunWriter(self)
        for e in entries { try writer.append(e) }
        try writer.finish()
        count += entries.count
        entries.removeAll(keepingCapacity: true)
    }

    /// Under `.reject`, the error for the key refused, as the tree refuses it: the first repeated in document order
    /// (of each group of equal keys, adjacent in the merge and in document order, the second; the least of those).
    /// Nothing under the other policies.
    func rejectRepeatedKey(policy: DuplicateKeyPolicy, format: PlistFormat?) throws {
        guard policy == .reject else { return }
        var merge = try merged()
        var previous: LoggedEntry? = nil
        var groupRepeats = false
        var firstRepeat: LoggedEntry? = nil
        while let e = try merge.next() {
            if let p = previous, exactKeyBytesEqual(p.key, e.key) {
                if !groupRepeats, firstRepeat.map({ e.index < $0.index }) ?? true { firstRepeat = e }
                groupRepeats = true
            } else {
                groupRepeats = false
            }
            previous = e
        }
        if let r = firstRepeat { _ = try policy.keepsLater(r.key, at: r.offset, format: format) }
    }

    /// Calls `body` with one entry per key, in order: of equal keys the first's key and the value the policy keeps
    /// (`policy` as resolved for the format, not `.reject`: see `rejectRepeatedKey`). Returns whether a value was
    /// dropped.
    @discardableResult
    func forEachKept(policy: DuplicateKeyPolicy, _ body: (LoggedEntry) throws -> Void) throws -> Bool {
        var merge = try merged()
        var pending: LoggedEntry? = nil
        var dropped = false
        while let e = try merge.next() {
            if var p = pending, exactKeyBytesEqual(p.key, e.key) {
                dropped = true
                if try policy.keepsLater(e.key, at: nil, format: nil) {
                    p.value = e.value
                    pending = p
                }
                continue
            }
            if let p = pending { try body(p) }
            pending = e
        }
        if let p = pending { try body(p) }
        return dropped
    }

    /// All entries, merged, in order. The first call merges in passes until at most `fanIn` runs are left.
    func merged() throws -> Merge {
        while runs.count > fanIn {
            var next: [Range<Int>] = []
            var start = 0
            while start < runs.count {
                let group = Array(runs[start ..< min(start + fanIn, runs.count)])
                start += fanIn
                guard group.count > 1 else {
                    next.append(group[0])
                    continue
                }
                var merge = Merge(self, group)
                var writer = RunWriter(self)
                while let e = try merge.next() { try writer.append(e) }
                try writer.finish()
                next.append(runs.removeLast())  // the run the writer just added
            }
            runs = next
        }
        return Merge(self, runs)
    }

    // MARK: The file

    /// Appends bytes at the end of the file.
    private func append(_ bytes: UnsafeRawBufferPointer) throws {
        try file.write(bytes, at: fileLength)
        fileLength += bytes.count
    }

    /// Up to `count` bytes of the file from `offset`.
    private func read(from offset: Int, count: Int) throws -> [UInt8] {
        try [UInt8](unsafeUninitializedCapacity: count) { out, initialized in
            guard let base = out.baseAddress else { return }
            initialized = try file.read(into: base, count: count, at: offset)
        }
    }

    /// Writes one run: entries as a key length, the key's UTF-8 bytes, and the value position, key offset, index and
    /// value end (each a variable-length number).
    private struct RunWriter {
        let runs: EntryRuns
        let start: Int
        var buffer: [UInt8] = []

        init(_ runs: EntryRuns) {
            self.runs = runs
            start = runs.fileLength
            buffer.reserveCapacity(EntryRuns.windowSize)
        }

        mutating func append(_ e: LoggedEntry) throws {
            var key = e.key
            key.withUTF8 { utf8 in
                appendNumber(utf8.count)
                buffer.append(contentsOf: utf8)
            }
            appendNumber(e.value)
            appendNumber(e.offset)
            appendNumber(e.index)
            appendNumber(e.valueEnd)
            if buffer.count >= EntryRuns.windowSize { try flush() }
        }

        private mutating func appendNumber(_ n: Int) {
            var v = UInt64(max(n, 0))
            while v >= 0x80 {
                buffer.append(UInt8(v & 0x7F) | 0x80)
                v >>= 7
            }
            buffer.append(UInt8(v))
        }

        private mutating func flush() throws {
            try buffer.withUnsafeBytes { try runs.append($0) }
            buffer.removeAll(keepingCapacity: true)
        }

        mutating func finish() throws {
            try flush()
            runs.runs.append(start ..< runs.fileLength)
        }
    }

    /// Reads one run's entries in order, through a window.
    private struct RunReader {
        let runs: EntryRuns
        var position: Int
        let end: Int
        var window: [UInt8] = []
        var at = 0

        init(_ runs: EntryRuns, _ range: Range<Int>) {
            self.runs = runs
            position = range.lowerBound
            end = range.upperBound
        }

        /// Makes `n` more bytes available in the window.
        private mutating func ensure(_ n: Int) throws {
            if at + n <= window.count { return }
            let wanted = max(n, EntryRuns.windowSize)
            let keep = Array(window[at...])
            let fresh = try runs.read(from: position, count: min(wanted, end - position))
            position += fresh.count
            window = keep + fresh
            at = 0
            guard window.count >= n else { throw PlistError(.io, "a run of dictionary entries ends inside an entry") }
        }

        private mutating func number() throws -> Int {
            var v: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                try ensure(1)
                let b = window[at]
                at += 1
                guard shift < 64 else { throw PlistError(.io, "a run of dictionary entries holds a bad number") }
                v |= UInt64(b & 0x7F) << shift
                if b & 0x80 == 0 { return Int(truncatingIfNeeded: v) }
                shift += 7
            }
        }

        mutating func next() throws -> LoggedEntry? {
            guard at < window.count || position < end else { return nil }
            let length = try number()
            try ensure(length)
            let key = window.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[at ..< at + length]), as: UTF8.self) }
            at += length
            let value = try number()
            let offset = try number()
            let index = try number()
            let valueEnd = try number()
            return LoggedEntry(key: key, value: value, offset: offset, index: index, valueEnd: valueEnd)
        }
    }

    /// Runs merged: the next entry is the least head (a binary heap of the runs' heads).
    struct Merge {
        private var readers: [RunReader]
        private var heap: [(entry: LoggedEntry, run: Int)] = []

        fileprivate init(_ runs: EntryRuns, _ ranges: [Range<Int>]) {
            readers = ranges.map { RunReader(runs, $0) }
        }

        private var started = false

        mutating func next() throws -> LoggedEntry? {
            if !started {
                started = true
                for r in readers.indices {
                    if let e = try readers[r].next() { push((e, r)) }
                }
            }
            guard let top = heap.first else { return nil }
            if let e = try readers[top.run].next() {
                heap[0] = (e, top.run)
                siftDown(0)
            } else {
                let last = heap.removeLast()
                if !heap.isEmpty {
                    heap[0] = last
                    siftDown(0)
                }
            }
            return top.entry
        }

        private mutating func push(_ item: (entry: LoggedEntry, run: Int)) {
            heap.append(item)
            var i = heap.count - 1
            while i > 0 {
                let parent = (i - 1) / 2
                guard EntryRuns.precedes(heap[i].entry, heap[parent].entry) else { break }
                heap.swapAt(i, parent)
                i = parent
            }
        }

        private mutating func siftDown(_ start: Int) {
            var i = start
            while true {
                let l = 2 * i + 1, r = l + 1
                var least = i
                if l < heap.count, EntryRuns.precedes(heap[l].entry, heap[least].entry) { least = l }
                if r < heap.count, EntryRuns.precedes(heap[r].entry, heap[least].entry) { least = r }
                if least == i { return }
                heap.swapAt(i, least)
                i = least
            }
        }
    }
}

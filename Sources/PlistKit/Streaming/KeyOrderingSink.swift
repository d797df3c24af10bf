/// Puts each dictionary's entries in a writer's key order on the way to it, and applies the tree's policies a writer
/// would otherwise not see (repeated keys, `CF$UID` dictionaries of text formats), so a document streamed from a
/// text reader to a writer gives the bytes the tree would.
///
/// A reader sends a dictionary's entries in document order, and a key order needs a dictionary's keys before its
/// values: a dictionary's events, with everything inside it, are kept in an `EventLog` (in memory, then in a
/// temporary file) until the dictionary ends; then its keys are read back and ordered, and each entry replayed in
/// that order — nested dictionaries the same way. Arrays outside any dictionary pass straight through. A dictionary
/// whose entries (key, value position) take more than `entryMemory` is ordered in sorted runs on disk, merged
/// (`EntryRuns`), with the same result.
struct KeyOrderingSink<Downstream: PlistEventSink, Order: KeyOrdering>: PlistEventSink {
    var downstream: Downstream
    private let log: EventLog
    private let duplicateKeys: DuplicateKeyPolicy
    private let collapsesUIDDictionaries: Bool
    private let format: PlistFormat
    /// Where each open container being logged begins in the log (none: events pass through).
    private var open: [Int] = []
    /// How much of a dictionary's entries is ordered in memory; past it, in runs on disk (in a sorted order only).
    private let entryMemory: Int
    private let entryFanIn: Int
    private let directory: String?
    /// Orders of key sets met before: a stream's records mostly share a few, whose keys come back from the log as
    /// the same strings (numbered keys) or equal small ones.
    private var keyOrders = KeyOrderMemo()
    private var spareEntries: [[LoggedEntry]] = []

    init(_ downstream: Downstream, readOptions: PlistReadOptions, format: PlistFormat, log: EventLog = EventLog(),
         entryMemory: Int = PropertyList.entrySpillMemory, entryFanIn: Int = 64, directory: String? = nil) {
        self.downstream = downstream
        self.log = log
        self.entryMemory = entryMemory
        self.entryFanIn = entryFanIn
        self.directory = directory
        duplicateKeys = readOptions.duplicateKeys.resolved(for: format)
        collapsesUIDDictionaries = PlistTreeBuilder.collapsesUIDDictionaries(in: format)
        self.format = format
    }

    private static var here: Range<Int> { Range(uncheckedBounds: (0, 0)) }

    mutating func beginArray(count: Int?, at range: Range<Int>) throws {
        guard !open.isEmpty else { return try downstream.beginArray(count: count, at: range) }
        open.append(try log.beginContainer(.beginArray))
    }

    mutating func endArray(at range: Range<Int>) throws {
        guard !open.isEmpty else { return try downstream.endArray(at: range) }
        try log.endContainer(.endArray, begunAt: open.removeLast())
    }

    mutating func beginDictionary(count: Int?, at range: Range<Int>) throws {
        if open.isEmpty { log.removeAll() }
        open.append(try log.beginContainer(.beginDictionary))
    }

    mutating func endDictionary(at range: Range<Int>) throws {
        try log.endContainer(.endDictionary, begunAt: open.removeLast())
        guard open.isEmpty else { return }
        var reader = EventLog.Reader(log, at: 0)
        _ = try reader.next()  // the dictionary's beginning
        try replayDictionary(&reader)
    }

    mutating func key(_ key: consuming String, at range: Range<Int>) throws {
        // Where a key starts is kept only for the error about a repeated key, which only `.reject` gives.
        try log.appendKey(key, at: duplicateKeys == .reject ? range.lowerBound : 0)
    }

    mutating func value(_ value: PlistValue, at range: Range<Int>) throws {
        guard !open.isEmpty else { return try downstream.value(value, at: range) }
        try log.append(value)
    }

    // MARK: Replay

    /// Replays the value whose first record was `first` (the reader is after it).
    private mutating func replayValue(_ first: PlistEvent, _ reader: inout EventLog.Reader) throws {
        switch first {
        case .beginDictionary:
            try replayDictionary(&reader)
        case .beginArray:
            try downstream.beginArray(count: nil, at: Self.here)
            var i = 0
            while true {
                let next = try reader.next()
                if case .endArray = next { break }
                do {
                    try replayValue(next, &reader)
                } catch let e as PlistError {
                    throw e.inside(String(i))
                }
                i += 1
            }
            try downstream.endArray(at: Self.here)
        case .value(let v):
            try downstream.value(v, at: Self.here)
        case .key, .endArray, .endDictionary:
            throw PlistError(.io, "the event log holds a \(first) where a value belongs")
        }
    }

    /// Replays a dictionary (the reader is after its beginning; it is left after its end) in key order.
    private mutating func replayDictionary(_ reader: inout EventLog.Reader) throws {
        // Where each entry's value starts, found by skipping the values. (The arrays are reused: one per level of
        // nesting being replayed.)
        var entries = spareEntries.popLast() ?? []
        defer {
            entries.removeAll(keepingCapacity: true)
            spareEntries.append(entries)
        }
        var entryBytes = 0
        var runs: EntryRuns<Order>? = nil
        var index = 0
        while true {
            let next = try reader.next()
            if case .endDictionary = next { break }
            guard case .key(let key) = next else { throw PlistError(.io, "the event log holds a value where a key belongs") }
            // Taken before the value is skipped: a nested dictionary's keys would overwrite it.
            let keyOffset = reader.keyOffset
            let start = reader.position
            try reader.skipValue()
            if Order.sorts {
                entryBytes += EntryRuns<Order>.footprint(of: key)
            }
            entries.append(LoggedEntry(key: key, value: start, offset: keyOffset, index: index, valueEnd: reader.position))
            index += 1
            if Order.sorts, entryBytes > entryMemory {
                if runs == nil { runs = EntryRuns(fanIn: entryFanIn, directory: directory) }
                try runs!.writeRun(&entries)
                entryBytes = 0
            }
        }
        if let runs {
            try runs.writeRun(&entries)
            return try replaySpilledDictionary(runs, &reader)
        }
        if collapsesUIDDictionaries, entries.count == 1 {
            var value = reader.moved(to: entries[0].value)
            if case .value(let v) = try value.next(), let uid = PlistTreeBuilder.uid(standingFor: entries[0].key, v) {
                return try downstream.value(.uid(uid), at: Self.here)
            }
        }
        let ordered = try entries.withUnsafeBufferPointer { held in
            try orderedEntries(Order.self, keys: KeyColumn(held), memo: &keyOrders, policy: duplicateKeys, format: format,
                               offset: { held[$0].offset })
        }
        try downstream.beginDictionary(count: ordered.count, at: Self.here)
        downstream.declareDistinctKeys()
        for (k, v) in ordered { try replayEntry(entries[k].key, value: entries[v].value, end: entries[v].valueEnd, &reader) }
        try downstream.endDictionary(at: Self.here)
    }

    /// Replays a dictionary whose entries are in sorted runs (`Order` sorts), as `replayDictionary` would: the
    /// same `CF$UID` collapse, the same entry per repeated key, the same error for a refused one.
    private mutating func replaySpilledDictionary(_ runs: EntryRuns<Order>, _ reader: inout EventLog.Reader) throws {
        if collapsesUIDDictionaries, runs.count == 1 {
            var merge = try runs.merged()
            if let only = try merge.next() {
                var value = reader.moved(to: only.value)
                if case .value(let v) = try value.next(), let uid = PlistTreeBuilder.uid(standingFor: only.key, v) {
                    return try downstream.value(.uid(uid), at: Self.here)
                }
            }
        }
        try runs.rejectRepeatedKey(policy: duplicateKeys, format: format)
        try downstream.beginDictionary(count: nil, at: Self.here)
        downstream.declareDistinctKeys()
        try runs.forEachKept(policy: duplicateKeys) { try replayEntry($0.key, value: $0.value, end: $0.valueEnd, &reader) }
        try downstream.endDictionary(at: Self.here)
    }

    /// Replays one entry: its key, then the value logged at `value ..< end`.
    private mutating func replayEntry(_ key: String, value: Int, end: Int, _ reader: inout EventLog.Reader) throws {
        do {
            try downstream.key(key, at: Self.here)
            var logged = reader.moved(to: value, through: end)
            try replayValue(try logged.next(), &logged)
            // The next entry's value may lie in the window this one read.
            reader.adoptWindow(of: logged)
        } catch let e as PlistError {
            throw e.inside(key)
        }
    }
}

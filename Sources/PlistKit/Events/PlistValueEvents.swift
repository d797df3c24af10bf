/// The order in which a writer wants a dictionary's keys (a type, so the walk is specialised for it).
protocol KeyOrdering {
    /// False for insertion order (then `less` is not used).
    static var sorts: Bool { get }
    /// A strict total order on distinct keys.
    static func less(_ a: String, _ b: String) -> Bool
    /// Whether a key written twice reaches the sink once, chosen by the duplicate-key policy, as in a tree (true for
    /// writers; `AsWrittenKeyOrder` sends what the document holds).
    static var mergesDuplicates: Bool { get }
}

extension KeyOrdering {
    static var mergesDuplicates: Bool { true }
}

/// The document's own entries, untouched: what a tree builder or a recorder receives.
enum AsWrittenKeyOrder: KeyOrdering {
    static var sorts: Bool { false }
    static func less(_ a: String, _ b: String) -> Bool { false }
    static var mergesDuplicates: Bool { false }
}

/// The entries of a dictionary whose keys are `keys`, in `Order`, one per key: among equal keys the duplicate-key
/// policy chooses the value, as in a tree (`.lastWins`: the last value, at the first key's place when the order is
/// the document's; `.reject`: an error at `offset` of the first key repeated). A key set sorted recently takes its
/// order from `memo`. Returns (key index, value index) pairs.
func orderedEntries<Order: KeyOrdering>(
    _ order: Order.Type, keys: KeyColumn, memo: inout KeyOrderMemo, policy: DuplicateKeyPolicy, format: PlistFormat?,
    offset: (Int) -> Int?
) throws -> [(key: Int, value: Int)] {
    let policy = policy.resolved(for: format)
    let count = keys.count
    var out: [(key: Int, value: Int)] = []
    out.reserveCapacity(count)
    if policy == .reject {
        // The first key repeated in document order is the one refused, as in the tree.
        var seen = Set<ExactKey>()
        for i in 0..<count where !seen.insert(ExactKey(keys[i])).inserted {
            _ = try policy.keepsLater(keys[i], at: offset(i), format: format)
        }
    }
    if Order.sorts {
        // Stable: equal keys stay in document order, so the policy sees them as the tree does.
        try withUnsafeTemporaryAllocation(of: Int.self, capacity: count) { sorted in
            memo.sort(keys, by: Order.less, into: sorted)
            for i in sorted {
                if let last = out.last, exactKeyBytesEqual(keys[last.key], keys[i]) {
                    if try policy.keepsLater(keys[i], at: nil, format: nil) { out[out.count - 1].value = i }
                    continue
                }
                out.append((i, i))
            }
        }
        return out
    }
    var position: [ExactKey: Int] = [:]
    for i in 0..<count {
        if let at = position[ExactKey(keys[i])] {
            if try policy.keepsLater(keys[i], at: nil, format: nil) { out[at].value = i }
            continue
        }
        position[ExactKey(keys[i])] = out.count
        out.append((i, i))
    }
    return out
}

/// Keys as inserted.
enum InsertionKeyOrder: KeyOrdering {
    static var sorts: Bool { false }
    static func less(_ a: String, _ b: String) -> Bool { false }
}

/// Core Foundation's order: UTF-16 code units.
enum UTF16KeyOrder: KeyOrdering {
    static var sorts: Bool { true }
    @inline(__always) static func less(_ a: String, _ b: String) -> Bool { KeySorting.utf16Less(a, b) }
}

/// The source that walks a `PlistValue` and sends its events: what drives a writer from a tree.
///
/// The tree has no source text, so every range is empty (`0..<0`). Dictionaries go out in the writer's key order,
/// with their counts; a failure in a child is reported with the child's key path.
enum PlistValueEvents<Sink: PlistEventSink, Order: KeyOrdering> {
    /// Sends `value` (and everything inside it) to `sink`.
    static func send(_ value: PlistValue, to sink: inout Sink) throws {
        var memo = KeyOrderMemo()
        try send(value, to: &sink, memo: &memo)
    }

    private static func send(_ value: PlistValue, to sink: inout Sink, memo: inout KeyOrderMemo) throws {
        let here = 0..<0
        switch value {
        case .array(let elements):
            try sink.beginArray(count: elements.count, at: here)
            try elements.withUnsafeBufferPointer { elements in
                for i in 0..<elements.count {
                    do {
                        try send(elements[i], to: &sink, memo: &memo)
                    } catch let e as PlistError {
                        throw e.inside(String(i))
                    }
                }
            }
            try sink.endArray(at: here)
        case .dictionary(let d):
            try sink.beginDictionary(count: d.count, at: here)
            sink.declareDistinctKeys()
            try d.withEntries { entries in
                try withUnsafeTemporaryAllocation(of: Int.self, capacity: entries.count) { order in
                    // The order is settled before any child is sent (their walk uses the memo too).
                    if Order.sorts { memo.sort(KeyColumn(entries), by: Order.less, into: order) } else { KeySorting.identity(order) }
                    for i in order {
                        do {
                            try sink.key(entries[i].key, at: here)
                            try send(entries[i].value, to: &sink, memo: &memo)
                        } catch let e as PlistError {
                            throw e.inside(entries[i].key)
                        }
                    }
                }
            }
            try sink.endDictionary(at: here)
        default:
            try sink.value(value, at: here)
        }
    }
}

extension PlistEventSink {
    /// Receives `value`'s events, dictionaries in `Order` when `sorted` and as inserted otherwise: how a writer is
    /// driven from a tree, with its `sortKeys` option.
    @inline(__always)
    mutating func receive<Order: KeyOrdering>(_ value: PlistValue, sortedBy order: Order.Type, if sorted: Bool) throws {
        if sorted {
            try PlistValueEvents<Self, Order>.send(value, to: &self)
        } else {
            try PlistValueEvents<Self, InsertionKeyOrder>.send(value, to: &self)
        }
    }
}

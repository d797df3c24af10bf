/// The order in which a writer wants a dictionary's keys (a type, so the walk is specialised for it).
protocol KeyOrdering {
    /// False for insertion order (then `less` is not used).
    static var sorts: Bool { get }
    /// A strict total order on distinct keys.
    static func less(_ a: String, _ b: String) -> Bool
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
        let here = 0..<0
        switch value {
        case .array(let elements):
            try sink.beginArray(count: elements.count, at: here)
            try elements.withUnsafeBufferPointer { elements in
                for i in 0..<elements.count {
                    do {
                        try send(elements[i], to: &sink)
                    } catch let e as PlistError {
                        throw e.inside(String(i))
                    }
                }
            }
            try sink.endArray(at: here)
        case .dictionary(let d):
            try sink.beginDictionary(count: d.count, at: here)
            sink.declareDistinctKeys()
            try KeySorting.withOrder(d, sorted: Order.sorts, by: Order.less) { entries, order in
                for i in order {
                    do {
                        try sink.key(entries[i].key, at: here)
                        try send(entries[i].value, to: &sink)
                    } catch let e as PlistError {
                        throw e.inside(entries[i].key)
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

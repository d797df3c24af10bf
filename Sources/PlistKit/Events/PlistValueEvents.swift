/// The source that walks a `PlistValue` and sends its events: what drives a writer from a tree.
///
/// The tree has no source text, so every range is empty (`0..<0`). Dictionaries go out in the order a writer asks
/// for; a failure in a child is reported with the child's key path.
struct PlistValueEvents<Sink: PlistEventSink> {
    /// A strict total order on distinct keys, or nil for insertion order.
    let keyOrder: ((String, String) -> Bool)?

    init(keyOrder: ((String, String) -> Bool)?) {
        self.keyOrder = keyOrder
    }

    /// Sends `value` (and everything inside it) to `sink`.
    func send(_ value: PlistValue, to sink: inout Sink) throws {
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
            try KeySorting.withOrder(d, sorted: keyOrder != nil, by: keyOrder ?? { _, _ in false }) { entries, order in
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

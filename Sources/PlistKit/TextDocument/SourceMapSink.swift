/// Where one value of a text document came from: its byte ranges in the source, its key's, and its place in the
/// tree. 32-bit fields keep the map small (a node is 36 bytes; a document is refused above 2 GiB).
struct SourceNode: Sendable {
    enum Kind: UInt8, Sendable { case scalar, array, dictionary }

    /// The value's first byte: a scalar's token, a container's opening token.
    var start: Int32
    /// Just past the value: past a scalar's token, a container's closing token.
    var end: Int32
    /// Just past a container's opening token (`{`, `(`, `<dict>`); a scalar's `end`.
    var openEnd: Int32
    /// A container's closing token's first byte (`}`, `)`, `</dict>`); a scalar's `end`.
    var closeStart: Int32
    /// The entry's key token (-1 when the value is not a dictionary entry).
    var keyStart: Int32
    var keyEnd: Int32
    /// The parent's index (-1 for the root).
    var parent: Int32
    /// The index just past this value's subtree (its next sibling, or its parent's next one).
    var subtreeEnd: Int32
    var kind: Kind

    var isContainer: Bool { kind != .scalar }
}

/// The event sink the preserving document is built with: the plain tree builder (so the value is exactly what
/// `PropertyList.read` gives) and, beside it, a flat pre-order table of every value's source ranges.
struct SourceMapSink: PlistEventSink {
    var tree: PlistTreeBuilder
    var nodes: [SourceNode] = []
    private var open: [Int32] = []
    private var pendingKey: (Int32, Int32) = (-1, -1)

    static var wantsExactRanges: Bool { true }

    init(options: PlistReadOptions, format: PlistFormat, expectedBytes: Int) {
        tree = PlistTreeBuilder(options: options, format: format)
        // A rough guess (one value per ~12 bytes of text) saves most regrowing.
        nodes.reserveCapacity(max(16, expectedBytes / 12))
    }

    private mutating func add(_ kind: SourceNode.Kind, _ range: Range<Int>) {
        let s = Int32(truncatingIfNeeded: range.lowerBound)
        let e = Int32(truncatingIfNeeded: range.upperBound)
        nodes.append(SourceNode(start: s, end: e, openEnd: e, closeStart: e, keyStart: pendingKey.0, keyEnd: pendingKey.1,
                                parent: open.last ?? -1, subtreeEnd: Int32(truncatingIfNeeded: nodes.count + 1), kind: kind))
        pendingKey = (-1, -1)
    }

    private mutating func close(_ range: Range<Int>) {
        guard let index = open.popLast() else { return }
        let i = Int(index)
        nodes[i].closeStart = Int32(truncatingIfNeeded: range.lowerBound)
        nodes[i].end = Int32(truncatingIfNeeded: range.upperBound)
        nodes[i].subtreeEnd = Int32(truncatingIfNeeded: nodes.count)
    }

    mutating func beginArray(count: Int?, at range: Range<Int>) throws {
        add(.array, range)
        open.append(Int32(truncatingIfNeeded: nodes.count - 1))
        try tree.beginArray(count: count, at: range)
    }

    mutating func endArray(at range: Range<Int>) throws {
        close(range)
        try tree.endArray(at: range)
    }

    mutating func beginDictionary(count: Int?, at range: Range<Int>) throws {
        add(.dictionary, range)
        open.append(Int32(truncatingIfNeeded: nodes.count - 1))
        try tree.beginDictionary(count: count, at: range)
    }

    mutating func endDictionary(at range: Range<Int>) throws {
        close(range)
        try tree.endDictionary(at: range)
    }

    mutating func key(_ key: consuming String, at range: Range<Int>) throws {
        pendingKey = (Int32(truncatingIfNeeded: range.lowerBound), Int32(truncatingIfNeeded: range.upperBound))
        try tree.key(key, at: range)
    }

    mutating func value(_ value: PlistValue, at range: Range<Int>) throws {
        add(.scalar, range)
        try tree.value(value, at: range)
    }
}

/// The sink that turns events into a `PlistValue`, and the one place that applies tree policy: the duplicate-key
/// policy, the `CF$UID` dictionaries that stand for UIDs in text formats, and the shared subtrees and repeated key
/// sets of binary documents.
///
/// Children are collected on stacks and moved into each container when it ends, so a container costs one allocation,
/// its own, of exactly its size. The owner calls `release()` once, also after a failed parse (a struct cannot free
/// its stacks itself).
struct PlistTreeBuilder: PlistEventSink {
    private struct Frame {
        var valueStart: Int
        /// Where the dictionary's keys start on `keys`; -1 for an array.
        var keyStart: Int
        /// Where their source positions start on `keyStarts` (keys taken at once have none: they are distinct).
        var keyOffsetStart: Int
        /// Which remembered key set (`keySets.sets`) this dictionary has (no key events then); -1 when its keys came
        /// as events.
        var keysSlot: Int
        /// The source checked the keys for duplicates.
        var distinct: Bool
    }

    private let duplicateKeys: DuplicateKeyPolicy
    /// Text formats write a UID as `{CF$UID = n}`; binary has UIDs of its own, and JSON has none.
    private let collapsesUIDDictionaries: Bool
    private let format: PlistFormat
    private var frames = MoveStack<Frame>(capacity: 16)
    private var values = MoveStack<PlistValue>(capacity: 64)
    private var keys = MoveStack<String>(capacity: 64)
    /// Where each key on `keys` starts in the source, for the error about a repeated one.
    private var keyStarts = MoveStack<Int>(capacity: 64)
    /// Values the source may repeat (`rememberSubtree`).
    private var remembered = MoveStack<PlistValue>(capacity: 16)
    /// Dictionaries whose keys later dictionaries reuse (`rememberKeys`), by slot: raw memory, so checking a slot
    /// (once per record of an array of records) retains nothing. Allocated on first use.
    private var keySets: RememberedKeySets?
    private static var keySetSlots: Int { 256 }

    /// The remembered key sets, and per slot the one it holds (-1: none). Apart, so that the slot table is plain
    /// integers: a table of optional dictionaries was initialised and destroyed through the runtime's generic
    /// witnesses, 256 slots each time — measured, 9,000 instructions a parse (a third of a small file's).
    private struct RememberedKeySets {
        var slots: UnsafeMutablePointer<Int32>
        var sets: MoveStack<PlistDictionary>

        init() {
            slots = .allocate(capacity: PlistTreeBuilder.keySetSlots)
            slots.initialize(repeating: -1, count: PlistTreeBuilder.keySetSlots)
            sets = MoveStack(capacity: 4)
        }

        mutating func release() {
            slots.deallocate()
            sets.release()
        }
    }

    init(options: PlistReadOptions, format: PlistFormat) {
        duplicateKeys = options.duplicateKeys.resolved(for: format)
        collapsesUIDDictionaries = Self.collapsesUIDDictionaries(in: format)
        self.format = format
    }

    /// Runs `parse` into a tree builder behind the read limits, and returns the document's value.
    @inline(__always)
    static func build(
        _ options: PlistReadOptions, format: PlistFormat, _ parse: (inout LimitingSink<PlistTreeBuilder>) throws -> Void
    ) throws -> PlistValue {
        var sink = LimitingSink(PlistTreeBuilder(options: options, format: format), limits: ReadLimits(options, format: format))
        defer { sink.inner.release() }
        try parse(&sink)
        guard let value = sink.inner.result else {
            throw PlistError(.rootCount, "the document holds no value", format: format)
        }
        return value
    }

    /// Frees the stacks and everything still on them.
    mutating func release() {
        frames.release()
        values.release()
        keys.release()
        keyStarts.release()
        remembered.release()
        keySets?.release()
    }

    /// The value of the document: the last complete value outside any container (nil before there is one).
    var result: PlistValue? { frames.count == 0 ? values.last : nil }

    // MARK: Events

    @inline(__always)
    mutating func beginArray(count: Int?, at range: Range<Int>) throws {
        frames.append(Frame(valueStart: values.count, keyStart: -1, keyOffsetStart: -1, keysSlot: -1, distinct: false))
    }

    @inline(__always)
    mutating func endArray(at range: Range<Int>) throws {
        guard let frame = frames.popLast() else { return }
        values.append(.array(values.moveOut(from: frame.valueStart)))
    }

    @inline(__always)
    mutating func beginDictionary(count: Int?, at range: Range<Int>) throws {
        frames.append(Frame(
            valueStart: values.count, keyStart: keys.count, keyOffsetStart: keyStarts.count, keysSlot: -1, distinct: false))
    }

    @inline(__always)
    mutating func key(_ key: consuming String, at range: Range<Int>) throws {
        keys.append(key)
        keyStarts.append(range.lowerBound)
    }

    @inline(__always)
    mutating func value(_ value: PlistValue, at range: Range<Int>) throws {
        values.append(value)
    }

    @inline(__always)
    mutating func declareDistinctKeys() {
        frames[frames.count - 1].distinct = true
    }

    /// Takes the keys of a dictionary a binary source read first: one tight loop instead of an event per key, and no
    /// positions (distinct keys are never reported as repeated).
    @inline(__always)
    mutating func takeDistinctKeys(count: Int, _ key: (Int) -> String) throws -> Bool {
        frames[frames.count - 1].distinct = true
        keys.reserve(count)
        for i in 0..<count { keys.appendReserved(key(i)) }
        return true
    }

    mutating func endDictionary(at range: Range<Int>) throws {
        guard let frame = frames.popLast() else { return }
        if frame.keysSlot >= 0, let keySets {
            let sets = keySets.sets
            assert(values.count - frame.valueStart == sets[frame.keysSlot].count,
                   "a remembered key set is used only for dictionaries of its size")
            let valueBase = values.popLeavingInPlace(from: frame.valueStart)
            let dictionary = PlistDictionary(keysOf: sets[frame.keysSlot], movingValues: valueBase)
            values.append(.dictionary(consume dictionary))
            return
        }
        let count = keys.count - frame.keyStart
        var index: PlistKeyIndex?
        // Distinct keys get no index here: the dictionary's first lookup builds it. Keys checked here were hashed for
        // the check, and the table that did it becomes the index.
        if !frame.distinct {
            let column = KeyColumn(UnsafeBufferPointer(start: keys.base + frame.keyStart, count: count))
            let (built, duplicate) = PlistKeyIndex.forDictionary(column)
            if let duplicate {
                values.append(try dictionaryWithDuplicates(frame, count: count, firstDuplicate: duplicate))
                return
            }
            index = built
        }
        // Distinct keys: the stacks' tops move into the dictionary as they are.
        keyStarts.pop(from: frame.keyOffsetStart)
        let keyBase = keys.popLeavingInPlace(from: frame.keyStart)
        let valueBase = values.popLeavingInPlace(from: frame.valueStart)
        let dictionary = PlistDictionary(movingUniqueKeys: keyBase, values: valueBase, count: count, index: index)
        values.append(Self.collapsingUID(consume dictionary, collapses: collapsesUIDDictionaries))
    }

    /// The dictionary of a frame whose keys repeat, built entry by entry under the duplicate-key policy.
    @inline(never)
    private mutating func dictionaryWithDuplicates(_ frame: Frame, count: Int, firstDuplicate: Int) throws -> PlistValue {
        defer {
            keys.pop(from: frame.keyStart)
            keyStarts.pop(from: frame.keyOffsetStart)
            values.pop(from: frame.valueStart)
        }
        var d = PlistDictionary(minimumCapacity: count)
        for j in 0..<count {
            let key = keys[frame.keyStart + j]
            let value = values[frame.valueStart + j]
            if j < firstDuplicate {
                d.appendNew(key, value)
                continue
            }
            if !d.insertIfAbsent(value, forKey: key),
               try duplicateKeys.keepsLater(key, at: keyStarts[frame.keyOffsetStart + j], format: format) {
                d.updateValue(value, forKey: key)
            }
        }
        return Self.collapsingUID(d, collapses: collapsesUIDDictionaries)
    }

    /// A one-entry dictionary `CF$UID` → a non-negative integer stands for a keyed-archiver UID in text formats,
    /// as Core Foundation reads it.
    /// (Static, and `consuming`: the dictionary moves into the value. A method borrowing it retained it once more
    /// and released the caller's copy: a retain and a release per dictionary, measured with callgrind.)
    @inline(__always)
    private static func collapsingUID(_ d: consuming PlistDictionary, collapses: Bool) -> PlistValue {
        if collapses, d.count == 1, let uid = Self.uid(standingFor: d.key(at: 0), d.value(at: 0)) {
            return .uid(uid)
        }
        return .dictionary(d)
    }

    /// The UID a one-entry dictionary of `key` → `value` stands for, if it is `CF$UID` → a non-negative integer.
    static func uid(standingFor key: String, _ value: PlistValue) -> UID? {
        guard case .integer(let i) = value, let u = i.uint64Value, key == "CF$UID" else { return nil }
        return UID(u)
    }

    /// Whether `format` writes UIDs as `CF$UID` dictionaries (the text formats; binary has UIDs of its own, JSON none).
    static func collapsesUIDDictionaries(in format: PlistFormat) -> Bool {
        format == .xml || format == .openStep || format == .gnustep || format == .strings
    }

    // MARK: Shared subtrees and key sets

    mutating func rememberSubtree() -> Int? {
        guard let last = values.last else { return nil }
        remembered.append(last)
        return remembered.count - 1
    }

    @inline(__always)
    mutating func repeatSubtree(_ token: Int, at range: Range<Int>) throws {
        values.append(remembered[token])
    }

    mutating func rememberKeys(inSlot slot: Int) {
        guard slot >= 0, slot < Self.keySetSlots, case .dictionary(let d)? = values.last else { return }
        // (The struct holds only pointers and a count: taking it out and putting it back copies no elements.)
        var table = keySets ?? RememberedKeySets()
        let held = Int(table.slots[slot])
        if held >= 0 {
            table.sets[held] = d
        } else {
            table.slots[slot] = Int32(table.sets.count)
            table.sets.append(d)
        }
        keySets = table
    }

    @inline(__always)
    mutating func beginDictionary(count: Int, keysFromSlot slot: Int, at range: Range<Int>) throws -> Bool {
        guard let keySets, slot >= 0, slot < Self.keySetSlots else { return false }
        let held = Int(keySets.slots[slot])
        guard held >= 0, keySets.sets[held].count == count else { return false }
        frames.append(Frame(
            valueStart: values.count, keyStart: keys.count, keyOffsetStart: keyStarts.count, keysSlot: held, distinct: true))
        return true
    }
}

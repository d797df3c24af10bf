import FoundationEssentials

/// Decodes the objects of a `bplist00` document whose trailer has been validated, and sends them to a sink.
///
/// Objects met a second time are remembered by the sink (`rememberSubtree`), so shared subtrees cost their size at
/// most twice (the first decode cannot know it will be shared; writers share scalars and strings, which are cheap to
/// decode twice) and later references are one `repeatSubtree` event, never a second stream of events: a small file
/// of shared arrays cannot expand into a huge one. Objects met once need no bookkeeping, and fixed-size scalars
/// (numbers, dates, Booleans, UIDs) none at all. Dictionary keys go to a table of the document's distinct keys on
/// first use (see `slots`), and a run of dictionaries with the very same key objects (an array of records) reuses
/// one key set in the sink (`rememberKeys`, `BinaryKeyCache`). A writer gets each dictionary's entries in its key
/// `Order`, repeated keys merged by the duplicate-key policy (the keys are read first anyway); a tree gets them as
/// written (`AsWrittenKeyOrder`).
///
/// Hostile input is bounded three ways: an object being decoded is marked "in progress" (a reference back to it is a
/// cycle, whatever the distance); nesting is capped by the sink (`ReadLimits`); and every decode but that of a
/// fixed-size scalar or the second one of a short ASCII string charges its byte span to a budget of four times the
/// object area, so overlapping objects cannot multiply the work or memory beyond a constant factor of the input.
/// Several object indexes may share one offset (CF reads such aliases): when the budget runs out, the tree reader
/// reads the document again with objects remembered by offset, so an alias costs nothing and only objects at
/// distinct offsets that overlap exhaust the budget. (A short string allocates nothing and costs at most 15 bytes of
/// reading per decode, so many object indexes aliasing one are bounded by the offset table's size instead.)
struct BinaryEventSource<Sink: PlistEventSink, Order: KeyOrdering> {
    private let table: BinaryObjectTable
    /// Per object: `notStarted`, `inProgress` (on the current path), `decodedOnce` (not remembered until it is met
    /// again), 1 + the sink's token for it once remembered, or — for a string met as a dictionary key — `firstKey`
    /// minus its position in `keyTable`. Key objects with the same scalars share a position, so each is decoded and
    /// hashed once per document, a key costs two loads, and duplicate detection compares integers.
    ///
    /// Four bytes an object for a sink that remembers subtrees (its tokens need them); one byte for one that does not
    /// (`Sink.remembersSubtrees` false: a writer), with the positions of the key objects met twice kept aside in
    /// `internedKeys`. A 512 MiB library's 22 million objects then take 22 MB instead of 89.
    private let wideSlots: UnsafeMutablePointer<Int32>
    private let narrowSlots: UnsafeMutablePointer<Int8>
    private var internedKeys: [Int32: Int32] = [:]
    var sink: Sink
    /// Whether the span of the object being decoded is charged to `budget`.
    private var chargesBudget = true
    private var budget: Int
    /// The second reading, after the budget ran out: decoded objects are remembered by offset (`offsetMemo`).
    private let byOffset: Bool
    /// For a writer's key order (`Order.mergesDuplicates`): which of equal keys is sent.
    private let duplicateKeys: DuplicateKeyPolicy
    private var offsetMemo: [Int: Int] = [:]
    /// See `Outcome.skippedMergedValues`.
    private var skippedMergedValues = false
    /// For a writer's key order: where a dictionary's entries go once they take more than `entryMemory` (sorted
    /// runs on disk, `EntryRuns`); nil keeps every dictionary's keys in memory.
    private let spill: PropertyList.Spill?
    private var keyCache = BinaryKeyCache()
    /// The distinct keys of the document, and per key the serial of the last dictionary that used it.
    private var keyTable = MoveStack<String>(capacity: 64)
    private var keyStamps = MoveStack<UInt32>(capacity: 64)
    /// Finds a key's position in `keyTable` by its scalars.
    private var keyIntern: PlistKeyIndex
    /// Counts dictionaries whose keys went through the table (the stamp of the one being read).
    private var dictionarySerial: UInt32 = 0
    /// The keys of the dictionaries being read, innermost on top: positions in `keyTable` for a small dictionary,
    /// strings for a large one.
    private var keyPositions = MoveStack<Int32>(capacity: 64)
    private var keyStrings = MoveStack<String>(capacity: 64)
    /// Orders of key sets met before, for a writer's key order (a record's keys come from `keyTable`, the same
    /// strings each time).
    private var keyOrders = KeyOrderMemo()

    private static var notStarted: Int32 { 0 }
    private static var inProgress: Int32 { -1 }
    private static var decodedOnce: Int32 { -2 }
    private static var firstKey: Int32 { -3 }

    /// What a reading leaves for its caller to check.
    struct Outcome {
        /// The decoding budget left (of `treeBudget(trailer)` unless the caller gave one).
        var budgetLeft: Int
        /// Whether a dictionary's repeated key was merged for a writer's key order (`Order.mergesDuplicates`), so
        /// that a value the duplicate-key policy drops was never decoded; a tree decodes every value (as CF does)
        /// and fails on a bad one, so only the tree reader can say whether the document reads.
        var skippedMergedValues: Bool
    }

    /// Sends the root object of `bytes` (which `trailer` describes), or object `top`, to `sink`. `byOffset` is the
    /// second reading of a document whose first one threw `BinaryBudgetExhausted`.
    @discardableResult
    static func run(
        _ bytes: UnsafeRawBufferPointer, trailer: BinaryTrailer, options: PlistReadOptions, byOffset: Bool,
        from top: Int? = nil, budget: Int? = nil, spill: PropertyList.Spill? = nil, into sink: inout Sink
    ) throws -> Outcome {
        guard let base = bytes.baseAddress else {
            throw BinaryTrailer.error(.truncated, "empty input", at: 0)
        }
        let count = trailer.objectCount
        // Slots hold 1 + a sink token or `firstKey` − a key position, both below the object count.
        guard count < Int(Int32.max) - 8 else {
            throw BinaryTrailer.error(.countLimit, "more than \(Int32.max - 9) objects", at: bytes.count - 24)
        }
        // Zero-filled (`notStarted`); a subtree's reading pays only for the pages it touches.
        let table = BinaryObjectSlots(count: count, bytesPerSlot: Sink.remembersSubtrees ? 4 : 1, sparse: top != nil)
        defer { table.release() }
        var source = BinaryEventSource(
            table: BinaryObjectTable(base: base, trailer: trailer, strictDates: options.strictDates),
            slots: table, sink: sink, budget: budget ?? treeBudget(trailer), byOffset: byOffset,
            duplicateKeys: options.duplicateKeys.resolved(for: .binary), spill: spill)
        defer {
            source.keyPositions.release()
            source.keyStrings.release()
            source.keyTable.release()
            source.keyStamps.release()
            sink = source.sink
        }
        try source.root(top ?? trailer.topObject)
        return Outcome(budgetLeft: source.budget, skippedMergedValues: source.skippedMergedValues)
    }

    /// The decoding budget of a reading whose sink remembers subtrees: four times the object area.
    static func treeBudget(_ trailer: BinaryTrailer) -> Int { 4 * trailer.offsetTableOffset }

    private init(
        table: BinaryObjectTable, slots: BinaryObjectSlots, sink: Sink, budget: Int, byOffset: Bool,
        duplicateKeys: DuplicateKeyPolicy, spill: PropertyList.Spill?
    ) {
        self.table = table
        self.spill = spill
        self.duplicateKeys = duplicateKeys
        wideSlots = slots.raw.assumingMemoryBound(to: Int32.self)
        narrowSlots = slots.raw.assumingMemoryBound(to: Int8.self)
        self.sink = sink
        self.budget = budget
        self.byOffset = byOffset
        // A small document's table sized for all its objects: growing rebuilds it and hashes every key again (measured
        // on the shared harness's config-S file: 10% of a parse). Not a large one's: reserving 1,024 keys made
        // config-M 30% slower (measured, cause not found), so it grows from the smallest table.
        keyIntern = PlistKeyIndex(reservingCapacityFor: table.trailer.objectCount <= 4096 ? table.trailer.objectCount : 0)
    }

    // MARK: Slots

    @inline(__always) private func slot(_ index: Int) -> Int32 {
        if Sink.remembersSubtrees { return wideSlots[index] }
        let state = Int32(narrowSlots[index])
        guard state == Self.firstKey else { return state }
        return internedKeys[Int32(truncatingIfNeeded: index)] ?? Self.notStarted
    }

    @inline(__always) private mutating func setSlot(_ index: Int, _ value: Int32) {
        if Sink.remembersSubtrees {
            wideSlots[index] = value
        } else if value <= Self.firstKey {
            narrowSlots[index] = Int8(truncatingIfNeeded: Self.firstKey)
            internedKeys[Int32(truncatingIfNeeded: index)] = value
        } else {
            // Such a sink never gives a token: the states left fit in a byte.
            precondition(value >= Self.decodedOnce, "a sink that remembers no subtree returned a token")
            narrowSlots[index] = Int8(truncatingIfNeeded: value)
        }
    }

    // MARK: Objects

    /// The root object (a call of its own, so `object` is inlined only where the containers read their children).
    @inline(never) private mutating func root(_ index: Int) throws {
        try object(index)
    }

    /// Sends object `index` (at `checkedOffset` when the caller has already looked it up). One function, not two:
    /// each nesting level costs one stack frame in unoptimised builds too; and one call of the sink for a scalar,
    /// so the whole of it can be inlined where the containers read their children.
    @inline(__always) private mutating func object(_ index: Int, at checkedOffset: Int? = nil) throws {
        let offset = try checkedOffset ?? table.objectOffset(index)
        // Fixed-size scalars take O(1) to decode, allocate nothing and hold nothing: no memo, cycle or budget
        // bookkeeping (every reference to one costs a byte of input). Half the objects of a typical file.
        let marker = table.base.load(fromByteOffset: offset, as: UInt8.self)
        let kind = marker >> 4
        if kind <= 0x3 || kind == 0x8 {
            // Booleans and one-byte integers (the commonest scalars) without a call.
            if marker & 0xFE == 0x08 { return try sink.value(.bool(marker == 0x09), at: range(offset)) }
            if marker == 0x10, offset + 2 <= table.objectsEnd {
                let v = PlistValue.integer(PlistInteger(Int64(table.base.load(fromByteOffset: offset + 1, as: UInt8.self))))
                return try sink.value(v, at: range(offset))
            }
            return try sink.value(try table.fixedSizeScalar(at: offset), at: range(offset))
        }
        let slot = slot(index)
        if slot > 0 { return try sink.repeatSubtree(Int(slot) - 1, at: range(offset)) }
        if slot <= Self.firstKey { return try sink.value(.string(keyTable[Int(Self.firstKey - slot)]), at: range(offset)) }
        if slot == Self.inProgress { throw cycleError(index, at: offset) }
        if byOffset, let known = offsetMemo[offset] { return try sink.repeatSubtree(known, at: range(offset)) }
        chargesBudget = slot == Self.notStarted || kind != 0x5 || marker & 0x0F == 0x0F
        // Containers are read from here, not through `leaf`: each nesting level then costs two stack frames.
        if kind == 0xA {
            try array(index, at: offset)
        } else if kind == 0xD {
            try dictionary(index, at: offset)
        } else {
            let (value, end) = try table.leaf(at: offset)
            try charge(offset, end)
            try sink.value(value, at: range(offset))
        }
        remember(index, slot: slot, at: offset)
    }

    /// After the events of object `index` (whose slot was `slot`): the bookkeeping that lets later references to it
    /// be one event.
    @inline(__always) private mutating func remember(_ index: Int, slot: Int32, at offset: Int) {
        var token: Int?
        if byOffset {
            token = sink.rememberSubtree()
            if let token { offsetMemo[offset] = token }
        }
        if slot == Self.notStarted {
            setSlot(index, Self.decodedOnce)
        } else {
            assert(slot == Self.decodedOnce, "every other slot state returned or threw above")
            // Met a second time: a third is likely, and the sink can stand in for the events from now on (one that
            // cannot gets them again, within the budget).
            setSlot(index, (token ?? sink.rememberSubtree()).map { Int32($0 + 1) } ?? Self.decodedOnce)
        }
    }

    /// The source range of the object at `offset`: exact only for a sink that asks (the end is another decode).
    @inline(__always) private func range(_ offset: Int) -> Range<Int> {
        guard Sink.wantsExactRanges else { return Range(uncheckedBounds: (offset, offset)) }
        return offset..<((try? table.objectEnd(offset)) ?? offset)
    }

    // Built out of line, so the hot functions stay small enough to be inlined into one another.
    @inline(never) private func cycleError(_ index: Int, at offset: Int) -> PlistError {
        error(.cycle, "object \(index) contains itself (reference cycle)", at: offset)
    }

    // MARK: Collections
    //
    // `array` and `dictionary` are where the recursion goes through a call (`object` is inlined into the loops
    // that read children).

    @inline(never) private mutating func array(_ index: Int, at offset: Int) throws {
        let low = Int(table.base.load(fromByteOffset: offset, as: UInt8.self) & 0x0F)
        let (refs, count) = try table.payload(low, unit: table.trailer.refSize, at: offset)
        try charge(offset, refs + count * table.trailer.refSize)
        setSlot(index, Self.inProgress)
        try sink.beginArray(count: count, at: range(offset))
        try values(count, valueRefs: refs, keys: .none)
        try sink.endArray(at: range(offset))
    }

    @inline(never) private mutating func dictionary(_ index: Int, at offset: Int) throws {
        let low = Int(table.base.load(fromByteOffset: offset, as: UInt8.self) & 0x0F)
        let (keyRefs, count) = try table.payload(low, unit: 2 * table.trailer.refSize, at: offset)
        try charge(offset, keyRefs + 2 * count * table.trailer.refSize)
        setSlot(index, Self.inProgress)
        let refSize = table.trailer.refSize
        let valueRefs = keyRefs + count * refSize
        if Order.mergesDuplicates { return try orderedDictionary(count, keyRefs: keyRefs, valueRefs: valueRefs, at: offset) }
        // Dictionaries with the very same key objects (an array of records) reuse one checked key set in the sink.
        let (cached, probed) = keyCache.lookup(base: table.base, keyRefs: keyRefs, count: count, refSize: refSize)
        // (No closures here, `map` or `&&`'s: capturing `self` copies the whole source, 512 bytes, per dictionary.)
        var keysKnown = false
        if let cached { keysKnown = try sink.beginDictionary(count: count, keysFromSlot: cached, at: range(offset)) }
        // Where this dictionary's keys start on the stack `readKeys` puts them on (`keyStrings` or `keyPositions`).
        var asStrings = false, keyStart = keyPositions.count
        var keys = ChildKeys.known(keyRefs: keyRefs)
        if !keysKnown {
            let stringStart = keyStrings.count
            let distinct: Bool
            (distinct, asStrings) = try readKeys(count, keyRefs: keyRefs)
            if asStrings { keyStart = stringStart }
            try sink.beginDictionary(count: count, at: range(offset))
            if distinct {
                sink.declareDistinctKeys()
                // A tree takes the keys in one loop rather than an event per key (measured with callgrind on the
                // shared harness's config-M file: 15 instructions a key instead of 41).
                let table = keyTable.base, positions = keyPositions.base + keyStart
                if try sink.takeDistinctKeys(count: count, { table[Int(positions[$0])] }) {
                    keys = .taken(start: keyStart)
                }
            }
            if case .known = keys {
                keys = asStrings ? .strings(keyRefs: keyRefs, start: keyStart) : .positions(keyRefs: keyRefs, start: keyStart, distinct: distinct)
            }
        }
        // (After a failure the whole reading is abandoned, stacks and all: nothing to pop then.)
        switch keys {
        case .none, .known, .taken: try values(count, valueRefs: valueRefs, keys: keys)
        case .positions, .strings: try entries(count, valueRefs: valueRefs, keys: keys, at: offset)
        }
        if !keysKnown { if asStrings { keyStrings.pop(from: keyStart) } else { keyPositions.pop(from: keyStart) } }
        try sink.endDictionary(at: range(offset))
        if keysKnown { return }
        // (A sink that merged repeated keys holds fewer keys than `count`, and will not match this slot again.)
        if probed {
            sink.rememberKeys(inSlot: keyCache.store(base: table.base, keyRefs: keyRefs, count: count, refSize: refSize))
        }
    }

    /// Where the keys of the children being read come from: none (an array), the sink (a remembered key set), or
    /// the stacks `readKeys` filled.
    private enum ChildKeys {
        case none
        case known(keyRefs: Int)
        /// The sink took the keys (`takeDistinctKeys`); they are still on `keyPositions` for error messages.
        case taken(start: Int)
        case positions(keyRefs: Int, start: Int, distinct: Bool)
        case strings(keyRefs: Int, start: Int)
    }

    /// The values of the container being read, with no key events (an array, or a dictionary whose keys the sink
    /// has). A function of its own without `defer` and without a choice per child, so that `object` is inlined into
    /// its loop (measured: 9% fewer instructions than a call per child).
    @inline(never) private mutating func values(_ count: Int, valueRefs: Int, keys: ChildKeys) throws {
        let refSize = table.trailer.refSize
        for i in 0..<count {
            let valueRef = try table.reference(at: valueRefs + i * refSize)
            do {
                try object(valueRef)
            } catch let e as PlistError {
                throw e.inside(try childName(i, keys))
            }
        }
    }

    /// The entries of a dictionary whose keys go to the sink as events: each key before its value.
    @inline(never) private mutating func entries(_ count: Int, valueRefs: Int, keys: ChildKeys, at offset: Int) throws {
        let refSize = table.trailer.refSize
        for i in 0..<count {
            switch keys {
            case .none, .known, .taken: break
            case .positions(let keyRefs, let start, let distinct):
                // Where a key sits matters only to the sink that checks it (its error names the repeated key).
                let keyAt = distinct ? offset : try table.objectOffset(try table.reference(at: keyRefs + i * refSize))
                // The key goes to the sink straight from its stack: no copy of our own to retain and release.
                try sink.key(keyTable[Int(keyPositions[start + i])], at: range(keyAt))
            case .strings(let keyRefs, let start):
                try sink.key(keyStrings[start + i], at: range(try table.objectOffset(try table.reference(at: keyRefs + i * refSize))))
            }
            let valueRef = try table.reference(at: valueRefs + i * refSize)
            do {
                try object(valueRef)
            } catch let e as PlistError {
                throw e.inside(try childName(i, keys))
            }
        }
    }

    /// A dictionary for a writer: its keys read and put in `Order`, one entry per key, then the entries in that order.
    private mutating func orderedDictionary(_ count: Int, keyRefs: Int, valueRefs: Int, at offset: Int) throws {
        // (An entry takes at least 40 bytes to order in memory: only a dictionary this large can pass the bound.)
        if Order.sorts, let spill, count * 40 > spill.entryMemory {
            return try spilledDictionary(count, keyRefs: keyRefs, valueRefs: valueRefs, at: offset, spill)
        }
        let refSize = table.trailer.refSize
        let keyStart = keyStrings.count
        for i in 0..<count { keyStrings.append(try keyString(try table.reference(at: keyRefs + i * refSize))) }
        let base = keyStrings.base + keyStart
        let plan = try orderedEntries(
            Order.self, keys: KeyColumn(UnsafeBufferPointer(start: base, count: count)), memo: &keyOrders,
            policy: duplicateKeys, format: .binary,
            offset: { [table] in try? table.objectOffset(try table.reference(at: keyRefs + $0 * refSize)) })
        if plan.count < count { skippedMergedValues = true }
        try sink.beginDictionary(count: plan.count, at: range(offset))
        sink.declareDistinctKeys()
        for (k, v) in plan {
            let key = keyStrings[keyStart + k]
            do {
                try sink.key(key, at: range(offset))
                try object(try table.reference(at: valueRefs + v * refSize))
            } catch let e as PlistError {
                throw e.inside(key)
            }
        }
        keyStrings.pop(from: keyStart)
        try sink.endDictionary(at: range(offset))
    }

    /// `orderedDictionary` of a dictionary whose entries may not fit `spill.entryMemory`: its keys (with their value
    /// positions) collected in runs that are sorted on disk past the bound and merged (`EntryRuns`, as text input's
    /// large dictionaries are), so its size costs no memory. The same entries, order and errors.
    @inline(never) private mutating func spilledDictionary(
        _ count: Int, keyRefs: Int, valueRefs: Int, at offset: Int, _ spill: PropertyList.Spill
    ) throws {
        let refSize = table.trailer.refSize
        let runs = EntryRuns<Order>(fanIn: spill.entryFanIn, directory: spill.directory)
        var entries: [LoggedEntry] = []
        var bytes = 0
        for i in 0..<count {
            let keyRef = try table.reference(at: keyRefs + i * refSize)
            let key = try keyString(keyRef)
            bytes += EntryRuns<Order>.footprint(of: key)
            entries.append(LoggedEntry(key: key, value: i, offset: try table.objectOffset(keyRef), index: i))
            if bytes > spill.entryMemory {
                try runs.writeRun(&entries)
                bytes = 0
            }
        }
        try runs.writeRun(&entries)
        try runs.rejectRepeatedKey(policy: duplicateKeys, format: .binary)
        try sink.beginDictionary(count: nil, at: range(offset))
        sink.declareDistinctKeys()
        let dropped = try runs.forEachKept(policy: duplicateKeys) { entry in
            do {
                try sink.key(entry.key, at: range(offset))
                try object(try table.reference(at: valueRefs + entry.value * refSize))
            } catch let e as PlistError {
                throw e.inside(entry.key)
            }
        }
        if dropped { skippedMergedValues = true }
        try sink.endDictionary(at: range(offset))
    }

    /// Reads a dictionary's `count` keys, before any value, as CF reads them: a key that is not a string fails
    /// first. Returns whether the keys are known to be distinct, and whether they went to `keyStrings` rather than
    /// (as positions in the key table) to `keyPositions`. Out of line, so the loop over the values stays small enough
    /// for `object` to be inlined into it.
    @inline(never) private mutating func readKeys(_ count: Int, keyRefs: Int) throws -> (distinct: Bool, asStrings: Bool) {
        let refSize = table.trailer.refSize
        // A local copy: the loop's mutating calls would otherwise make it copy the table from `self` once per key.
        let table = table
        // A large dictionary's keys go through the key table too when its first key is already there (a record
        // whose keys other records share); otherwise they are most likely its own (record identifiers), and the sink
        // hashes them once, for its duplicate check and index, instead of the table hashing them as well.
        if count > PlistDictionary.indexThreshold, slot(try table.reference(at: keyRefs)) > Self.firstKey {
            for i in 0..<count { keyStrings.append(try keyString(try table.reference(at: keyRefs + i * refSize))) }
            return (false, true)
        }
        var distinct = true
        // Cannot wrap: each object is decoded at most twice and there are fewer than 2^31 objects.
        dictionarySerial += 1
        for i in 0..<count {
            let keyRef = try table.reference(at: keyRefs + i * refSize)
            let slot = slot(keyRef)
            let position = slot <= Self.firstKey ? Int(Self.firstKey - slot) : try internKey(keyRef)
            keyPositions.append(Int32(position))
            if keyStamps[position] == dictionarySerial {
                distinct = false
            } else {
                keyStamps[position] = dictionarySerial
            }
        }
        return (distinct, false)
    }

    /// The key path component of child `i` of the container being read, for an error.
    @inline(never)
    private mutating func childName(_ i: Int, _ keys: ChildKeys) throws -> String {
        switch keys {
        case .none: return String(i)
        // With a remembered key set, the keys were read (and checked) for the dictionary that filled the slot.
        case .known(let keyRefs): return (try? keyString(try table.reference(at: keyRefs + i * table.trailer.refSize))) ?? "?"
        case .positions(_, let start, _), .taken(let start): return keyTable[Int(keyPositions[start + i])]
        case .strings(_, let start): return keyStrings[start + i]
        }
    }

    /// Decodes key object `ref` (met as a key for the first time) and gives it a position in `keyTable`, shared
    /// with any earlier key object of the same scalars.
    private mutating func internKey(_ ref: Int) throws -> Int {
        let key = try decodeKey(ref)
        let h = PlistKeyIndex.hash(key)
        let position: Int
        if let known = keyIntern.position(of: key, hash: h, in: keyColumn) {
            position = known
        } else {
            keyTable.append(key)
            keyStamps.append(0)
            keyIntern.appended(keyColumn, hash: h)
            position = keyTable.count - 1
        }
        setSlot(ref, Self.firstKey - Int32(position))
        return position
    }

    @inline(__always) private var keyColumn: KeyColumn {
        KeyColumn(UnsafeBufferPointer(start: keyTable.base, count: keyTable.count))
    }

    /// The string of a large dictionary's key object `ref`. Such keys are mostly the dictionary's own (record
    /// identifiers): decoded once, they are hashed only by the sink, into the dictionary's index; a key met again
    /// goes to the table, so it is not decoded (and charged to the budget) once per use.
    private mutating func keyString(_ ref: Int) throws -> String {
        let slot = slot(ref)
        if slot <= Self.firstKey { return keyTable[Int(Self.firstKey - slot)] }
        if slot == Self.notStarted {
            let key = try decodeKey(ref)
            setSlot(ref, Self.decodedOnce)
            return key
        }
        // Not `keyTable[try internKey(ref)]`: the subscript's base would be read before `internKey` appends to the
        // table, which can move its buffer (a fuzz find: a read from the freed buffer).
        let position = try internKey(ref)
        return keyTable[position]
    }

    /// Decodes key object `ref` from its bytes (no events). Only strings can be keys: anything else is rejected
    /// before it is decoded.
    private mutating func decodeKey(_ ref: Int) throws -> String {
        let offset = try table.objectOffset(ref)
        let slot = slot(ref)
        if slot == Self.inProgress { throw cycleError(ref, at: offset) }
        let marker = table.base.load(fromByteOffset: offset, as: UInt8.self)
        let kind = marker >> 4
        guard kind == 0x5 || kind == 0x6 else {
            throw error(.nonStringKey, "dictionary key (object \(ref)) is not a string", at: offset)
        }
        // As for values: a short ASCII string decoded again costs nothing of the budget.
        chargesBudget = slot == Self.notStarted || kind != 0x5 || marker & 0x0F == 0x0F
        let (value, end) = try table.leaf(at: offset)
        try charge(offset, end)
        guard case .string(let key) = value else {
            preconditionFailure("string markers decode to strings")
        }
        return key
    }

    // MARK: Budget

    /// Charges the span `offset ..< end` of the object being decoded to the budget, unless it is exempt.
    @inline(__always) private mutating func charge(_ offset: Int, _ end: Int) throws {
        if chargesBudget { budget &-= end &- offset }
        if budget < 0 { throw budgetExhausted(at: offset) }
    }

    @inline(never) private func budgetExhausted(at offset: Int) -> any Error {
        let exhausted = BinaryBudgetExhausted(offset: offset)
        return byOffset ? exhausted.error : exhausted
    }

    private func error(_ kind: PlistError.Kind, _ message: String, at offset: Int) -> PlistError {
        BinaryTrailer.error(kind, message, at: offset)
    }
}

import FoundationEssentials

/// Decodes the objects of a `bplist00` document whose trailer has been validated, and sends them to a sink.
///
/// Objects met a second time are remembered by the sink (`rememberSubtree`), so shared subtrees cost their size at
/// most twice (the first decode cannot know it will be shared; writers share scalars and strings, which are cheap to
/// decode twice) and later references are one `repeatSubtree` event, never a second stream of events: a small file
/// of shared arrays cannot expand into a huge one. Objects met once need no bookkeeping, and fixed-size scalars
/// (numbers, dates, Booleans, UIDs) none at all. Dictionary keys go to a table of the document's distinct keys on
/// first use (see `slots`), and a run of dictionaries with the very same key objects (an array of records) reuses
/// one key set in the sink (`rememberKeys`, `BinaryKeyCache`).
///
/// Hostile input is bounded three ways: an object being decoded is marked "in progress" (a reference back to it is a
/// cycle, whatever the distance); nesting is capped by the sink (`ReadLimits`); and every decode but that of a
/// fixed-size scalar or the second one of a short ASCII string charges its byte span to a budget of four times the
/// object area, so overlapping objects cannot multiply the work or memory beyond a constant factor of the input.
/// Several object indexes may share one offset (CF reads such aliases): when the budget runs out, the tree reader
/// reads the document again with objects remembered by offset, so an alias costs nothing and only objects at
/// distinct offsets that overlap exhaust the budget. (A short string allocates nothing and costs at most 15 bytes of
/// reading per decode, so many object indexes aliasing one are bounded by the offset table's size instead.)
struct BinaryEventSource<Sink: PlistEventSink> {
    private let base: UnsafeRawPointer
    private let trailer: BinaryTrailer
    /// End of the object area (= start of the offset table).
    private let objectsEnd: Int
    private let strictDates: Bool
    /// Per object: `notStarted`, `inProgress` (on the current path), `decodedOnce` (not remembered until it is met
    /// again), 1 + the sink's token for it once remembered, or — for a string met as a dictionary key — `firstKey`
    /// minus its position in `keyTable`. Key objects with the same scalars share a position, so each is decoded and
    /// hashed once per document, a key costs two loads, and duplicate detection compares integers.
    private let slots: UnsafeMutablePointer<Int32>
    var sink: Sink
    /// Whether the span of the object being decoded is charged to `budget`.
    private var chargesBudget = true
    private var budget: Int
    /// The second reading, after the budget ran out: decoded objects are remembered by offset (`offsetMemo`).
    private let byOffset: Bool
    private var offsetMemo: [Int: Int] = [:]
    private var keyCache = BinaryKeyCache()
    /// The distinct keys of the document, and per key the serial of the last dictionary that used it.
    private var keyTable = MoveStack<String>(capacity: 64)
    private var keyStamps = MoveStack<UInt32>(capacity: 64)
    /// Finds a key's position in `keyTable` by its scalars.
    private var keyIntern = PlistKeyIndex(uniqueKeys: [])!
    /// Counts dictionaries whose keys went through the table (the stamp of the one being read).
    private var dictionarySerial: UInt32 = 0
    /// The keys of the dictionaries being read, innermost on top: positions in `keyTable` for a small dictionary,
    /// strings for a large one.
    private var keyPositions = MoveStack<Int32>(capacity: 64)
    private var keyStrings = MoveStack<String>(capacity: 64)

    private static var notStarted: Int32 { 0 }
    private static var inProgress: Int32 { -1 }
    private static var decodedOnce: Int32 { -2 }
    private static var firstKey: Int32 { -3 }

    /// Sends the root object of `bytes` (which `trailer` describes) to `sink`. `byOffset` is the second reading of
    /// a document whose first one threw `BinaryBudgetExhausted`.
    static func run(
        _ bytes: UnsafeRawBufferPointer, trailer: BinaryTrailer, options: PlistReadOptions, byOffset: Bool,
        into sink: inout Sink
    ) throws {
        guard let base = bytes.baseAddress else {
            throw BinaryTrailer.error(.truncated, "empty input", at: 0)
        }
        let count = trailer.objectCount
        // Slots hold 1 + a sink token or `firstKey` − a key position, both below the object count.
        guard count < Int(Int32.max) - 8 else {
            throw BinaryTrailer.error(.countLimit, "more than \(Int32.max - 9) objects", at: bytes.count - 24)
        }
        let slots = UnsafeMutablePointer<Int32>.allocate(capacity: count)
        slots.initialize(repeating: notStarted, count: count)
        defer { slots.deallocate() }
        var source = BinaryEventSource(
            base: base, trailer: trailer, objectsEnd: trailer.offsetTableOffset, strictDates: options.strictDates,
            slots: slots, sink: sink, budget: 4 * trailer.offsetTableOffset, byOffset: byOffset)
        defer {
            source.keyPositions.release()
            source.keyStrings.release()
            source.keyTable.release()
            source.keyStamps.release()
            sink = source.sink
        }
        try source.root(trailer.topObject)
    }

    private init(
        base: UnsafeRawPointer, trailer: BinaryTrailer, objectsEnd: Int, strictDates: Bool,
        slots: UnsafeMutablePointer<Int32>, sink: Sink, budget: Int, byOffset: Bool
    ) {
        self.base = base
        self.trailer = trailer
        self.objectsEnd = objectsEnd
        self.strictDates = strictDates
        self.slots = slots
        self.sink = sink
        self.budget = budget
        self.byOffset = byOffset
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
        let offset = try checkedOffset ?? objectOffset(index)
        // Fixed-size scalars take O(1) to decode, allocate nothing and hold nothing: no memo, cycle or budget
        // bookkeeping (every reference to one costs a byte of input). Half the objects of a typical file.
        let marker = base.load(fromByteOffset: offset, as: UInt8.self)
        let kind = marker >> 4
        if kind <= 0x3 || kind == 0x8 {
            // Booleans and one-byte integers (the commonest scalars) without a call.
            if marker & 0xFE == 0x08 { return try sink.value(.bool(marker == 0x09), at: range(offset)) }
            if marker == 0x10, offset + 2 <= objectsEnd {
                let v = PlistValue.integer(PlistInteger(Int64(base.load(fromByteOffset: offset + 1, as: UInt8.self))))
                return try sink.value(v, at: range(offset))
            }
            return try sink.value(try leaf(at: offset), at: range(offset))
        }
        let slot = slots[index]
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
            try sink.value(try leaf(at: offset), at: range(offset))
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
            slots[index] = Self.decodedOnce
        } else {
            assert(slot == Self.decodedOnce, "every other slot state returned or threw above")
            // Met a second time: a third is likely, and the sink can stand in for the events from now on (one that
            // cannot gets them again, within the budget).
            slots[index] = (token ?? sink.rememberSubtree()).map { Int32($0 + 1) } ?? Self.decodedOnce
        }
    }

    /// The source range of the object at `offset`: exact only for a sink that asks (the end is another decode).
    @inline(__always) private func range(_ offset: Int) -> Range<Int> {
        guard Sink.wantsExactRanges else { return Range(uncheckedBounds: (offset, offset)) }
        return offset..<((try? objectEnd(offset)) ?? offset)
    }

    /// The offset of object `index`, checked to lie inside the object area.
    @inline(__always) private func objectOffset(_ index: Int) throws -> Int {
        let entry = trailer.offsetTableOffset + index * trailer.offsetSize
        let offset = readUInt(at: entry, size: trailer.offsetSize)
        guard offset >= UInt64(BinaryTrailer.headerSize), offset < UInt64(objectsEnd) else {
            throw offsetError(index, offset, at: entry)
        }
        return Int(offset)
    }

    // Errors are built out of line, so the hot functions stay small enough to be inlined into one another.
    @inline(never) private func offsetError(_ index: Int, _ offset: UInt64, at entry: Int) -> PlistError {
        let place = offset < UInt64(BinaryTrailer.headerSize) ? "into the header" : "past the object area"
        return error(.invalidReference, "offset \(offset) of object \(index) points \(place)", at: entry)
    }

    @inline(never) private func cycleError(_ index: Int, at offset: Int) -> PlistError {
        error(.cycle, "object \(index) contains itself (reference cycle)", at: offset)
    }

    @inline(never) private func referenceError(_ ref: UInt64, at position: Int) -> PlistError {
        error(.invalidReference, "object reference \(ref) is not below the object count \(trailer.objectCount)", at: position)
    }

    /// Decodes an object that is not a container: a scalar, string or data.
    @inline(__always) private mutating func leaf(at offset: Int) throws -> PlistValue {
        let marker = base.load(fromByteOffset: offset, as: UInt8.self)
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0: break  // Booleans (0x08, 0x09) are decoded by `object` before it calls here; null and fill are not values
        case 0x1: return try integer(low, at: offset)
        case 0x2: return try real(low, at: offset)
        case 0x3: if marker == 0x33 { return try date(at: offset) }
        case 0x4: return try data(low, at: offset)
        case 0x5: return try asciiString(low, at: offset)
        case 0x6: return try utf16String(low, at: offset)
        case 0x8: return try uid(low, at: offset)
        default: break
        }
        throw unknownMarker(marker, at: offset)
    }

    @inline(never) private func unknownMarker(_ marker: UInt8, at offset: Int) -> PlistError {
        let hex = String(marker, radix: 16)
        return error(.syntax, "unknown object marker 0x\(hex.count == 1 ? "0" + hex : hex)", at: offset)
    }

    // MARK: Scalars
    //
    // `mutating` although they change nothing: a non-mutating call from the mutating decoders makes Swift copy the
    // whole reader (240 bytes) to lend it, once per scalar.

    private mutating func integer(_ low: Int, at offset: Int) throws -> PlistValue {
        guard low <= 4 else {
            throw error(.syntax, "integer with \(low > 8 ? "more than 256" : String(1 << low)) bytes (only 1, 2, 4, 8 and 16 exist)", at: offset)
        }
        let size = 1 << low
        try need(offset + 1 + size, "integer", at: offset)
        switch size {
        case 16:
            // Signed 128-bit: accepted only inside −2^63 … 2^64−1, the range every plist integer has.
            let high = Int64(bitPattern: readUInt(at: offset + 1, size: 8))
            let lowBits = readUInt(at: offset + 9, size: 8)
            if high == 0 { return .integer(PlistInteger(lowBits)) }
            if high == -1, lowBits >= 1 << 63 { return .integer(PlistInteger(Int64(bitPattern: lowBits))) }
            throw error(.integerOutOfRange, "16-byte integer outside −2^63 … 2^64−1", at: offset)
        case 8:
            return .integer(PlistInteger(Int64(bitPattern: readUInt(at: offset + 1, size: 8))))
        default:
            return .integer(PlistInteger(Int64(readUInt(at: offset + 1, size: size))))
        }
    }

    private mutating func real(_ low: Int, at offset: Int) throws -> PlistValue {
        switch low {
        case 2:
            try need(offset + 5, "real", at: offset)
            return .real(PlistReal(Float(bitPattern: UInt32(readUInt(at: offset + 1, size: 4)))))
        case 3:
            try need(offset + 9, "real", at: offset)
            return .real(PlistReal(Double(bitPattern: readUInt(at: offset + 1, size: 8))))
        default:
            throw error(.syntax, "real with \(1 << low) bytes (only 4 and 8 exist)", at: offset)
        }
    }

    private mutating func date(at offset: Int) throws -> PlistValue {
        try need(offset + 9, "date", at: offset)
        let seconds = Double(bitPattern: readUInt(at: offset + 1, size: 8))
        if strictDates, !seconds.isFinite {
            throw error(.invalidValue, "date is \(seconds), not a finite number of seconds", at: offset)
        }
        return .date(PlistDate(secondsSinceReferenceDate: seconds))
    }

    private mutating func uid(_ low: Int, at offset: Int) throws -> PlistValue {
        let size = low + 1
        try need(offset + 1 + size, "UID", at: offset)
        var value: UInt64 = 0
        for i in 0..<size {
            if size - i > 8, base.load(fromByteOffset: offset + 1 + i, as: UInt8.self) != 0 {
                throw error(.integerOutOfRange, "UID does not fit in 64 bits", at: offset)
            }
            value = value << 8 | UInt64(base.load(fromByteOffset: offset + 1 + i, as: UInt8.self))
        }
        return .uid(UID(value))
    }

    private mutating func data(_ low: Int, at offset: Int) throws -> PlistValue {
        let (start, count) = try payload(low, unit: 1, at: offset)
        return .data(Data(bytes: base + start, count: count))
    }

    private mutating func asciiString(_ low: Int, at offset: Int) throws -> PlistValue {
        let (start, count) = try payload(low, unit: 1, at: offset)
        let bytes = UnsafeRawBufferPointer(start: base + start, count: count)
        if let bad = Self.firstNonASCII(bytes) {
            throw error(.encoding, "byte 0x\(String(bytes[bad], radix: 16)) in an ASCII string", at: start + bad)
        }
        return .string(String(decoding: bytes, as: UTF8.self))
    }

    private mutating func utf16String(_ low: Int, at offset: Int) throws -> PlistValue {
        let (start, units) = try payload(low, unit: 2, at: offset)
        let p = base + start
        var failure: Int?
        // At most 3 UTF-8 bytes per UTF-16 unit (a surrogate pair is 4 bytes for 2 units).
        let string = String(unsafeUninitializedCapacity: units * 3) { out -> Int in
            var o = 0
            var i = 0
            while i < units {
                let u = UInt16(p.load(fromByteOffset: 2 * i, as: UInt8.self)) << 8
                    | UInt16(p.load(fromByteOffset: 2 * i + 1, as: UInt8.self))
                i += 1
                if u < 0x80 {
                    out[o] = UInt8(u); o += 1
                } else if u < 0x800 {
                    out[o] = UInt8(0xC0 | u >> 6); out[o + 1] = UInt8(0x80 | u & 0x3F); o += 2
                } else if u & 0xF800 != 0xD800 {
                    out[o] = UInt8(0xE0 | u >> 12); out[o + 1] = UInt8(0x80 | (u >> 6) & 0x3F)
                    out[o + 2] = UInt8(0x80 | u & 0x3F); o += 3
                } else {
                    guard u < 0xDC00, i < units else { failure = i - 1; return o }
                    let v = UInt16(p.load(fromByteOffset: 2 * i, as: UInt8.self)) << 8
                        | UInt16(p.load(fromByteOffset: 2 * i + 1, as: UInt8.self))
                    guard v & 0xFC00 == 0xDC00 else { failure = i - 1; return o }
                    i += 1
                    let scalar = 0x10000 + (UInt32(u & 0x3FF) << 10 | UInt32(v & 0x3FF))
                    out[o] = UInt8(0xF0 | scalar >> 18); out[o + 1] = UInt8(0x80 | (scalar >> 12) & 0x3F)
                    out[o + 2] = UInt8(0x80 | (scalar >> 6) & 0x3F); out[o + 3] = UInt8(0x80 | scalar & 0x3F)
                    o += 4
                }
            }
            return o
        }
        if let failure {
            throw error(.encoding, "lone UTF-16 surrogate in a string", at: start + 2 * failure)
        }
        return .string(string)
    }

    // MARK: Collections
    //
    // `array` and `dictionary` are where the recursion goes through a call (`object` is inlined into the loops
    // that read children).

    @inline(never) private mutating func array(_ index: Int, at offset: Int) throws {
        let low = Int(base.load(fromByteOffset: offset, as: UInt8.self) & 0x0F)
        let (refs, count) = try payload(low, unit: trailer.refSize, at: offset)
        slots[index] = Self.inProgress
        try sink.beginArray(count: count, at: range(offset))
        let refSize = trailer.refSize
        for i in 0..<count {
            let ref = try reference(at: refs + i * refSize)
            do {
                try object(ref)
            } catch let e as PlistError {
                throw e.inside(String(i))
            }
        }
        try sink.endArray(at: range(offset))
    }

    @inline(never) private mutating func dictionary(_ index: Int, at offset: Int) throws {
        let low = Int(base.load(fromByteOffset: offset, as: UInt8.self) & 0x0F)
        let (keyRefs, count) = try payload(low, unit: 2 * trailer.refSize, at: offset)
        slots[index] = Self.inProgress
        let refSize = trailer.refSize
        let valueRefs = keyRefs + count * refSize
        // Dictionaries with the very same key objects (an array of records) reuse one checked key set in the sink.
        let (cached, probed) = keyCache.lookup(base: base, keyRefs: keyRefs, count: count, refSize: refSize)
        let keysKnown = try cached.map { try sink.beginDictionary(count: count, keysFromSlot: $0, at: range(offset)) } ?? false
        let large = count > PlistDictionary.indexThreshold
        let keyStart = large ? keyStrings.count : keyPositions.count
        var distinct = !large
        if !keysKnown {
            distinct = try readKeys(count, keyRefs: keyRefs, large: large)
            try sink.beginDictionary(count: count, at: range(offset))
            if distinct { sink.declareDistinctKeys() }
        }
        // (After a failure the whole reading is abandoned, stacks and all: nothing to pop then.)
        try entries(count, keyRefs: keyRefs, valueRefs: valueRefs, keysKnown: keysKnown, large: large,
                    distinct: distinct, keyStart: keyStart, at: offset)
        if !keysKnown { if large { keyStrings.pop(from: keyStart) } else { keyPositions.pop(from: keyStart) } }
        try sink.endDictionary(at: range(offset))
        if keysKnown { return }
        // (A sink that merged repeated keys holds fewer keys than `count`, and will not match this slot again.)
        if probed {
            sink.rememberKeys(inSlot: keyCache.store(base: base, keyRefs: keyRefs, count: count, refSize: refSize))
        }
    }

    /// The entries of the dictionary being read: each key (unless the sink knows the key set) and value. A function
    /// of its own, without `defer`, so that `object` is inlined into its loop (measured: 9% fewer instructions).
    @inline(never) private mutating func entries(
        _ count: Int, keyRefs: Int, valueRefs: Int, keysKnown: Bool, large: Bool, distinct: Bool, keyStart: Int, at offset: Int
    ) throws {
        let refSize = trailer.refSize
        for i in 0..<count {
            if !keysKnown {
                // Where a key sits matters only to the sink that checks it (its error names the repeated key).
                let keyAt = distinct ? offset : try objectOffset(try reference(at: keyRefs + i * refSize))
                // The key goes to the sink straight from its stack: no copy of our own to retain and release.
                if large {
                    try sink.key(keyStrings[keyStart + i], at: range(keyAt))
                } else {
                    try sink.key(keyTable[Int(keyPositions[keyStart + i])], at: range(keyAt))
                }
            }
            let valueRef = try reference(at: valueRefs + i * refSize)
            do {
                try object(valueRef)
            } catch let e as PlistError {
                throw e.inside(try entryKey(i, keyRefs: keyRefs, keysKnown: keysKnown, large: large, keyStart: keyStart))
            }
        }
    }

    /// Reads a dictionary's `count` keys onto `keyStrings` (large) or `keyPositions`, before any value, as CF reads
    /// them: a key that is not a string fails first. Returns whether the keys are known to be distinct. Out of line,
    /// so the loop over the values stays small enough for `object` to be inlined into it.
    @inline(never) private mutating func readKeys(_ count: Int, keyRefs: Int, large: Bool) throws -> Bool {
        let refSize = trailer.refSize
        if large {
            // A large dictionary's keys are mostly its own (record identifiers): the sink hashes them once, into the
            // dictionary's index, which also finds a repeated key; the table would hash them a second time.
            for i in 0..<count { keyStrings.append(try keyString(try reference(at: keyRefs + i * refSize))) }
            return false
        }
        var distinct = true
        // Cannot wrap: each object is decoded at most twice and there are fewer than 2^31 objects.
        dictionarySerial += 1
        for i in 0..<count {
            let keyRef = try reference(at: keyRefs + i * refSize)
            let slot = slots[keyRef]
            let position = slot <= Self.firstKey ? Int(Self.firstKey - slot) : try internKey(keyRef)
            keyPositions.append(Int32(position))
            if keyStamps[position] == dictionarySerial {
                distinct = false
            } else {
                keyStamps[position] = dictionarySerial
            }
        }
        return distinct
    }

    /// The key of entry `i` of the dictionary being read, for an error's key path.
    @inline(never)
    private mutating func entryKey(_ i: Int, keyRefs: Int, keysKnown: Bool, large: Bool, keyStart: Int) throws -> String {
        // With a remembered key set, the keys were read (and checked) for the dictionary that filled the slot.
        if keysKnown { return (try? keyString(try reference(at: keyRefs + i * trailer.refSize))) ?? "?" }
        return large ? keyStrings[keyStart + i] : keyTable[Int(keyPositions[keyStart + i])]
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
        slots[ref] = Self.firstKey - Int32(position)
        return position
    }

    @inline(__always) private var keyColumn: KeyColumn {
        KeyColumn(UnsafeBufferPointer(start: keyTable.base, count: keyTable.count))
    }

    /// The string of a large dictionary's key object `ref`. Such keys are mostly the dictionary's own (record
    /// identifiers): decoded once, they are hashed only by the sink, into the dictionary's index; a key met again
    /// goes to the table, so it is not decoded (and charged to the budget) once per use.
    private mutating func keyString(_ ref: Int) throws -> String {
        let slot = slots[ref]
        if slot <= Self.firstKey { return keyTable[Int(Self.firstKey - slot)] }
        if slot == Self.notStarted {
            let key = try decodeKey(ref)
            slots[ref] = Self.decodedOnce
            return key
        }
        return keyTable[try internKey(ref)]
    }

    /// Decodes key object `ref` from its bytes (no events). Only strings can be keys: anything else is rejected
    /// before it is decoded.
    private mutating func decodeKey(_ ref: Int) throws -> String {
        let offset = try objectOffset(ref)
        let slot = slots[ref]
        if slot == Self.inProgress { throw cycleError(ref, at: offset) }
        let marker = base.load(fromByteOffset: offset, as: UInt8.self)
        let kind = marker >> 4
        guard kind == 0x5 || kind == 0x6 else {
            throw error(.nonStringKey, "dictionary key (object \(ref)) is not a string", at: offset)
        }
        // As for values: a short ASCII string decoded again costs nothing of the budget.
        chargesBudget = slot == Self.notStarted || kind != 0x5 || marker & 0x0F == 0x0F
        guard case .string(let key) = try leaf(at: offset) else {
            preconditionFailure("string markers decode to strings")
        }
        return key
    }

    @inline(__always) private func reference(at position: Int) throws -> Int {
        let ref = readUInt(at: position, size: trailer.refSize)
        guard ref < UInt64(trailer.objectCount) else { throw referenceError(ref, at: position) }
        return Int(ref)
    }

    /// Where the object at `offset` ends (for exact ranges; the object was or will be checked when decoded).
    private func objectEnd(_ offset: Int) throws -> Int {
        let marker = base.load(fromByteOffset: offset, as: UInt8.self)
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0: return offset + 1
        case 0x1, 0x2: return offset + 1 + (1 << min(low, 4))
        case 0x3: return offset + 9
        case 0x8: return offset + 2 + low
        default:
            var count = low
            var start = offset + 1
            if low == 0xF, offset + 2 <= objectsEnd {
                let m = base.load(fromByteOffset: offset + 1, as: UInt8.self)
                let size = 1 << Int(m & 0x0F & 0x7)
                guard offset + 2 + size <= objectsEnd else { return objectsEnd }
                count = Int(truncatingIfNeeded: readUInt(at: offset + 2 + max(0, size - 8), size: min(size, 8)))
                start = offset + 2 + size
            }
            let unit: Int
            switch marker >> 4 {
            case 0x6: unit = 2
            case 0xA: unit = trailer.refSize
            case 0xD: unit = 2 * trailer.refSize
            default: unit = 1
            }
            let (bytes, overflow) = count.multipliedReportingOverflow(by: unit)
            return overflow ? objectsEnd : min(objectsEnd, start + bytes)
        }
    }

    // MARK: Lengths and bounds

    /// Reads the length of a data, string or collection object and checks that `length × unit` bytes follow inside
    /// the object area — before anything is allocated. Returns where the payload starts and the length.
    private mutating func payload(_ low: Int, unit: Int, at offset: Int) throws -> (start: Int, count: Int) {
        var count = low
        var start = offset + 1
        if low == 0xF {
            try need(offset + 2, "length", at: offset)
            let m = base.load(fromByteOffset: offset + 1, as: UInt8.self)
            // A 16-byte integer is a length too, as CF and libplist read it (its high half must then be zero).
            guard m >> 4 == 0x1, m & 0x0F <= 4 else {
                throw error(.syntax, "length of the object is not a 1, 2, 4, 8 or 16-byte integer", at: offset + 1)
            }
            let size = 1 << Int(m & 0x0F)
            try need(offset + 2 + size, "length", at: offset)
            let high = size == 16 ? readUInt(at: offset + 2, size: 8) : 0
            let value = readUInt(at: offset + 2 + max(0, size - 8), size: min(size, 8))
            // Anything longer than the object area cannot fit; this also keeps `count * unit` from overflowing.
            guard high == 0, value <= UInt64(objectsEnd) else {
                let claimed = high == 0 ? "\(value)" : "2^64 or more"
                throw error(.truncated, "object claims \(claimed) elements, more than the file holds", at: offset)
            }
            count = Int(value)
            start = offset + 2 + size
        }
        let end = start + count * unit
        guard end <= objectsEnd else {
            throw error(.truncated, "object of \(count) × \(unit) bytes runs past the object area (which ends at \(objectsEnd))", at: offset)
        }
        if chargesBudget { budget -= end - offset }
        guard budget >= 0 else {
            let exhausted = BinaryBudgetExhausted(offset: offset)
            if !byOffset { throw exhausted }
            throw exhausted.error
        }
        return (start, count)
    }

    @inline(__always) private func need(_ end: Int, _ what: StaticString, at offset: Int) throws {
        guard end <= objectsEnd else {
            throw error(.truncated, "\(what) runs past the object area (which ends at \(objectsEnd))", at: offset)
        }
    }

    /// The big-endian unsigned integer of `size` (1…8) bytes at `offset`. Every such field (an offset-table entry, a
    /// reference, a length or a number) ends by the end of the offset table, and the 32-byte trailer follows, so a
    /// whole word can be loaded and shifted down: no branch on the size.
    @inline(__always) private func readUInt(at offset: Int, size: Int) -> UInt64 {
        assert(size >= 1 && size <= 8 && offset + size <= trailer.offsetTableOffset + trailer.objectCount * trailer.offsetSize,
               "field outside the object area and offset table")
        return UInt64(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &>> UInt64(64 &- 8 &* size)
    }

    /// Index of the first byte ≥ 0x80, eight bytes at a time.
    private static func firstNonASCII(_ b: UnsafeRawBufferPointer) -> Int? {
        var i = 0
        let n = b.count
        while i + 8 <= n {
            if b.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { break }
            i += 8
        }
        while i < n {
            if b[i] >= 0x80 { return i }
            i += 1
        }
        return nil
    }

    private func error(_ kind: PlistError.Kind, _ message: String, at offset: Int) -> PlistError {
        BinaryTrailer.error(kind, message, at: offset)
    }
}

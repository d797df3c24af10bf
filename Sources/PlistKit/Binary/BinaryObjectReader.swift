import FoundationEssentials

/// Decodes the objects of a `bplist00` document whose trailer has been validated.
///
/// Objects met a second time are remembered by their object index, so shared subtrees cost their size at most
/// twice (the first decode cannot know it will be shared; writers share scalars and strings, which are cheap to
/// decode twice); objects met once need no memo, and fixed-size scalars (numbers, dates, Booleans, UIDs) need no
/// bookkeeping at all. Short strings are remembered too: a memo load is cheaper than validating and packing even
/// ≤ 14 bytes again. Dictionary keys go to a table of the document's distinct keys on first use (see `slots`).
/// Hostile input is bounded three ways: an object being decoded is marked "in progress" (a reference back to it is a
/// cycle, whatever the distance); nesting is capped by `maxDepth`; and every decode but that of a fixed-size scalar
/// or the second one of a short ASCII string charges its byte span to a budget of four times the object area (each
/// object is decoded at most twice), so overlapping objects cannot multiply the work or memory beyond a constant
/// factor of the input. Several object indexes may share one offset (CF reads such aliases): when the budget runs
/// out, the document is read again with objects remembered by offset, so an alias costs nothing and only objects at
/// distinct offsets that overlap exhaust the budget. (A short string allocates nothing and costs at most 15 bytes of reading per decode, so many
/// object indexes aliasing one are bounded by the offset table's size instead.)
struct BinaryObjectReader {
    private let base: UnsafeRawPointer
    private let trailer: BinaryTrailer
    /// End of the object area (= start of the offset table).
    private let objectsEnd: Int
    private let maxDepth: Int
    private let duplicateKeys: DuplicateKeyPolicy
    private let strictDates: Bool
    /// Per object: `notStarted`, `inProgress` (on the current path), `decodedOnce` (not kept until it is met
    /// again), 1 + its position in `memo`, or — for a string met as a dictionary key — `firstKey` minus its
    /// position in `keyTable`. Key objects with the same scalars share a position, so each is decoded and hashed
    /// once per document, a key costs two loads, and duplicate detection compares integers.
    private let slots: UnsafeMutablePointer<Int32>
    private var memo = MoveStack<PlistValue>(capacity: 64)
    /// Whether the span of the object being decoded is charged to `budget`.
    private var chargesBudget = true
    private var budget: Int
    /// The second reading, after the budget ran out: decoded objects are remembered by offset (`offsetMemo`).
    private var byOffset = false
    private var offsetMemo: [Int: PlistValue] = [:]
    /// Thrown when the budget runs out on the first reading.
    private struct BudgetExhausted: Error {}
    private var keyCache = BinaryKeyCache()
    /// The distinct keys of the document, and per key the serial of the last dictionary that used it.
    private var keyTable = MoveStack<String>(capacity: 64)
    private var keyStamps = MoveStack<UInt32>(capacity: 64)
    /// Finds a key's position in `keyTable` by its scalars.
    private var keyIntern = PlistKeyIndex(uniqueKeys: [])!
    /// Counts dictionaries whose keys went through the table (the stamp of the one being read).
    private var dictionarySerial: UInt32 = 0
    /// The keys and values of the dictionaries being read, innermost on top, moved into each dictionary when it is
    /// complete (so a dictionary costs one allocation, its own).
    private var keyStack = MoveStack<String>(capacity: 64)
    private var valueStack = MoveStack<PlistValue>(capacity: 64)

    private static let notStarted: Int32 = 0
    private static let inProgress: Int32 = -1
    private static let decodedOnce: Int32 = -2
    private static let firstKey: Int32 = -3

    /// Decodes the root object of `bytes` (which `trailer` describes).
    static func readRoot(_ bytes: UnsafeRawBufferPointer, trailer: BinaryTrailer, options: PlistReadOptions) throws -> PlistValue {
        guard let base = bytes.baseAddress else {
            throw BinaryTrailer.error(.truncated, "empty input", at: 0)
        }
        let count = trailer.objectCount
        // Slots hold 1 + a memo position or `firstKey` − a key position, both below the object count.
        guard count < Int(Int32.max) - 8 else {
            throw BinaryTrailer.error(.countLimit, "more than \(Int32.max - 9) objects", at: bytes.count - 24)
        }
        let slots = UnsafeMutablePointer<Int32>.allocate(capacity: count)
        slots.initialize(repeating: notStarted, count: count)
        defer { slots.deallocate() }
        func read(byOffset: Bool) throws -> PlistValue {
            if byOffset { slots.update(repeating: notStarted, count: count) }
            var reader = BinaryObjectReader(
                base: base, trailer: trailer, objectsEnd: trailer.offsetTableOffset, maxDepth: options.maxDepth,
                duplicateKeys: options.duplicateKeys, strictDates: options.strictDates, slots: slots,
                budget: 4 * trailer.offsetTableOffset)
            reader.byOffset = byOffset
            defer {
                reader.keyStack.release()
                reader.valueStack.release()
                reader.keyTable.release()
                reader.keyStamps.release()
                reader.memo.release()
            }
            return try reader.object(trailer.topObject, depth: 0)
        }
        do {
            return try read(byOffset: false)
        } catch is BudgetExhausted {
            return try read(byOffset: true)
        }
    }

    // MARK: Objects

    /// The value of object `index` (at `checkedOffset` when the caller has already looked it up). One function, not
    /// two: each nesting level costs one stack frame in unoptimised builds too.
    @inline(__always) private mutating func object(_ index: Int, at checkedOffset: Int? = nil, depth: Int) throws -> PlistValue {
        let offset = try checkedOffset ?? objectOffset(index)
        // Fixed-size scalars take O(1) to decode, allocate nothing and hold nothing: no memo, cycle or budget
        // bookkeeping (every reference to one costs a byte of input). Half the objects of a typical file.
        let marker = base.load(fromByteOffset: offset, as: UInt8.self)
        let kind = marker >> 4
        if kind <= 0x3 || kind == 0x8 {
            // Booleans and one-byte integers (the commonest scalars) without a call.
            if marker & 0xFE == 0x08 { return .bool(marker == 0x09) }
            if marker == 0x10, offset + 2 <= objectsEnd {
                return .integer(PlistInteger(Int64(base.load(fromByteOffset: offset + 1, as: UInt8.self))))
            }
            return try leaf(at: offset)
        }
        let slot = slots[index]
        if slot > 0 { return memo[Int(slot) - 1] }
        if slot <= Self.firstKey { return .string(keyTable[Int(Self.firstKey - slot)]) }
        if slot == Self.inProgress {
            throw error(.cycle, "object \(index) contains itself (reference cycle)", at: offset)
        }
        if byOffset, let known = offsetMemo[offset] { return known }
        chargesBudget = slot == Self.notStarted || kind != 0x5 || marker & 0x0F == 0x0F
        // Containers are read from here, not through `leaf`: each nesting level then costs two stack frames.
        let value = kind == 0xA ? try array(index, at: offset, depth: depth)
            : kind == 0xD ? try dictionary(index, at: offset, depth: depth) : try leaf(at: offset)
        if byOffset { offsetMemo[offset] = value }
        if slot == Self.notStarted {
            slots[index] = Self.decodedOnce
        } else {
            assert(slot == Self.decodedOnce, "every other slot state returned or threw above")
            memo.append(value)
            slots[index] = Int32(memo.count)
        }
        return value
    }

    /// The offset of object `index`, checked to lie inside the object area.
    @inline(__always) private func objectOffset(_ index: Int) throws -> Int {
        let entry = trailer.offsetTableOffset + index * trailer.offsetSize
        let offset = readUInt(at: entry, size: trailer.offsetSize)
        guard offset >= UInt64(BinaryTrailer.headerSize), offset < UInt64(objectsEnd) else {
            let place = offset < UInt64(BinaryTrailer.headerSize) ? "into the header" : "past the object area"
            throw error(.invalidReference, "offset \(offset) of object \(index) points \(place)", at: entry)
        }
        return Int(offset)
    }

    /// Decodes an object that is not a container: a scalar, string or data.
    private mutating func leaf(at offset: Int) throws -> PlistValue {
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

    private mutating func array(_ index: Int, at offset: Int, depth: Int) throws -> PlistValue {
        let low = Int(base.load(fromByteOffset: offset, as: UInt8.self) & 0x0F)
        let (refs, count) = try payload(low, unit: trailer.refSize, at: offset)
        try enter(index, depth: depth, at: offset)
        var elements = [PlistValue]()
        elements.reserveCapacity(count)
        let refSize = trailer.refSize
        for i in 0..<count {
            let ref = try reference(at: refs + i * refSize)
            do {
                elements.append(try object(ref, depth: depth + 1))
            } catch let e as PlistError {
                throw e.inside(String(i))
            }
        }
        return .array(elements)
    }

    private mutating func dictionary(_ index: Int, at offset: Int, depth: Int) throws -> PlistValue {
        let low = Int(base.load(fromByteOffset: offset, as: UInt8.self) & 0x0F)
        let (keyRefs, count) = try payload(low, unit: 2 * trailer.refSize, at: offset)
        try enter(index, depth: depth, at: offset)
        let refSize = trailer.refSize
        let valueRefs = keyRefs + count * refSize
        // Dictionaries with the very same key objects (an array of records) reuse one checked key list and index.
        let (cached, probed) = keyCache.lookup(base: base, keyRefs: keyRefs, count: count, refSize: refSize)
        let keyStart = keyStack.count
        var duplicate: Int?
        var lookup: PlistKeyIndex?
        // With a cache hit, keys and index come from the cached dictionary when this one is built.
        if cached == nil, count > PlistDictionary.indexThreshold {
            // A large dictionary's keys are mostly its own (record identifiers): hashed once, into its index,
            // which also finds a repeated key; the table would hash them a second time.
            for i in 0..<count { keyStack.append(try keyString(try reference(at: keyRefs + i * refSize))) }
            (lookup, duplicate) = PlistKeyIndex.build(keyColumn(keyStack, from: keyStart))
        } else if cached == nil {
            // Cannot wrap: each object is decoded at most twice and there are fewer than 2^31 objects.
            dictionarySerial += 1
            for i in 0..<count {
                let keyRef = try reference(at: keyRefs + i * refSize)
                let slot = slots[keyRef]
                let position = slot <= Self.firstKey ? Int(Self.firstKey - slot) : try internKey(keyRef)
                keyStack.append(keyTable[position])
                if keyStamps[position] == dictionarySerial {
                    if duplicate == nil { duplicate = i }
                } else {
                    keyStamps[position] = dictionarySerial
                }
            }
        }
        let valueStart = valueStack.count
        for i in 0..<count {
            let valueRef = try reference(at: valueRefs + i * refSize)
            do {
                valueStack.append(try object(valueRef, depth: depth + 1))
            } catch let e as PlistError {
                throw e.inside(cached?.dictionary.key(at: i) ?? keyStack[keyStart + i])
            }
        }
        if let cached {
            return .dictionary(valueStack.popMoved(from: valueStart) { v, n in
                assert(n == cached.dictionary.count, "a cached key set matches only dictionaries of its size")
                return PlistDictionary(keysOf: cached.dictionary, movingValues: v)
            })
        }
        // Duplicate keys are rare: detect them in one pass, and only then apply the policy entry by entry.
        if let duplicate {
            defer {
                keyStack.pop(from: keyStart)
                valueStack.pop(from: valueStart)
            }
            if duplicateKeys == .reject {
                let keyRef = try reference(at: keyRefs + duplicate * refSize)
                throw error(.duplicateKey, "duplicate dictionary key \"\(keyStack[keyStart + duplicate])\"", at: try objectOffset(keyRef))
            }
            var dict = PlistDictionary(minimumCapacity: count)
            for i in 0..<count {
                let key = keyStack[keyStart + i]
                if let existing = dict.index(forKey: key) {
                    if duplicateKeys == .lastWins { dict.setValue(valueStack[valueStart + i], at: existing) }
                } else {
                    dict.appendNew(key, valueStack[valueStart + i])
                }
            }
            return .dictionary(dict)
        }
        let dict = keyStack.popMoved(from: keyStart) { k, _ in
            valueStack.popMoved(from: valueStart) { v, _ in
                PlistDictionary(movingUniqueKeys: k, values: v, count: count, index: lookup)
            }
        }
        if probed { keyCache.store(keyRefs: keyRefs, count: count, refSize: refSize, dictionary: dict, base: base) }
        return .dictionary(dict)
    }

    @inline(__always) private func keyColumn(_ stack: MoveStack<String>, from start: Int) -> KeyColumn {
        KeyColumn(UnsafeBufferPointer(start: stack.base + start, count: stack.count - start))
    }

    /// Decodes key object `ref` (met as a key for the first time) and gives it a position in `keyTable`, shared
    /// with any earlier key object of the same scalars.
    private mutating func internKey(_ ref: Int) throws -> Int {
        let key = try keyString(ref)
        let h = PlistKeyIndex.hash(key)
        let position: Int
        if let known = keyIntern.position(of: key, hash: h, in: keyColumn(keyTable, from: 0)) {
            position = known
        } else {
            keyTable.append(key)
            keyStamps.append(0)
            keyIntern.appended(keyColumn(keyTable, from: 0), hash: h)
            position = keyTable.count - 1
        }
        slots[ref] = Self.firstKey - Int32(position)
        return position
    }

    /// The string of key object `ref`. Only strings can be keys: anything else is rejected before it is decoded.
    private mutating func keyString(_ ref: Int) throws -> String {
        let offset = try objectOffset(ref)
        if slots[ref] == Self.inProgress {
            throw error(.cycle, "object \(ref) contains itself (reference cycle)", at: offset)
        }
        let kind = base.load(fromByteOffset: offset, as: UInt8.self) >> 4
        guard kind == 0x5 || kind == 0x6 else {
            throw error(.nonStringKey, "dictionary key (object \(ref)) is not a string", at: offset)
        }
        guard case .string(let key) = try object(ref, at: offset, depth: 0) else {
            preconditionFailure("string markers decode to strings")
        }
        return key
    }

    /// Marks a container as being decoded, after checking the depth cap.
    private mutating func enter(_ index: Int, depth: Int, at offset: Int) throws {
        guard depth < maxDepth else {
            throw error(.depthLimit, "nesting deeper than \(maxDepth) levels", at: offset)
        }
        slots[index] = Self.inProgress
    }

    @inline(__always) private func reference(at position: Int) throws -> Int {
        let ref = readUInt(at: position, size: trailer.refSize)
        guard ref < UInt64(trailer.objectCount) else {
            throw error(.invalidReference, "object reference \(ref) is not below the object count \(trailer.objectCount)", at: position)
        }
        return Int(ref)
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
            if !byOffset { throw BudgetExhausted() }
            throw error(.invalidReference, "objects overlap: decoding would exceed four times the input size", at: offset)
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

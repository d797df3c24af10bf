import FoundationEssentials

/// The object list of a binary plist being written, built by one pre-order walk of the value (dictionary keys
/// before values, as Core Foundation and Python order them).
///
/// Scalars are encoded as soon as they are first met: their bytes do not depend on the reference width, which is
/// only known once every object is counted. Containers store their header here and reserve slots in `refs` that
/// are filled in as their children get numbers. `BinaryWriter` then interleaves the two into the file.
struct BinaryWriterObjects {
    /// Encoded scalars and container headers, in object order.
    private(set) var body: [UInt8] = []
    /// Object numbers referenced by containers, in object order.
    /// (32 bits each, like `ends`: the writer's temporary memory is page faults, a good part of its time.)
    private(set) var refs: [UInt32] = []
    /// Per object: where its bytes end in `body` and its references end in `refs` (they start where the previous
    /// object's end).
    private(set) var ends: [ObjectEnd] = []

    struct ObjectEnd {
        var body: UInt32
        var refs: UInt32
    }

    private let sortKeys: Bool
    private let maxDepth: Int

    /// Uniquing of scalars by their encoded bytes (see `BinaryWriterScalarUniquing`).
    private var scalars: BinaryWriterScalarUniquing
    /// Recently written strings by representation: a string met again as the very same value (an inline small
    /// string with the same bits, or the same heap buffer, which the value being written keeps alive) is known
    /// without encoding or hashing its contents. Keys repeat this way in nearly every dictionary-heavy document.
    private var recentStrings: [RecentString]

    struct RecentString { var bits: (UInt64, UInt64); var object: Int }

    /// The buffers of a write, kept for the next one (`ScratchCache`): emptied, their memory already paged in.
    struct Scratch: Sendable {
        var body: [UInt8]
        var refs: [UInt32]
        var ends: [ObjectEnd]
        var recentStrings: [RecentString]
        var scalars: BinaryWriterScalarUniquing.Storage

        var bytes: Int {
            body.capacity + 4 * refs.capacity + MemoryLayout<ObjectEnd>.stride * ends.capacity
                + MemoryLayout<BinaryWriterScalarUniquing.Slot>.stride * scalars.slots.capacity
        }
    }

    private static let kept = ScratchCache<Scratch>()

    init(options: PlistWriteOptions) {
        sortKeys = options.sortKeys
        maxDepth = options.maxDepth
        if var scratch = Self.kept.take() {
            scratch.body.removeAll(keepingCapacity: true)
            scratch.refs.removeAll(keepingCapacity: true)
            scratch.ends.removeAll(keepingCapacity: true)
            // Forgotten: a string of the last write may have been freed and its memory reused by another.
            scratch.recentStrings.withUnsafeMutableBufferPointer { $0.update(repeating: RecentString(bits: (0, 0), object: -1)) }
            body = scratch.body
            refs = scratch.refs
            ends = scratch.ends
            recentStrings = scratch.recentStrings
            scalars = BinaryWriterScalarUniquing(reusing: scratch.scalars)
        } else {
            body.reserveCapacity(4096)
            recentStrings = [RecentString](repeating: RecentString(bits: (0, 0), object: -1), count: 4096)
            scalars = BinaryWriterScalarUniquing()
        }
    }

    /// Hands the buffers to the next write; the table must not be used afterwards.
    consuming func keepScratch() {
        let scratch = Scratch(body: body, refs: refs, ends: ends, recentStrings: recentStrings, scalars: scalars.storage())
        _ = Self.kept.give(scratch, bytes: scratch.bytes)
    }

    var objectCount: Int { ends.count }

    /// Numbers `value` and everything below it; returns its object number.
    mutating func add(_ value: PlistValue, depth: Int) throws -> Int {
        guard ends.count < Int(Int32.max) - 1, body.count < Int(UInt32.max) - (1 << 20) else {
            throw PlistError(.sizeLimit, "value too large for one binary property list", format: .binary)
        }
        let start = body.count
        switch value {
        case .string(let s): return addString(s)
        case .integer(let i):
            appendInteger(i)
        case .real(let r):
            if r.isFloat32 {
                body.append(0x22)
                appendBigEndian(UInt64(Float(r.value).bitPattern), size: 4)
            } else {
                body.append(0x23)
                appendBigEndian(r.value.bitPattern, size: 8)
            }
        case .bool(let b):
            body.append(b ? 0x09 : 0x08)
        case .date(let d):
            body.append(0x33)
            appendBigEndian(d.secondsSinceReferenceDate.bitPattern, size: 8)
        case .data(let d):
            appendSize(0x40, d.count)
            d.withUnsafeBytes { body.append(contentsOf: $0) }
        case .uid(let u):
            // Not uniqued: Python's writer shares UIDs only by identity, which a value type cannot have.
            let size = u.value < 1 << 8 ? 1 : u.value < 1 << 16 ? 2 : u.value < 1 << 32 ? 4 : 8
            body.append(0x80 | UInt8(size - 1))
            appendBigEndian(u.value, size: size)
            return newObject()
        case .array(let elements):
            try checkDepth(depth)
            let (number, slots) = try startContainer(0xA0, count: elements.count, refCount: elements.count)
            var i = slots
            for element in elements {
                refs[i] = UInt32(truncatingIfNeeded: try add(element, depth: depth + 1))
                i += 1
            }
            return number
        case .dictionary(let dict):
            try checkDepth(depth)
            let count = dict.count
            let (number, slots) = try startContainer(0xD0, count: count, refCount: 2 * count)
            try dict.withEntries { entries in
                if sortKeys, let order = Self.sortedOrder(KeyColumn(entries)) {
                    for j in 0..<count { refs[slots + j] = UInt32(truncatingIfNeeded: addString(entries[order[j]].key)) }
                    for j in 0..<count { refs[slots + count + j] = UInt32(truncatingIfNeeded: try add(entries[order[j]].value, depth: depth + 1)) }
                } else {
                    for j in 0..<count { refs[slots + j] = UInt32(truncatingIfNeeded: addString(entries[j].key)) }
                    for j in 0..<count { refs[slots + count + j] = UInt32(truncatingIfNeeded: try add(entries[j].value, depth: depth + 1)) }
                }
            }
            return number
        }
        return uniqueScalar(from: start)
    }

    private func checkDepth(_ depth: Int) throws {
        guard depth < maxDepth else {
            throw PlistError(.depthLimit, "value nests deeper than \(maxDepth) levels", format: .binary)
        }
    }

    // MARK: Objects

    /// Ends a scalar whose bytes were appended from `start`: an earlier object with the same bytes is reused (and the
    /// copy dropped), otherwise this becomes a new object.
    @inline(__always) private mutating func uniqueScalar(from start: Int) -> Int {
        let number = ends.count
        let found = body.withUnsafeBytes { scalars.existing(from: start, in: $0, newObject: number) }
        if let found {
            body.removeLast(body.count - start)
            return found
        }
        return newObject()
    }

    /// Records the bytes appended since the previous object as a new object.
    @inline(__always) private mutating func newObject() -> Int {
        let number = ends.count
        // Both fit: `add` keeps the body below 4 GiB, `startContainer` the references below 2^32.
        ends.append(ObjectEnd(body: UInt32(truncatingIfNeeded: body.count), refs: UInt32(truncatingIfNeeded: refs.count)))
        return number
    }

    /// Appends a container header and reserves `refCount` reference slots; returns its number and first slot.
    private mutating func startContainer(_ token: UInt8, count: Int, refCount: Int) throws -> (Int, Int) {
        guard refCount < Int(UInt32.max) - refs.count else {
            throw PlistError(.sizeLimit, "value too large for one binary property list", format: .binary)
        }
        appendSize(token, count)
        let slots = refs.count
        refs.append(contentsOf: repeatElement(0, count: refCount))
        return (newObject(), slots)
    }

    private mutating func addString(_ s: String) -> Int {
        // Equal representations imply equal contents (not the reverse, so a miss falls through to the byte table).
        let bits = unsafeBitCast(s, to: (UInt64, UInt64).self)
        var h = bits.0 ^ (bits.1 &* 0x9E37_79B9_7F4A_7C15)
        h = (h ^ (h >> 29)) &* 0xBF58_476D_1CE4_E5B9
        let slot = Int(truncatingIfNeeded: h >> 40) & 4095
        let recent = recentStrings[slot]
        if recent.object >= 0, recent.bits == bits { return recent.object }
        let number = encodeString(s)
        recentStrings[slot] = RecentString(bits: bits, object: number)
        return number
    }

    private mutating func encodeString(_ s: String) -> Int {
        let start = body.count
        var s = s
        s.withUTF8 { utf8 in
            if Self.isASCII(utf8) {
                appendSize(0x50, utf8.count)
                body.append(contentsOf: utf8)
            } else {
                appendUTF16(utf8)
            }
        }
        return uniqueScalar(from: start)
    }

    /// Writes a non-ASCII string as `0x6n` + UTF-16BE; the count is in UTF-16 code units.
    private mutating func appendUTF16(_ utf8: UnsafeBufferPointer<UInt8>) {
        var units = 0
        for byte in utf8 where byte & 0xC0 != 0x80 {
            units += byte >= 0xF0 ? 2 : 1
        }
        appendSize(0x60, units)
        let start = body.count
        body.append(contentsOf: repeatElement(0, count: 2 * units))
        body.withUnsafeMutableBufferPointer { out in
            var o = start
            var i = 0
            let n = utf8.count
            @inline(__always) func put(_ u: UInt32) {
                out[o] = UInt8(truncatingIfNeeded: u >> 8)
                out[o + 1] = UInt8(truncatingIfNeeded: u)
                o += 2
            }
            // The input is valid UTF-8 (it comes from a Swift String), so no checks are needed.
            while i < n {
                let b0 = UInt32(utf8[i])
                if b0 < 0x80 {
                    put(b0); i += 1
                } else if b0 < 0xE0 {
                    put((b0 & 0x1F) << 6 | UInt32(utf8[i + 1] & 0x3F)); i += 2
                } else if b0 < 0xF0 {
                    put((b0 & 0x0F) << 12 | UInt32(utf8[i + 1] & 0x3F) << 6 | UInt32(utf8[i + 2] & 0x3F)); i += 3
                } else {
                    let scalar = (b0 & 0x07) << 18 | UInt32(utf8[i + 1] & 0x3F) << 12
                        | UInt32(utf8[i + 2] & 0x3F) << 6 | UInt32(utf8[i + 3] & 0x3F)
                    let v = scalar - 0x10000
                    put(0xD800 | v >> 10)
                    put(0xDC00 | v & 0x3FF)
                    i += 4
                }
            }
        }
    }

    private mutating func appendInteger(_ i: PlistInteger) {
        if i.isNegative {
            body.append(0x13)
            appendBigEndian(i.bitPattern, size: 8)
        } else if i.exceedsInt64 {
            // Above Int64.max: a 16-byte signed integer whose high half is zero.
            body.append(0x14)
            appendBigEndian(0, size: 8)
            appendBigEndian(i.bitPattern, size: 8)
        } else {
            let v = i.bitPattern
            let size = v < 1 << 8 ? 1 : v < 1 << 16 ? 2 : v < 1 << 32 ? 4 : 8
            body.append(0x10 | UInt8(size.trailingZeroBitCount))
            appendBigEndian(v, size: size)
        }
    }

    /// A marker with a length: in the low nibble when < 15, else `0x?F` followed by a minimal integer.
    private mutating func appendSize(_ token: UInt8, _ count: Int) {
        if count < 15 {
            body.append(token | UInt8(count))
            return
        }
        body.append(token | 0x0F)
        let v = UInt64(count)
        let size = v < 1 << 8 ? 1 : v < 1 << 16 ? 2 : v < 1 << 32 ? 4 : 8
        body.append(0x10 | UInt8(size.trailingZeroBitCount))
        appendBigEndian(v, size: size)
    }

    @inline(__always) private mutating func appendBigEndian(_ v: UInt64, size: Int) {
        var shift = 8 * (size - 1)
        while shift >= 0 {
            body.append(UInt8(truncatingIfNeeded: v >> UInt64(shift)))
            shift -= 8
        }
    }

    private static func isASCII(_ b: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        let n = b.count
        if let p = b.baseAddress {
            let raw = UnsafeRawPointer(p)
            while i + 8 <= n {
                if raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
                i += 8
            }
        }
        while i < n {
            if b[i] >= 0x80 { return false }
            i += 1
        }
        return true
    }

    /// The positions of `keys` in Unicode scalar order, or nil when they are already in that order.
    private static func sortedOrder(_ keys: KeyColumn) -> [Int]? {
        var sorted = true
        var i = 1
        while i < keys.count {
            if !Self.scalarLess(keys[i - 1], keys[i]) { sorted = false; break }
            i += 1
        }
        if sorted { return nil }
        return (0..<keys.count).sorted { Self.scalarLess(keys[$0], keys[$1]) }
    }

    /// `PlistKeyOrder.scalarLess` over contiguous UTF-8 (same order: UTF-8 byte order is scalar order).
    @inline(__always) static func scalarLess(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        return a.withUTF8 { pa in
            b.withUTF8 { pb in
                let n = min(pa.count, pb.count)
                var i = 0
                while i < n {
                    let x = pa[i], y = pb[i]
                    if x != y { return x < y }
                    i += 1
                }
                return pa.count < pb.count
            }
        }
    }
}

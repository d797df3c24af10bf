import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A binary property list's objects, reached through its validated trailer and offset table: any object in O(1),
/// nothing allocated per object — how CoreFoundation's `CFBinaryPList.c` reads. Every offset, reference and length is
/// checked against the object area before it is used. Shared by the event source (which adds cycle checks and the
/// decoding budget) and `BinaryPlistDocument` (lookups without building anything).
struct BinaryObjectTable {
    let base: UnsafeRawPointer
    let trailer: BinaryTrailer
    /// End of the object area (= start of the offset table).
    let objectsEnd: Int
    /// NaN and infinite dates are refused.
    let strictDates: Bool

    init(base: UnsafeRawPointer, trailer: BinaryTrailer, strictDates: Bool) {
        self.base = base
        self.trailer = trailer
        objectsEnd = trailer.offsetTableOffset
        self.strictDates = strictDates
    }

    @inline(__always) func marker(at offset: Int) -> UInt8 { base.load(fromByteOffset: offset, as: UInt8.self) }

    /// The offset of object `index`, checked to lie inside the object area.
    @inline(__always) func objectOffset(_ index: Int) throws -> Int {
        let entry = trailer.offsetTableOffset + index * trailer.offsetSize
        let offset = readUInt(at: entry, size: trailer.offsetSize)
        guard offset >= UInt64(BinaryTrailer.headerSize), offset < UInt64(objectsEnd) else {
            throw offsetError(index, offset, at: entry)
        }
        return Int(offset)
    }

    // Errors are built out of line, so the hot functions stay small enough to be inlined into one another.
    @inline(never) func offsetError(_ index: Int, _ offset: UInt64, at entry: Int) -> PlistError {
        let place = offset < UInt64(BinaryTrailer.headerSize) ? "into the header" : "past the object area"
        return error(.invalidReference, "offset \(offset) of object \(index) points \(place)", at: entry)
    }

    /// The object reference at `position` (inside an array or dictionary), checked to be below the object count.
    @inline(__always) func reference(at position: Int) throws -> Int {
        let ref = readUInt(at: position, size: trailer.refSize)
        guard ref < UInt64(trailer.objectCount) else { throw referenceError(ref, at: position) }
        return Int(ref)
    }

    @inline(never) private func referenceError(_ ref: UInt64, at position: Int) -> PlistError {
        error(.invalidReference, "object reference \(ref) is not below the object count \(trailer.objectCount)", at: position)
    }

    /// Decodes an object that is not a container — a scalar, string or data — and says where it ends.
    @inline(__always) func leaf(at offset: Int) throws -> (value: PlistValue, end: Int) {
        let marker = marker(at: offset)
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x4: return try data(low, at: offset)
        case 0x5: return try asciiString(low, at: offset)
        case 0x6: return try utf16String(low, at: offset)
        default: return (try fixedSizeScalar(at: offset), 0)
        }
    }

    /// Decodes a Boolean, number, date or UID (a fixed-size object, whose end matters to nobody).
    @inline(__always) func fixedSizeScalar(at offset: Int) throws -> PlistValue {
        let marker = marker(at: offset)
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0: if marker & 0xFE == 0x08 { return .bool(marker == 0x09) }  // null and fill are not values
        case 0x1: return try integer(low, at: offset)
        case 0x2: return try real(low, at: offset)
        case 0x3: if marker == 0x33 { return try date(at: offset) }
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

    @inline(never) private func integer(_ low: Int, at offset: Int) throws -> PlistValue {
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

    @inline(never) private func real(_ low: Int, at offset: Int) throws -> PlistValue {
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

    @inline(never) private func date(at offset: Int) throws -> PlistValue {
        try need(offset + 9, "date", at: offset)
        let seconds = Double(bitPattern: readUInt(at: offset + 1, size: 8))
        if strictDates, !seconds.isFinite {
            throw error(.invalidValue, "date is \(seconds), not a finite number of seconds", at: offset)
        }
        return .date(PlistDate(secondsSinceReferenceDate: seconds))
    }

    @inline(never) private func uid(_ low: Int, at offset: Int) throws -> PlistValue {
        let size = low + 1
        try need(offset + 1 + size, "UID", at: offset)
        var value: UInt64 = 0
        for i in 0..<size {
            if size - i > 8, base.load(fromByteOffset: offset + 1 + i, as: UInt8.self) != 0 {
                throw error(.integerOutOfRange, "UID does not fit in 64 bits", at: offset)
            }
            value = value << 8 | UInt64(base.load(fromByteOffset: offset + 1 + i, as: UInt8.self))
        }
        // Any width from 1 to 16 bytes, as CF reads them; values up to 2^64 − 1, as plistlib writes them (CF's UID
        // type is 32 bits wide and `CFBinaryPList.c` refuses a larger value).
        return .uid(UID(value))
    }

    @inline(never) private func data(_ low: Int, at offset: Int) throws -> (value: PlistValue, end: Int) {
        let (start, count) = try payload(low, unit: 1, at: offset)
        return (.data(Data(bytes: base + start, count: count)), start + count)
    }

    @inline(never) private func asciiString(_ low: Int, at offset: Int) throws -> (value: PlistValue, end: Int) {
        let (start, count) = try payload(low, unit: 1, at: offset)
        let bytes = UnsafeRawBufferPointer(start: base + start, count: count)
        guard Self.firstNonASCII(bytes) != nil else { return (.string(String(readerUTF8: bytes)), start + count) }
        return (.string(Self.latin1(bytes)), start + count)
    }

    /// An ASCII-marked string holding bytes ≥ 0x80, as Core Foundation reads one (`CFStringCreateWithBytes` with
    /// `kCFStringEncodingASCII` takes each byte as the code point of the same value: ISO Latin-1).
    @inline(never) static func latin1(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: 2 * bytes.count) { out -> Int in
            var o = 0
            for b in bytes {
                if b < 0x80 {
                    out[o] = b; o += 1
                } else {
                    out[o] = 0xC0 | b >> 6; out[o + 1] = 0x80 | b & 0x3F; o += 2
                }
            }
            return o
        }
    }

    @inline(never) private func utf16String(_ low: Int, at offset: Int) throws -> (value: PlistValue, end: Int) {
        let (start, units) = try payload(low, unit: 2, at: offset)
        let p = base + start
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
                    // A lone surrogate: Core Foundation keeps it in the string, which then writes it as U+FFFD
                    // (the only form UTF-8, and a Swift `String`, has for it).
                    let v = i < units ? UInt16(p.load(fromByteOffset: 2 * i, as: UInt8.self)) << 8
                        | UInt16(p.load(fromByteOffset: 2 * i + 1, as: UInt8.self)) : 0
                    guard u < 0xDC00, v & 0xFC00 == 0xDC00 else {
                        out[o] = 0xEF; out[o + 1] = 0xBF; out[o + 2] = 0xBD; o += 3
                        continue
                    }
                    i += 1
                    let scalar = 0x10000 + (UInt32(u & 0x3FF) << 10 | UInt32(v & 0x3FF))
                    out[o] = UInt8(0xF0 | scalar >> 18); out[o + 1] = UInt8(0x80 | (scalar >> 12) & 0x3F)
                    out[o + 2] = UInt8(0x80 | (scalar >> 6) & 0x3F); out[o + 3] = UInt8(0x80 | scalar & 0x3F)
                    o += 4
                }
            }
            return o
        }
        return (.string(string), start + 2 * units)
    }

    /// Where the object at `offset` ends (for exact ranges; the object was or will be checked when decoded).
    func objectEnd(_ offset: Int) throws -> Int {
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
    /// the object area — before anything is allocated (the payload ends at `start + count × unit`). Returns where the payload starts and the length.
    @inline(__always) func payload(_ low: Int, unit: Int, at offset: Int) throws -> (start: Int, count: Int) {
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
    @inline(__always) func readUInt(at offset: Int, size: Int) -> UInt64 {
        assert(size >= 1 && size <= 8 && offset + size <= trailer.offsetTableOffset + trailer.objectCount * trailer.offsetSize,
               "field outside the object area and offset table")
        return UInt64(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &>> UInt64(64 &- 8 &* size)
    }

    /// Index of the first byte ≥ 0x80, eight bytes at a time.
    static func firstNonASCII(_ b: UnsafeRawBufferPointer) -> Int? {
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

/// The per-object state of one reading (`BinaryEventSource`'s slots), zero-filled. For a reading that meets a few
/// objects of a huge document (a subtree of a `BinaryPlistDocument`) a large table is mapped from the kernel as
/// untouched zero pages, so it pays for the pages it touches, not for a pass over one slot per object of the file. A
/// whole document's reading touches every slot anyway and takes the allocator's memory: fresh zero pages fault once
/// per page on every reading, where the allocator hands back the same warm pages (measured on the shared harness's
/// array-L binary: 500 more page faults a parse and 10–25 % of its time when mapped).
struct BinaryObjectSlots {
    let raw: UnsafeMutableRawPointer
    private let mappedBytes: Int

    /// Below this many bytes, the allocator's memory, zeroed, is cheaper than a mapping.
    private static var mappingThreshold: Int { 256 << 10 }

    /// `count` slots of `bytesPerSlot` bytes, zeroed; mapped when large and `sparse` (the reading is expected to touch
    /// few of them). Slots of 4 bytes are bound to `Int32`, of 1 byte to `Int8`.
    init(count: Int, bytesPerSlot: Int = 4, sparse: Bool) {
        precondition(bytesPerSlot == 4 || bytesPerSlot == 1)
        let slots = max(count, 1)
        let bytes = slots * bytesPerSlot
        if sparse, bytes >= Self.mappingThreshold,
           let address = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), address != MAP_FAILED {
            raw = address
            mappedBytes = bytes
            if bytesPerSlot == 4 { _ = raw.bindMemory(to: Int32.self, capacity: slots) } else { _ = raw.bindMemory(to: Int8.self, capacity: slots) }
        } else {
            raw = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 4)
            mappedBytes = 0
            if bytesPerSlot == 4 {
                _ = raw.initializeMemory(as: Int32.self, repeating: 0, count: slots)
            } else {
                _ = raw.initializeMemory(as: Int8.self, repeating: 0, count: slots)
            }
        }
    }

    /// Frees the slots (once).
    func release() {
        if mappedBytes > 0 {
            _ = munmap(raw, mappedBytes)
        } else {
            raw.deallocate()
        }
    }
}

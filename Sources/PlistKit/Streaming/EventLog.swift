#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import FoundationEssentials

/// Events in a compact binary form, appended in order and read back from any position: in memory up to a bound,
/// then in an unlinked temporary file (so a dictionary with millions of entries costs disk, not memory, and the file
/// is gone when the process is, whatever happens).
///
/// A record is a tag byte and its payload: strings, keys and data carry a variable-length byte count; integers that
/// fit 64 signed bits are variable-length (zigzag), other numbers, dates and UIDs eight bytes; the beginning of a
/// container holds where its records end.
final class EventLog {
    enum Tag: UInt8 {
        case beginArray, endArray, beginDictionary, endDictionary, key, string, int64, uint64, real64, real32
        case `true`, `false`, date, data, uid
        /// A key by its number in `keys`.
        case keyNumber
    }

    /// What `append` writes goes here first; past `memoryLimit` it goes to the file. Raw bytes behind a pointer
    /// the log owns: an append is a capacity check and a store (a `[UInt8]` property of a class paid an exclusivity
    /// check and a uniqueness check on every one, 8 % of a stream's time in a profile).
    private let tail: UnsafeMutablePointer<Tail>
    private let memoryLimit: Int
    /// Where the records past `memoryLimit` go.
    private let file: SpillFile
    /// Bytes in the file (the tail follows them).
    private var fileLength = 0
    /// Keys logged by number (kept when the log is emptied: the numbers stay valid).
    @exclusivity(unchecked) private var keys = EventLogKeys()

    /// The log's length in bytes.
    var count: Int { fileLength + tail.pointee.count }

    init(memoryLimit: Int = PropertyList.eventLogMemory, directory: String? = nil) {
        self.memoryLimit = memoryLimit
        file = SpillFile(directory: directory, prefix: "plistkit-events")
        tail = UnsafeMutablePointer<Tail>.allocate(capacity: 1)
        tail.initialize(to: Tail(capacity: min(max(memoryLimit, 64), 1 << 16)))
    }

    deinit {
        tail.pointee.bytes.deallocate()
        tail.deinitialize(count: 1)
        tail.deallocate()
    }

    /// Empties the log (its file, if any, is kept for reuse).
    func removeAll() {
        tail.pointee.count = 0
        file.removeAll()
        fileLength = 0
    }

    // MARK: Writing

    func append(_ tag: Tag) throws {
        tail.pointee.append(tag.rawValue)
        try spillIfFull()
    }

    /// Begins a container (`tag` is `.beginArray` or `.beginDictionary`): its record holds where the container's
    /// records end, filled in by `endContainer`, so that a reader skips it in one step. Returns where it begins.
    func beginContainer(_ tag: Tag) throws -> Int {
        let start = count
        tail.pointee.append(tag.rawValue)
        withUnsafeBytes(of: UInt64(0)) { tail.pointee.append($0) }
        try spillIfFull()
        return start
    }

    /// Ends the container begun at `start` with its end record (`tag`).
    func endContainer(_ tag: Tag, begunAt start: Int) throws {
        tail.pointee.append(tag.rawValue)
        var end = UInt64(count).littleEndian
        // A record is never split between the file and memory: it is in one or the other.
        if start >= fileLength {
            withUnsafeBytes(of: &end) { UnsafeMutableRawPointer(tail.pointee.bytes + (start + 1 - fileLength)).copyMemory(from: $0.baseAddress!, byteCount: 8) }
        } else {
            try withUnsafeBytes(of: &end) { try file.write($0, at: start + 1) }
        }
        try spillIfFull()
    }

    func append(_ tag: Tag, bytes: UnsafeRawBufferPointer) throws {
        tail.pointee.append(tag.rawValue)
        tail.pointee.appendLength(bytes.count)
        tail.pointee.append(bytes)
        try spillIfFull()
    }

    func append(_ tag: Tag, word: UInt64) throws {
        tail.pointee.append(tag.rawValue)
        withUnsafeBytes(of: word.littleEndian) { tail.pointee.append($0) }
        try spillIfFull()
    }

    func append(_ tag: Tag, string: String) throws {
        var s = string
        try s.withUTF8 { try append(tag, bytes: UnsafeRawBufferPointer($0)) }
    }

    /// A key, with where it starts in the input (for the error about a repeated one): by its number when `keys`
    /// holds it, else as text.
    func appendKey(_ key: String, at offset: Int) throws {
        var s = key
        s.withUTF8 { utf8 in
            if let number = keys.number(of: UnsafeRawBufferPointer(utf8), key) {
                tail.pointee.append(Tag.keyNumber.rawValue)
                tail.pointee.appendLength(max(offset, 0))
                tail.pointee.appendLength(number)
                return
            }
            tail.pointee.append(Tag.key.rawValue)
            tail.pointee.appendLength(max(offset, 0))
            tail.pointee.appendLength(utf8.count)
            tail.pointee.append(UnsafeRawBufferPointer(utf8))
        }
        try spillIfFull()
    }

    /// A value event.
    func append(_ value: PlistValue) throws {
        switch value {
        case .string(let s): try append(.string, string: s)
        case .integer(let i):
            if let v = i.int64Value {
                // Zigzag, then seven bits a byte: most integers in documents are small.
                tail.pointee.append(Tag.int64.rawValue)
                tail.pointee.appendLength(UInt64(bitPattern: (v &<< 1) ^ (v >> 63)))
                try spillIfFull()
            } else {
                try append(.uint64, word: i.uint64Value ?? 0)
            }
        case .real(let r): try append(r.isFloat32 ? .real32 : .real64, word: r.value.bitPattern)
        case .bool(let b): try append(b ? .true : .false)
        case .date(let d): try append(.date, word: d.secondsSinceReferenceDate.bitPattern)
        case .data(let d): try d.withUnsafeBytes { try append(.data, bytes: $0) }
        case .uid(let u): try append(.uid, word: u.value)
        case .array, .dictionary: preconditionFailure("containers are logged as begin and end events")
        }
    }

    /// The bytes not yet in the file.
    private struct Tail {
        var bytes: UnsafeMutablePointer<UInt8>
        var count = 0
        var capacity: Int

        init(capacity: Int) {
            bytes = .allocate(capacity: capacity)
            self.capacity = capacity
        }

        @inline(__always) mutating func append(_ byte: UInt8) {
            if count == capacity { grow(to: count + 1) }
            bytes[count] = byte
            count += 1
        }

        @inline(__always) mutating func append(_ raw: UnsafeRawBufferPointer) {
            guard let source = raw.baseAddress, raw.count > 0 else { return }
            if count + raw.count > capacity { grow(to: count + raw.count) }
            UnsafeMutableRawPointer(bytes + count).copyMemory(from: source, byteCount: raw.count)
            count += raw.count
        }

        /// A variable-length number: seven bits a byte, least significant first.
        @inline(__always) mutating func appendLength(_ n: Int) {
            appendLength(UInt64(n))
        }

        @inline(__always) mutating func appendLength(_ n: UInt64) {
            var v = n
            while v >= 0x80 {
                append(UInt8(v & 0x7F) | 0x80)
                v >>= 7
            }
            append(UInt8(v))
        }

        @inline(never) mutating func grow(to needed: Int) {
            let larger = max(2 * capacity, needed)
            let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
            moved.initialize(from: bytes, count: count)
            bytes.deallocate()
            bytes = moved
            capacity = larger
        }
    }

    /// Called after every append: the check stays inline, the spill out of line.
    @inline(__always) private func spillIfFull() throws {
        guard tail.pointee.count >= memoryLimit else { return }
        try spill()
    }

    /// Moves the tail to the end of the file.
    @inline(never) private func spill() throws {
        let raw = UnsafeRawBufferPointer(start: tail.pointee.bytes, count: tail.pointee.count)
        try file.write(raw, at: fileLength)
        fileLength += raw.count
        tail.pointee.count = 0
    }

    // MARK: Reading

    /// Bytes read from the log's file for a `Reader`'s window, shared by the readers copied from it (`moved`) and
    /// refilled in place only by a reader that holds them alone.
    private final class WindowBuffer {
        let bytes: UnsafeMutablePointer<UInt8>
        let capacity: Int

        init(capacity: Int) {
            bytes = .allocate(capacity: capacity)
            self.capacity = capacity
        }

        deinit { bytes.deallocate() }
    }

    /// Reads records from a position onwards, through a window of the log: the log's memory itself where the
    /// records are still there, a buffer read from its file where they are not. Valid until the log is next
    /// appended to or emptied (a replay only reads).
    struct Reader {
        let log: EventLog
        private(set) var position: Int
        /// Where the last key read starts in the input.
        private(set) var keyOffset = 0
        /// Log bytes `windowStart ..< windowEnd` are at `window`.
        private var window: UnsafePointer<UInt8>
        private var windowStart = 0
        private var windowEnd = 0
        private var buffer: WindowBuffer?
        /// Where the records this reader was moved to end, when known (`moved(to:through:)`).
        private var expectedEnd = 0
        /// What a window read after a jump holds at least, and how many jumps landed in the current one.
        private var jumpSize = 4096
        private var jumpHits = 0

        init(_ log: EventLog, at position: Int) {
            self.log = log
            self.position = position
            window = UnsafePointer(log.tail.pointee.bytes)
            // The records in memory are the window; those in the file are read when reached.
            windowStart = log.fileLength
            windowEnd = log.count
        }

        /// A reader at `position` that keeps this one's window (a nested value usually lies inside it).
        func moved(to position: Int) -> Reader {
            var copy = self
            copy.position = position
            return copy
        }

        /// A reader at `position` for records that end at `end`. A window it must read from the file holds them
        /// and what follows, as much as earlier jumps found useful: a sorted replay of a large dictionary jumps to
        /// each of millions of values, which lie in any order (4 KiB a jump read 16 times the bytes of a small
        /// value) or nearly in file order (a library's decimal track IDs sort mostly as they were written, and then
        /// one window serves hundreds of jumps) — the window grows while jumps land in it and shrinks while they
        /// do not.
        func moved(to position: Int, through end: Int) -> Reader {
            var copy = moved(to: position)
            copy.expectedEnd = end
            if position >= windowStart, position < windowEnd { copy.jumpHits += 1 }
            return copy
        }

        /// Takes `other`'s window (a reader moved from this one, which may have read a newer one), keeping this
        /// one's position.
        mutating func adoptWindow(of other: Reader) {
            window = other.window
            windowStart = other.windowStart
            windowEnd = other.windowEnd
            buffer = other.buffer
            jumpSize = other.jumpSize
            jumpHits = other.jumpHits
        }

        /// Makes `n` bytes from `position` available in the window.
        @inline(__always) private mutating func ensure(_ n: Int) throws {
            if position >= windowStart, n <= windowEnd &- position { return }
            try refill(n)
        }

        @inline(never) private mutating func refill(_ n: Int) throws {
            let logCount = log.count
            guard position >= 0, n <= logCount - position else {
                throw PlistError(.io, "the event log ends inside a record (at \(position))")
            }
            if position >= log.fileLength {
                window = UnsafePointer(log.tail.pointee.bytes)
                windowStart = log.fileLength
                windowEnd = logCount
                return
            }
            let wanted: Int
            if position == windowEnd {
                wanted = 64 << 10  // reading on
            } else {
                jumpSize = jumpHits > 0 ? min(2 * jumpSize, 64 << 10) : max(jumpSize / 2, 256)
                jumpHits = 0
                wanted = max(jumpSize, expectedEnd > position ? min(expectedEnd - position, 64 << 10) : 0)
            }
            let size = min(max(n, wanted), logCount - position)
            if buffer == nil || buffer!.capacity < size || !isKnownUniquelyReferenced(&buffer!) {
                buffer = WindowBuffer(capacity: max(size, 4096))
            }
            let filled = try log.read(from: position, count: size, into: buffer!.bytes)
            guard filled >= n else { throw PlistError(.io, "the event log ends inside a record (at \(position))") }
            window = UnsafePointer(buffer!.bytes)
            windowStart = position
            windowEnd = position + filled
        }

        /// The window's byte at `position` (which `ensure` made available).
        @inline(__always) private func at(_ k: Int = 0) -> UInt8 { window[position &- windowStart &+ k] }

        @inline(__always) private mutating func byte() throws -> UInt8 {
            try ensure(1)
            defer { position &+= 1 }
            return at()
        }

        @inline(__always) private mutating func word() throws -> UInt64 {
            try ensure(8)
            let v = UnsafeRawPointer(window + (position &- windowStart)).loadUnaligned(as: UInt64.self)
            position &+= 8
            return UInt64(littleEndian: v)
        }

        @inline(__always) private mutating func length() throws -> Int {
            Int(truncatingIfNeeded: try varint())
        }

        /// A variable-length number (`Tail.appendLength`): at most ten bytes, read from the window in one loop once
        /// they are in it.
        @inline(__always) private mutating func varint() throws -> UInt64 {
            let first = try byte()
            if first < 0x80 { return UInt64(first) }
            return try longVarint(first)
        }

        @inline(__always) private mutating func longVarint(_ first: UInt8) throws -> UInt64 {
            // The rest is at most nine bytes: have them (or what the log has left) in the window.
            if windowEnd &- position < 9 { try ensure(min(9, log.count - position)) }
            let limit = min(9, windowEnd &- position)
            var v = UInt64(first & 0x7F)
            var k = 0
            while k < limit {
                let b = at(k)
                v |= UInt64(b & 0x7F) &<< UInt64(7 &* (k &+ 1))
                k &+= 1
                if b & 0x80 == 0 {
                    position &+= k
                    return v
                }
            }
            throw PlistError(.io, "a number in the event log is too long or cut short (at \(position))")
        }

        /// The next `n` bytes, valid until the window moves.
        @inline(__always) private mutating func span(_ n: Int) throws -> UnsafeBufferPointer<UInt8> {
            guard n >= 0 else { throw PlistError(.io, "a negative length in the event log (at \(position))") }
            try ensure(n)
            defer { position &+= n }
            return UnsafeBufferPointer(start: window + (position &- windowStart), count: n)
        }

        /// A string record's text, decoded from the window (one copy, not two).
        private mutating func string() throws -> String {
            String(decoding: try span(try length()), as: UTF8.self)
        }

        /// The next record.
        mutating func next() throws -> PlistEvent {
            guard let tag = Tag(rawValue: try byte()) else { throw PlistError(.io, "unknown record in the event log") }
            switch tag {
            case .beginArray:
                _ = try word()
                return .beginArray(count: nil)
            case .endArray: return .endArray
            case .beginDictionary:
                _ = try word()
                return .beginDictionary(count: nil)
            case .endDictionary: return .endDictionary
            case .key:
                keyOffset = try length()
                return .key(try string())
            case .keyNumber:
                keyOffset = try length()
                let number = try length()
                guard number >= 0, number < log.keys.keys.count else {
                    throw PlistError(.io, "the event log names a key it does not hold (at \(position))")
                }
                return .key(log.keys.keys[number])
            case .string: return .value(.string(try string()))
            case .int64:
                let z = try varint()
                return .value(.integer(PlistInteger(Int64(bitPattern: (z >> 1) ^ (0 &- (z & 1))))))
            case .uint64: return .value(.integer(PlistInteger(try word())))
            case .real64: return .value(.real(PlistReal(Double(bitPattern: try word()))))
            case .real32: return .value(.real(PlistReal(Float(Double(bitPattern: try word())))))
            case .true: return .value(.bool(true))
            case .false: return .value(.bool(false))
            case .date: return .value(.date(PlistDate(secondsSinceReferenceDate: Double(bitPattern: try word()))))
            case .data: return .value(.data(Data(try span(try length()))))
            case .uid: return .value(.uid(UID(try word())))
            }
        }

        /// Skips one value (a scalar, or a container with everything in it) whose first record is next: a container
        /// by the end its record holds, a scalar by its tag and length. Nothing is decoded (a replay in key order
        /// skips each value once before it sends it).
        mutating func skipValue() throws {
            let start = position
            guard let tag = Tag(rawValue: try byte()) else { throw PlistError(.io, "unknown record in the event log") }
            switch tag {
            case .beginArray, .beginDictionary:
                let end = Int(truncatingIfNeeded: try word())
                guard end > position, end <= log.count else {
                    throw PlistError(.io, "a container in the event log has no end (at \(start))")
                }
                position = end
            case .endArray, .endDictionary, .key, .keyNumber:
                throw PlistError(.io, "the event log holds \(tag) where a value belongs (at \(start))")
            case .string, .data: position &+= try length()
            case .int64: _ = try varint()
            case .uint64, .real64, .real32, .date, .uid: position &+= 8
            case .true, .false: break
            }
            // (`ensure` reads the next record's bytes wherever `position` now is; past the end is its error.)
        }
    }

    /// Copies up to `count` bytes from `offset` (fewer at the end of the log) to `out`; returns how many.
    private func read(from offset: Int, count: Int, into out: UnsafeMutablePointer<UInt8>) throws -> Int {
        let end = min(offset + count, self.count)
        guard offset < end else { return 0 }
        var filled = 0
        if offset < fileLength {
            let fromFile = min(end, fileLength) - offset
            filled = try file.read(into: out, count: fromFile, at: offset)
            if filled < fromFile { return filled }
        }
        if end > fileLength {
            let from = max(offset, fileLength) - fileLength
            let n = end - max(offset, fileLength)
            (out + filled).update(from: tail.pointee.bytes + from, count: n)
            filled += n
        }
        return filled
    }
}

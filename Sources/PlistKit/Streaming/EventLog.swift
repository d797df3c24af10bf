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
/// A record is a tag byte and its payload: strings, keys and data carry a variable-length byte count, numbers, dates
/// and UIDs eight bytes.
final class EventLog {
    enum Tag: UInt8 {
        case beginArray, endArray, beginDictionary, endDictionary, key, string, int64, uint64, real64, real32
        case `true`, `false`, date, data, uid
    }

    /// What `append` writes goes here first; past `memoryLimit` it goes to the file. Raw bytes behind a pointer
    /// the log owns: an append is a capacity check and a store (a `[UInt8]` property of a class paid an exclusivity
    /// check and a uniqueness check on every one, 8 % of a stream's time in a profile).
    private let tail: UnsafeMutablePointer<Tail>
    private let memoryLimit: Int
    private var file: Int32 = -1
    /// Bytes in the file (the tail follows them).
    private var fileLength = 0
    private let directory: String

    /// The log's length in bytes.
    var count: Int { fileLength + tail.pointee.count }

    init(memoryLimit: Int = PropertyList.eventLogMemory, directory: String? = nil) {
        self.memoryLimit = memoryLimit
        self.directory = directory ?? EventLog.temporaryDirectory
        tail = UnsafeMutablePointer<Tail>.allocate(capacity: 1)
        tail.initialize(to: Tail(capacity: min(max(memoryLimit, 64), 1 << 16)))
    }

    deinit {
        tail.pointee.bytes.deallocate()
        tail.deinitialize(count: 1)
        tail.deallocate()
        if file >= 0 { _ = close(file) }
    }

    static var temporaryDirectory: String {
        if let t = getenv("TMPDIR"), t.pointee != 0 { return String(cString: t) }
        return "/tmp"
    }

    /// Empties the log (its file, if any, is kept for reuse).
    func removeAll() {
        tail.pointee.count = 0
        if file >= 0 { _ = ftruncate(file, 0) }
        fileLength = 0
    }

    // MARK: Writing

    func append(_ tag: Tag) throws {
        tail.pointee.append(tag.rawValue)
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

    /// A key, with where it starts in the input (for the error about a repeated one).
    func appendKey(_ key: String, at offset: Int) throws {
        tail.pointee.append(Tag.key.rawValue)
        tail.pointee.appendLength(max(offset, 0))
        var s = key
        s.withUTF8 { utf8 in
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
            if let v = i.int64Value { try append(.int64, word: UInt64(bitPattern: v)) } else { try append(.uint64, word: i.uint64Value ?? 0) }
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
            var v = UInt64(n)
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

    private func spillIfFull() throws {
        guard tail.pointee.count >= memoryLimit else { return }
        try spill()
    }

    /// Moves the tail to the end of the file.
    private func spill() throws {
        if file < 0 {
            var template = Array((directory + "/plistkit-events-XXXXXX").utf8CString)
            file = try template.withUnsafeMutableBufferPointer { p in try SystemCall.value { mkstemp(p.baseAddress!) }.get() }
            // Unlinked at once: the file lives as long as the descriptor.
            _ = template.withUnsafeBufferPointer { unlink($0.baseAddress!) }
        }
        let raw = UnsafeRawBufferPointer(start: tail.pointee.bytes, count: tail.pointee.count)
        var done = 0
        while done < raw.count {
            let n = try SystemCall.value { pwrite(file, raw.baseAddress! + done, raw.count - done, off_t(fileLength + done)) }.get()
            done += n
        }
        fileLength += raw.count
        tail.pointee.count = 0
    }

    // MARK: Reading

    /// Reads records from a position onwards, through a window of the log.
    struct Reader {
        let log: EventLog
        private(set) var position: Int
        /// Where the last key read starts in the input.
        private(set) var keyOffset = 0
        private var window: [UInt8] = []
        private var windowStart = 0

        init(_ log: EventLog, at position: Int) {
            self.log = log
            self.position = position
        }

        /// A reader at `position` that keeps this one's window (a nested value usually lies inside it).
        func moved(to position: Int) -> Reader {
            var copy = self
            copy.position = position
            return copy
        }

        /// Makes `n` bytes from `position` available in the window.
        private mutating func ensure(_ n: Int) throws {
            if position >= windowStart, position + n <= windowStart + window.count { return }
            // Small: a sorted replay jumps from entry to entry, and each jump reads a new window.
            let size = max(n, 4096)
            window = try log.read(from: position, count: size)
            windowStart = position
            guard window.count >= n else {
                throw PlistError(.io, "the event log ends inside a record (at \(position))")
            }
        }

        private mutating func byte() throws -> UInt8 {
            try ensure(1)
            defer { position += 1 }
            return window[position - windowStart]
        }

        private mutating func word() throws -> UInt64 {
            try ensure(8)
            var v: UInt64 = 0
            for k in 0..<8 { v |= UInt64(window[position - windowStart + k]) << (8 * UInt64(k)) }
            position += 8
            return v
        }

        private mutating func length() throws -> Int {
            var v: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                let b = try byte()
                v |= UInt64(b & 0x7F) << shift
                if b & 0x80 == 0 { return Int(v) }
                shift += 7
            }
        }

        private mutating func bytes() throws -> [UInt8] {
            let n = try length()
            try ensure(n)
            defer { position += n }
            return Array(window[(position - windowStart)..<(position - windowStart + n)])
        }

        /// A string record's text, decoded from the window (one copy, not two).
        private mutating func string() throws -> String {
            let n = try length()
            try ensure(n)
            defer { position += n }
            let start = position - windowStart
            return window.withUnsafeBufferPointer { String(decoding: UnsafeBufferPointer(rebasing: $0[start ..< start + n]), as: UTF8.self) }
        }

        /// The next record.
        mutating func next() throws -> PlistEvent {
            guard let tag = Tag(rawValue: try byte()) else { throw PlistError(.io, "unknown record in the event log") }
            switch tag {
            case .beginArray: return .beginArray(count: nil)
            case .endArray: return .endArray
            case .beginDictionary: return .beginDictionary(count: nil)
            case .endDictionary: return .endDictionary
            case .key:
                keyOffset = try length()
                return .key(try string())
            case .string: return .value(.string(try string()))
            case .int64: return .value(.integer(PlistInteger(Int64(bitPattern: try word()))))
            case .uint64: return .value(.integer(PlistInteger(try word())))
            case .real64: return .value(.real(PlistReal(Double(bitPattern: try word()))))
            case .real32: return .value(.real(PlistReal(Float(Double(bitPattern: try word())))))
            case .true: return .value(.bool(true))
            case .false: return .value(.bool(false))
            case .date: return .value(.date(PlistDate(secondsSinceReferenceDate: Double(bitPattern: try word()))))
            case .data: return .value(.data(Data(try bytes())))
            case .uid: return .value(.uid(UID(try word())))
            }
        }

        /// Skips one value (a scalar, or a container with everything in it) whose first record is next, by its
        /// tags and lengths alone: nothing is decoded (a replay in key order skips each value once before it sends
        /// it, at every level of nesting).
        mutating func skipValue() throws {
            var depth = 0
            repeat {
                guard let tag = Tag(rawValue: try byte()) else { throw PlistError(.io, "unknown record in the event log") }
                switch tag {
                case .beginArray, .beginDictionary: depth += 1
                case .endArray, .endDictionary: depth -= 1
                case .key:
                    _ = try length()
                    position += try length()
                case .string, .data: position += try length()
                case .int64, .uint64, .real64, .real32, .date, .uid: position += 8
                case .true, .false: break
                }
            } while depth > 0
            // (`ensure` reads the next record's bytes wherever `position` now is; past the end is its error.)
        }
    }

    /// Up to `count` bytes from `offset` (fewer at the end of the log).
    private func read(from offset: Int, count: Int) throws -> [UInt8] {
        let end = min(offset + count, self.count)
        guard offset < end else { return [] }
        return try [UInt8](unsafeUninitializedCapacity: end - offset) { out, initialized in
            var filled = 0
            if offset < fileLength {
                let fromFile = min(end, fileLength) - offset
                while filled < fromFile {
                    let n = try SystemCall.value { [filled] in pread(file, out.baseAddress! + filled, fromFile - filled, off_t(offset + filled)) }.get()
                    if n == 0 { break }
                    filled += n
                }
            }
            if end > fileLength, filled == max(0, min(end, fileLength) - offset) {
                let from = max(offset, fileLength) - fileLength
                let n = end - max(offset, fileLength)
                (out.baseAddress! + filled).initialize(from: tail.pointee.bytes + from, count: n)
                filled += n
            }
            initialized = filled
        }
    }
}

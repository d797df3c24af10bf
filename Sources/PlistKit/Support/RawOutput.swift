#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A growable output buffer on raw memory, for writers whose time goes into many short appends (`ByteWriter`'s
/// `Array` appends pay a generic copy and a uniqueness check each).
///
/// Not a value type in spirit: the owner creates one, appends, calls `finish()` exactly once (which gives its
/// memory to the next output), and never copies it.
struct RawOutput {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int
    /// Where full buffers go when the output streams (`OutputDrain`); nil keeps everything in memory.
    var drain: OutputDrain?

    /// A buffer of `OutputDrain.bufferSize` bytes that hands its contents to `drain` whenever it is full.
    init(streamingTo drain: OutputDrain) {
        self.init(capacity: OutputDrain.bufferSize)
        // A kept buffer larger than that (an earlier output's) is used only up to it: a stream holds no more than a
        // drain's buffer, whatever ran before it in the process. (Its true size is realloc's to know: growing and
        // giving it back stay correct; the cache only counts it as smaller.)
        capacity = min(capacity, OutputDrain.bufferSize)
        self.drain = drain
    }

    init(capacity: Int = 1 << 16) {
        let wanted = max(capacity, 64)
        if let kept = Self.kept.take() {
            self.capacity = max(kept.capacity, wanted)
            base = kept.capacity >= wanted ? kept.base : Self.resize(kept.base, to: wanted)
        } else {
            self.capacity = wanted
            base = Self.resize(nil, to: wanted)
        }
    }

    /// A buffer of an earlier output, kept for the next one (see `ScratchCache`).
    private struct KeptBuffer: @unchecked Sendable {
        // Owned by the cache alone while it is there: `take` hands it to exactly one output.
        var base: UnsafeMutablePointer<UInt8>
        var capacity: Int
    }

    private static let kept = ScratchCache<KeptBuffer>()

    /// Hands what is buffered to the drain (at the end of a streamed document).
    mutating func flush() {
        guard let drain, count > 0 else { return }
        drain.take(UnsafeRawBufferPointer(start: base, count: count))
        count = 0
    }

    /// The bytes written, as an array; gives the buffer back (`ScratchCache`). The value must not be used afterwards.
    mutating func finish() -> [UInt8] {
        let n = count
        let out = [UInt8](unsafeUninitializedCapacity: n) { buf, initialized in
            if n > 0 { buf.baseAddress!.update(from: base, count: n) }
            initialized = n
        }
        discard()
        return out
    }

    /// Frees the buffer without producing output (for error paths). Safe to call twice; appending afterwards
    /// starts a fresh buffer.
    mutating func discard() {
        if capacity > 0 {  // capacity 0 marks `base` as already freed
            if let other = Self.kept.give(KeptBuffer(base: base, capacity: capacity), bytes: capacity) { free(other.base) }
        }
        capacity = 0
        count = 0
    }

    /// Makes room for `n` more bytes.
    @inline(__always) mutating func reserve(_ n: Int) {
        if count + n > capacity { grow(count + n) }
    }

    @inline(never) private mutating func grow(_ wanted: Int) {
        var needed = wanted
        if let drain, count > 0 {
            // Streaming: hand the full buffer on and start again at its beginning.
            guard let rest = drain.makeRoom(base, count: &count, needed: needed, capacity: capacity) else { return }
            needed = rest
        }
        // Quadrupling, through `realloc`: a large block is moved by remapping its pages (mremap), so the bytes
        // written so far are neither copied nor faulted in again.
        var newCapacity = max(capacity * 4, 64)
        while newCapacity < needed { newCapacity *= 4 }
        base = Self.resize(capacity > 0 ? base : nil, to: newCapacity)
        capacity = newCapacity
    }

    /// `realloc`, which fails only when memory is exhausted (a trap, as Swift's own allocation).
    private static func resize(_ p: UnsafeMutablePointer<UInt8>?, to capacity: Int) -> UnsafeMutablePointer<UInt8> {
        guard let raw = realloc(p, capacity) else { fatalError("out of memory growing an output buffer to \(capacity) bytes") }
        return raw.assumingMemoryBound(to: UInt8.self)
    }

    @inline(__always) mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    @inline(__always) mutating func append(_ s: StaticString) {
        let n = s.utf8CodeUnitCount
        reserve(n)
        (base + count).update(from: s.utf8Start, count: n)
        count += n
    }

    @inline(__always) mutating func append(contentsOf buffer: UnsafeBufferPointer<UInt8>) {
        let n = buffer.count
        guard n > 0 else { return }
        reserve(n)
        (base + count).update(from: buffer.baseAddress!, count: n)
        count += n
    }

    /// Appends at most `maxCount` bytes that `body` writes in place and counts.
    @inline(__always) mutating func append(maxCount: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        reserve(maxCount)
        count += body(base + count)
    }

    @inline(__always) mutating func appendTabs(_ n: Int) {
        guard n > 0 else { return }
        reserve(n)
        (base + count).initialize(repeating: 0x09, count: n)
        count += n
    }

    @inline(__always) mutating func appendSpaces(_ n: Int) {
        guard n > 0 else { return }
        reserve(n)
        (base + count).initialize(repeating: 0x20, count: n)
        count += n
    }

    /// Appends a string's UTF-8.
    @inline(__always) mutating func append(utf8 s: String) {
        if s.utf8.withContiguousStorageIfAvailable({ append(contentsOf: $0) }) == nil {
            var copy = s
            copy.withUTF8 { append(contentsOf: $0) }
        }
    }

    @inline(__always) mutating func appendDecimal(_ v: PlistInteger) {
        append(maxCount: NumberFormatting.maxDecimalLength) { NumberFormatting.writeDecimal(v, into: $0) }
    }

    @inline(__always) mutating func appendDecimal(_ v: UInt64) {
        append(maxCount: NumberFormatting.maxDecimalLength) { NumberFormatting.writeDecimal(v, negative: false, into: $0) }
    }

    @inline(__always) mutating func appendG17(_ v: Double) {
        append(maxCount: NumberFormatting.maxG17Length) { NumberFormatting.writeG17(v, into: $0) }
    }

    /// Appends `buf` with some bytes escaped: runs of bytes that need nothing are copied whole, eight bytes at a time
    /// skipped while `wordIsPlain` says none of them needs an escape. The writers' string loops.
    @inline(__always)
    mutating func appendEscaping(
        _ buf: UnsafeBufferPointer<UInt8>, wordIsPlain: (UInt64) -> Bool, needsEscape: (UInt8) -> Bool,
        escape: (UInt8, inout RawOutput) -> Void
    ) {
        let n = buf.count
        var start = 0
        var i = 0
        while i < n {
            if i + 8 <= n, wordIsPlain(UnsafeRawPointer(buf.baseAddress! + i).loadUnaligned(as: UInt64.self)) {
                i += 8
                continue
            }
            let c = buf[i]
            if needsEscape(c) {
                if i > start { append(contentsOf: UnsafeBufferPointer(rebasing: buf[start..<i])) }
                escape(c, &self)
                start = i + 1
            }
            i += 1
        }
        if n > start { append(contentsOf: UnsafeBufferPointer(rebasing: buf[start..<n])) }
    }
}

/// Where a streaming writer's output goes, a buffer at a time: a file being written, standard output. The first
/// failure is kept (`error`) and later buffers are dropped; the writer's driver checks it and stops.
final class OutputDrain {
    private let write: (UnsafeRawBufferPointer) throws -> Void
    /// The first write that failed.
    private(set) var error: (any Error)?
    /// Bytes handed on so far.
    private(set) var written = 0

    /// Buffers of about this size are handed on.
    static let bufferSize = 1 << 20

    init(_ write: @escaping (UnsafeRawBufferPointer) throws -> Void) { self.write = write }

    /// For a buffer of `capacity` bytes holding `count` that must make room for `needed` in all: hands the `count`
    /// bytes on, empties the buffer, and returns how many bytes it must now hold — nil when it already can.
    func makeRoom(_ base: UnsafeMutablePointer<UInt8>, count: inout Int, needed: Int, capacity: Int) -> Int? {
        let extra = needed - count
        take(UnsafeRawBufferPointer(start: base, count: count))
        count = 0
        return extra <= capacity ? nil : extra
    }

    func take(_ bytes: UnsafeRawBufferPointer) {
        guard error == nil else { return }
        do {
            try write(bytes)
            written += bytes.count
        } catch {
            self.error = error
        }
    }
}

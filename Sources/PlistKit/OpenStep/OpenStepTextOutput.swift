/// The output buffer of the OpenStep, GNUstep and .strings writers: raw memory grown by doubling, so the hot path
/// is a capacity check and a store (an `[UInt8]` append also checks uniqueness on every byte).
///
/// It either owns its memory (the owner calls `finish()` or `discard()` exactly once) or starts in memory lent by the
/// caller — the storage of the result array, sized from an upper bound, so no final copy is needed. Should the lent
/// room ever run out, it moves to memory of its own and the lent storage is left alone.
struct OpenStepTextOutput {
    private(set) var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int
    /// False while writing into the caller's memory.
    private(set) var ownsMemory: Bool
    /// Where full buffers go when the output streams; nil keeps everything in memory.
    var drain: OutputDrain?

    /// A buffer of `OutputDrain.bufferSize` bytes that hands its contents to `drain` whenever it is full.
    init(streamingTo drain: OutputDrain) {
        self.init(capacity: OutputDrain.bufferSize)
        self.drain = drain
    }

    init(capacity: Int = 1 << 14) {
        self.capacity = capacity
        base = .allocate(capacity: capacity)
        ownsMemory = true
    }

    /// Writes into `capacity` bytes at `external`, which the caller owns.
    init(external: UnsafeMutablePointer<UInt8>, capacity: Int) {
        base = external
        self.capacity = capacity
        ownsMemory = false
    }

    /// Hands what is buffered to the drain (at the end of a streamed document).
    mutating func flush() {
        guard let drain, count > 0 else { return }
        drain.take(UnsafeRawBufferPointer(start: base, count: count))
        count = 0
    }

    /// The bytes written; an owned buffer is freed and must not be used again.
    mutating func finish() -> [UInt8] {
        let result = [UInt8](UnsafeBufferPointer(start: base, count: count))
        discard()
        return result
    }

    /// Frees an owned buffer without producing output (on an error path).
    mutating func discard() {
        if ownsMemory { base.deallocate() }
        ownsMemory = false
        count = 0
        capacity = 0
    }

    @inline(__always) mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(count + extra) }
    }

    private mutating func grow(_ wanted: Int) {
        var needed = wanted
        if let drain, count > 0 {
            // Streaming: hand the full buffer on and start again at its beginning.
            guard let rest = drain.makeRoom(base, count: &count, needed: needed, capacity: capacity) else { return }
            needed = rest
        }
        var newCapacity = max(capacity * 2, 64)
        while newCapacity < needed { newCapacity *= 2 }
        let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        bigger.initialize(from: base, count: count)
        if ownsMemory { base.deallocate() }
        ownsMemory = true
        base = bigger
        capacity = newCapacity
    }

    @inline(__always) mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    /// Stores without a capacity check; the caller has reserved room.
    @inline(__always) mutating func appendUnchecked(_ byte: UInt8) {
        base[count] = byte
        count += 1
    }

    /// Stores two bytes (a `UInt16` in memory order) without a capacity check.
    @inline(__always) mutating func appendUncheckedPair(_ pair: UInt16) {
        UnsafeMutableRawPointer(base + count).storeBytes(of: pair, as: UInt16.self)
        count += 2
    }

    /// Stores eight bytes (a `UInt64` in memory order) without a capacity check.
    @inline(__always) mutating func appendUncheckedWord(_ word: UInt64) {
        UnsafeMutableRawPointer(base + count).storeBytes(of: word, as: UInt64.self)
        count += 8
    }

    @inline(__always) mutating func append(_ s: StaticString) {
        append(UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
    }

    @inline(__always) mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count)
        (base + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Appends the padded base64 text of `bytes` (one line).
    mutating func appendBase64(_ bytes: UnsafeRawBufferPointer) {
        reserve(Base64.encodedLength(bytes.count))
        count += Base64.encode(bytes, into: base + count)
    }

    mutating func append(utf8 s: String) {
        var s = s
        s.withUTF8 { append($0) }
    }

    @inline(__always) mutating func append(repeating byte: UInt8, count n: Int) {
        guard n > 0 else { return }
        reserve(n)
        (base + count).initialize(repeating: byte, count: n)
        count += n
    }
}

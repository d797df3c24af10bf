/// Finds an earlier object with exactly the same encoded bytes: the writer's uniquing of scalars by value.
///
/// Each scalar type has one canonical encoding per value (minimal integers, reals and dates by bit pattern and
/// width, strings as ASCII when they can be, data as is) and the marker byte separates the types, so equal
/// encodings mean equal values of the same type. Working on bytes avoids hashing and comparing `String`s through
/// `Hasher`/`UTF8View`, which dominated the cost of writing. Open addressing with linear probing; the hash is
/// seeded per writer so crafted inputs cannot force collisions predictably.
struct BinaryWriterScalarUniquing {
    struct Slot {
        /// The low half of the hash (the table's index and a filter before the bytes are compared).
        var hash: UInt32
        /// The write that filled the slot: a slot of an earlier write is empty, so a kept table (`Storage`) is
        /// reused without clearing it.
        var generation: UInt32
        /// Object number + 1.
        var object: Int32
        /// Where the object's bytes start in the body buffer (the writer keeps the body below 4 GiB).
        var start: UInt32
    }

    /// A table kept between writes (`BinaryWriterObjects.Scratch`), with the generation its last write used.
    struct Storage: Sendable {
        var slots: [Slot]
        var generation: UInt32
    }

    private var slots: [Slot]
    private var mask: Int
    private var count = 0
    private let generation: UInt32
    private let seed: UInt64

    /// A table on `storage` when given (its slots all count as empty), else on 1,024 new slots.
    init(reusing storage: Storage? = nil) {
        if var storage, storage.slots.count >= 1024, storage.generation < UInt32.max {
            generation = storage.generation + 1
            slots = storage.slots
            storage.slots = []
        } else {
            generation = 1
            slots = Array(repeating: Slot(hash: 0, generation: 0, object: 0, start: 0), count: 1024)
        }
        mask = slots.count - 1
        var generator = SystemRandomNumberGenerator()
        seed = generator.next() | 1
    }

    /// Gives up the table for the next write.
    consuming func storage() -> Storage {
        Storage(slots: slots, generation: generation)
    }

    /// The table's memory in bytes.
    var bytes: Int { slots.count * MemoryLayout<Slot>.stride }

    /// The earlier object whose encoding equals `body[start...]` (the bytes just appended); otherwise records
    /// `newObject` as their owner and returns nil.
    mutating func existing(from start: Int, in body: UnsafeRawBufferPointer, newObject: Int) -> Int? {
        if count * 2 > mask { grow() }
        let bytes = UnsafeRawBufferPointer(rebasing: body[start...])
        let n = bytes.count
        let h = UInt32(truncatingIfNeeded: Self.hash(bytes, seed: seed))
        let mask = self.mask
        let generation = self.generation
        let found: Int? = slots.withUnsafeMutableBufferPointer { table in
            var i = Int(h) & mask
            while true {
                let slot = table[i]
                if slot.generation != generation {
                    table[i] = Slot(hash: h, generation: generation, object: Int32(truncatingIfNeeded: newObject + 1),
                                    start: UInt32(truncatingIfNeeded: start))
                    return nil
                }
                // Encodings are prefix-free (the marker fixes the length), so an earlier object whose bytes begin
                // with all of this encoding is this value.
                let s = Int(slot.start)
                if slot.hash == h, s + n <= start, SWAR.equal(bytes.baseAddress!, body.baseAddress! + s, count: n) {
                    return Int(slot.object) - 1
                }
                i = (i + 1) & mask
            }
        }
        if found == nil { count += 1 }
        return found
    }

    /// Doubles the table.
    private mutating func grow() {
        let old = slots
        let capacity = (mask + 1) * 2
        slots = Array(repeating: Slot(hash: 0, generation: 0, object: 0, start: 0), count: capacity)
        mask = capacity - 1
        let generation = self.generation
        slots.withUnsafeMutableBufferPointer { table in
            for slot in old where slot.generation == generation {
                var i = Int(slot.hash) & mask
                while table[i].generation == generation { i = (i + 1) & mask }
                table[i] = slot
            }
        }
    }

    /// A seeded hash over 8-byte words (short tails read as overlapping words, not byte by byte).
    @inline(__always) private static func hash(_ b: UnsafeRawBufferPointer, seed: UInt64) -> UInt64 {
        let n = b.count
        var h = seed ^ (UInt64(n) &* 0x9E37_79B9_7F4A_7C15)
        guard let p = b.baseAddress else { return mix(h) }
        if n >= 8 {
            var i = 0
            while i + 8 <= n {
                h = mix(h ^ p.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                i += 8
            }
            if i < n { h = mix(h ^ p.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)) }
        } else if n >= 4 {
            let a = UInt64(p.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
            let b = UInt64(p.loadUnaligned(fromByteOffset: n - 4, as: UInt32.self))
            h = mix(h ^ (a << 32 | b))
        } else {
            var tail: UInt64 = 0
            for i in 0..<n { tail = tail << 8 | UInt64(p.load(fromByteOffset: i, as: UInt8.self)) }
            h = mix(h ^ tail)
        }
        return mix(h)
    }

    @inline(__always) private static func mix(_ x: UInt64) -> UInt64 {
        // The 64-bit finaliser of MurmurHash3: full avalanche in a few multiplies.
        var z = x &* 0xFF51_AFD7_ED55_8CCD
        z ^= z >> 33
        z = z &* 0xC4CE_B9FE_1A85_EC53
        return z ^ (z >> 29)
    }
}

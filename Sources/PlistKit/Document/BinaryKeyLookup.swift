import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// Dictionary keys compared where they lie in a binary plist, for `BinaryPlistDocument`: a key is checked as the tree
// reader checks it (a string, inside the object area, validly encoded) and compared on its raw bytes — ASCII against
// the query's ASCII, UTF-16 against the query's UTF-16BE — without building a string (CoreFoundation's
// `__CFBinaryPlistGetOffsetForValueFromDictionary3` compares the same way).

/// A checked dictionary key in the file: where its characters start, how many there are (bytes of an ASCII key, code
/// units of a UTF-16 one), and for UTF-16 whether every unit is below 0x80 (`narrow`: then it is the same key as the
/// ASCII string of the units' low bytes, as the tree compares keys by scalars). `irregular`: an ASCII-marked key with
/// bytes ≥ 0x80 or a UTF-16 one with a lone surrogate, read as the tree reads it (ISO Latin-1; U+FFFD) and compared
/// through those UTF-16 units (`canonicalUnits`) — rare, so the slow way.
struct BinaryKey {
    var start: Int
    var count: Int
    var wide: Bool
    var narrow: Bool
    var irregular = false
}

/// A key path component, encoded once for a lookup: its UTF-8 when that is ASCII, its UTF-16BE always, and its hash
/// (`BinaryKeyHash`) for a dictionary index. Valid inside `BinaryKeyQuery.with` only.
struct BinaryKeyQuery {
    let ascii: UnsafeRawBufferPointer?
    let utf16: UnsafeRawBufferPointer
    let hash: UInt64

    /// Calls `body` with `key` encoded (on the stack for a short key).
    static func with<R>(_ key: String, seed: UInt64, _ body: (BinaryKeyQuery) throws -> R) rethrows -> R {
        var key = key
        let units = key.utf16.count
        return try withUnsafeTemporaryAllocation(byteCount: max(2 * units, 1), alignment: 2) { wide in
            var i = 0
            for u in key.utf16 {
                wide[2 * i] = UInt8(truncatingIfNeeded: u >> 8)
                wide[2 * i + 1] = UInt8(truncatingIfNeeded: u)
                i += 1
            }
            let utf16 = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(wide)[0 ..< 2 * units])
            return try key.withUTF8 { utf8 in
                let bytes = UnsafeRawBufferPointer(utf8)
                if utf8.count == units {  // (every scalar is one byte: ASCII)
                    let hash = BinaryKeyHash.bytes(bytes.baseAddress, bytes.count, seed)
                    return try body(BinaryKeyQuery(ascii: bytes, utf16: utf16, hash: hash))
                }
                let hash = BinaryKeyHash.bytes(utf16.baseAddress, utf16.count, seed ^ BinaryKeyHash.wideTag)
                return try body(BinaryKeyQuery(ascii: nil, utf16: utf16, hash: hash))
            }
        }
    }
}

/// A seeded hash of a key's characters for `BinaryDictionaryIndex`: ASCII and narrow UTF-16 keys hash their bytes
/// (so the two spellings of one key agree), other UTF-16 keys their UTF-16BE bytes under another seed. The seed is
/// random per document, so a file cannot be made of keys that collide.
enum BinaryKeyHash {
    static var wideTag: UInt64 { 0xA076_1D64_78BD_642F }

    @inline(__always) private static func mix(_ h: UInt64, _ word: UInt64) -> UInt64 {
        let x = (h ^ word) &* 0x9FB2_1C65_1E98_DF25
        return x ^ (x &>> 29)
    }

    @inline(__always) private static func start(_ count: Int, _ seed: UInt64) -> UInt64 {
        seed ^ (UInt64(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15)
    }

    @inline(__always) private static func finish(_ h: UInt64) -> UInt64 {
        let x = (h ^ (h &>> 32)) &* 0xD6E8_FEB8_6659_FD93
        return x ^ (x &>> 32)
    }

    /// The hash of `count` bytes at `p`, eight at a time (little-endian words, the last one zero-padded).
    @inline(__always) static func bytes(_ p: UnsafeRawPointer?, _ count: Int, _ seed: UInt64) -> UInt64 {
        var h = start(count, seed)
        guard let p, count > 0 else { return finish(h) }
        var i = 0
        while i + 8 <= count {
            h = mix(h, UInt64(littleEndian: p.loadUnaligned(fromByteOffset: i, as: UInt64.self)))
            i += 8
        }
        if i < count {
            var word: UInt64 = 0
            var shift: UInt64 = 0
            while i < count {
                word |= UInt64(p.load(fromByteOffset: i, as: UInt8.self)) &<< shift
                shift += 8
                i += 1
            }
            h = mix(h, word)
        }
        return finish(h)
    }

    /// What `bytes` gives for the low bytes of `count` big-endian UTF-16 units at `p` (a narrow key).
    static func lowBytes(_ p: UnsafeRawPointer, _ count: Int, _ seed: UInt64) -> UInt64 {
        var h = start(count, seed)
        var word: UInt64 = 0
        var shift: UInt64 = 0
        for i in 0 ..< count {
            word |= UInt64(p.load(fromByteOffset: 2 * i + 1, as: UInt8.self)) &<< shift
            shift += 8
            if shift == 64 {
                h = mix(h, word)
                word = 0
                shift = 0
            }
        }
        if shift > 0 { h = mix(h, word) }
        return finish(h)
    }
}

/// The entries of one large dictionary sorted by key hash, built once lookups have scanned it often, so later ones cost a
/// binary search: each element is the hash's high 32 bits above the entry's position, and of equal keys only the
/// entry the duplicate-key policy keeps is there. Sorted rather than hashed into a table because building it then
/// writes memory in order: a table of random slots took a cache miss per entry, 5× the time of the whole scan of
/// the keys. 8 bytes an entry.
struct BinaryDictionaryIndex: Sendable {
    let entries: [UInt64]
    /// What the index costs in memory.
    var bytes: Int { entries.count * MemoryLayout<UInt64>.stride }

    /// Whether a dictionary of `count` entries can be indexed (positions must fit the low 32 bits).
    static func canIndex(_ count: Int) -> Bool { count <= Int(UInt32.max) }

    /// The elements whose hash tag is `tag`: where they start (they run while the tag lasts).
    func first(withTag tag: UInt64) -> Int {
        entries.withUnsafeBufferPointer { e in
            var low = 0
            var high = e.count
            while low < high {
                let mid = (low + high) / 2
                if e[mid] >> 32 < tag { low = mid + 1 } else { high = mid }
            }
            return low
        }
    }

    /// Sorts `elements` by their high 32 bits, keeping the order of equal ones (so, built in entry order, they are
    /// sorted by tag and then position): four stable counting passes of 8 bits, each reading the elements once and
    /// writing them to 256 places in order (11-bit passes write to 2,048 and miss the TLB on every element).
    static func sortByTag(_ elements: inout [UInt64]) {
        let n = elements.count
        guard n > 4096 else { return elements.sort() }
        var other = [UInt64](repeating: 0, count: n)
        withUnsafeTemporaryAllocation(of: Int.self, capacity: 256) { counts in
            for shift: UInt64 in [32, 40, 48, 56] {
                elements.withUnsafeBufferPointer { from in
                    other.withUnsafeMutableBufferPointer { to in
                        counts.initialize(repeating: 0)
                        for v in from { counts[Int(truncatingIfNeeded: v &>> shift) & 255] += 1 }
                        var sum = 0
                        for i in 0 ..< 256 {
                            let c = counts[i]
                            counts[i] = sum
                            sum += c
                        }
                        for v in from {
                            let digit = Int(truncatingIfNeeded: v &>> shift) & 255
                            to[counts[digit]] = v
                            counts[digit] += 1
                        }
                    }
                }
                swap(&elements, &other)
            }
        }
    }
}

/// A query key of at most 14 ASCII bytes as the two (overlapping) words `BinaryObjectTable.scanShortASCIIKeys` loads
/// from a key object of the same length, for the pass over a dictionary's keys.
struct ShortASCIIQuery {
    let count: Int
    let head: UInt64
    let tail: UInt64

    init?(_ query: BinaryKeyQuery) {
        guard let ascii = query.ascii, ascii.count <= 14 else { return nil }
        count = ascii.count
        var padded: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &padded) { $0.copyMemory(from: ascii) }
        let (head, tail) = withUnsafeBytes(of: padded) { Self.words($0.baseAddress!, ascii.count) }
        self.head = head
        self.tail = tail
    }

    /// The first eight bytes and the last eight (the same word for eight or fewer, masked to the key's length).
    @inline(__always) static func words(_ p: UnsafeRawPointer, _ count: Int) -> (UInt64, UInt64) {
        if count == 0 { return (0, 0) }
        let first = p.loadUnaligned(as: UInt64.self)
        if count <= 8 {
            let word = count == 8 ? first : first & ((1 &<< UInt64(8 &* count)) &- 1)
            return (word, word)
        }
        return (first, p.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self))
    }
}

extension BinaryObjectTable {
    /// Key object `ref`, checked as the tree reader checks a key before it is used: a string (otherwise
    /// `nonStringKey`, or `cycle` for one of `path[0 ..< depth]`, the containers a lookup is inside), inside the object area
    /// (an irregular key is marked, not refused: the tree reader reads it as Core Foundation does).
    @inline(__always) func checkedKey(_ ref: Int, inside path: UnsafeMutableBufferPointer<Int>, depth: Int) throws -> BinaryKey {
        let offset = try objectOffset(ref)
        let marker = self.marker(at: offset)
        switch marker >> 4 {
        case 0x5:
            let (start, count) = try payload(Int(marker & 0x0F), unit: 1, at: offset)
            let irregular = Self.firstNonASCII(UnsafeRawBufferPointer(start: base + start, count: count)) != nil
            return BinaryKey(start: start, count: count, wide: false, narrow: false, irregular: irregular)
        case 0x6:
            let (start, units) = try payload(Int(marker & 0x0F), unit: 2, at: offset)
            let (narrow, irregular) = checkUTF16(start, units)
            return BinaryKey(start: start, count: units, wide: true, narrow: narrow, irregular: irregular)
        default:
            throw nonStringKey(ref, at: offset, inside: path, depth: depth)
        }
    }

    /// From entry `start` of a dictionary whose key references begin at `keyRefs`, the run of keys that are short
    /// ASCII-marked strings (marker 0x5n, n < 15) inside the object area — keys as `checkedKey` accepts them — each
    /// compared with `query` as two words. Returns where the run ends (at `count`, or at a key of another kind or a
    /// bad reference, which the caller takes through `checkedKey` and its errors) and the first entry of the run
    /// equal to `query` (with `stopAtMatch`, where the scan stops) or the last. A key holding bytes ≥ 0x80 reads as
    /// Latin-1 and so never equals an ASCII query, and its words differ from the query's: it needs no test of its
    /// own here. Wrapping arithmetic and no calls: this loop is a large dictionary's first lookup (measured on the
    /// 551,883 keys of a 92 MB library: 2.9 ms with a call, checked reads and a key-by-key ASCII test per key).
    func scanShortASCIIKeys(
        from start: Int, count: Int, keyRefs: Int, query: ShortASCIIQuery, stopAtMatch: Bool
    ) -> (end: Int, match: Int?) {
        let refSize = trailer.refSize
        let offsetSize = trailer.offsetSize
        let refShift = UInt64(64 &- 8 &* refSize)
        let offsetShift = UInt64(64 &- 8 &* offsetSize)
        let objectCount = UInt64(truncatingIfNeeded: trailer.objectCount)
        let offsets = base + trailer.offsetTableOffset
        let end = UInt64(truncatingIfNeeded: objectsEnd)
        let header = UInt64(BinaryTrailer.headerSize)
        let wanted = UInt8(0x50 | query.count)
        var match: Int?
        var i = start
        // Eight-byte loads stay inside the buffer: key references lie in the object area, offsets in the table,
        // and both are followed by the 32-byte trailer.
        var refAt = base + keyRefs + start &* refSize
        while i < count {
            let ref = UInt64(bigEndian: refAt.loadUnaligned(as: UInt64.self)) &>> refShift
            guard ref < objectCount else { break }
            let offset = UInt64(bigEndian: (offsets + Int(truncatingIfNeeded: ref) &* offsetSize).loadUnaligned(as: UInt64.self)) &>> offsetShift
            guard offset >= header, offset < end else { break }
            let object = base + Int(truncatingIfNeeded: offset)
            let marker = object.load(as: UInt8.self)
            guard marker & 0xF0 == 0x50, marker != 0x5F, offset &+ 1 &+ UInt64(marker & 0x0F) <= end else { break }
            if marker == wanted {
                let (head, tail) = ShortASCIIQuery.words(object + 1, query.count)
                if head == query.head, tail == query.tail {
                    match = i
                    if stopAtMatch { return (i, i) }
                }
            }
            i &+= 1
            refAt += refSize
        }
        return (i, match)
    }

    /// Key object `ref` of a dictionary whose keys have all been checked (`checkedKey`).
    @inline(__always) func knownKey(_ ref: Int) throws -> BinaryKey {
        let offset = try objectOffset(ref)
        let marker = self.marker(at: offset)
        let wide = marker >> 4 == 0x6
        let (start, count) = try payload(Int(marker & 0x0F), unit: wide ? 2 : 1, at: offset)
        if wide {
            let (narrow, irregular) = checkUTF16(start, count)
            return BinaryKey(start: start, count: count, wide: true, narrow: narrow, irregular: irregular)
        }
        let irregular = Self.firstNonASCII(UnsafeRawBufferPointer(start: base + start, count: count)) != nil
        return BinaryKey(start: start, count: count, wide: false, narrow: false, irregular: irregular)
    }

    @inline(__always) private func unit(_ start: Int, _ i: Int) -> UInt16 {
        UInt16(base.load(fromByteOffset: start + 2 * i, as: UInt8.self)) << 8
            | UInt16(base.load(fromByteOffset: start + 2 * i + 1, as: UInt8.self))
    }

    /// Of `units` UTF-16BE units at `start`: whether all are below 0x80, and whether one is a lone surrogate.
    @inline(__always) private func checkUTF16(_ start: Int, _ units: Int) -> (narrow: Bool, irregular: Bool) {
        var all: UInt16 = 0
        var i = 0
        while i < units {
            let u = unit(start, i)
            all |= u
            if u & 0xF800 == 0xD800 {
                guard u < 0xDC00, i + 1 < units, unit(start, i + 1) & 0xFC00 == 0xDC00 else { return (false, true) }
                i += 2
                continue
            }
            i += 1
        }
        return (all < 0x80, false)
    }

    /// The UTF-16 units of the string the tree reader makes of key `key`: Latin-1 bytes widened, lone surrogates
    /// replaced by U+FFFD.
    private func canonicalUnits(_ key: BinaryKey) -> [UInt16] {
        if !key.wide { return (0 ..< key.count).map { UInt16(base.load(fromByteOffset: key.start + $0, as: UInt8.self)) } }
        return Array(string(of: key).utf16)
    }

    /// The big-endian bytes of `canonicalUnits(key)`, as a query holds its key.
    private func canonicalBytes(_ key: BinaryKey) -> [UInt8] {
        canonicalUnits(key).flatMap { [UInt8(truncatingIfNeeded: $0 >> 8), UInt8(truncatingIfNeeded: $0)] }
    }

    @inline(never) private func nonStringKey(_ ref: Int, at offset: Int, inside path: UnsafeMutableBufferPointer<Int>, depth: Int) -> PlistError {
        // A container the lookup is inside is, to the tree reader, an object read again before it ends.
        if path[0 ..< depth].contains(ref) {
            return BinaryTrailer.error(.cycle, "object \(ref) contains itself (reference cycle)", at: offset)
        }
        return BinaryTrailer.error(.nonStringKey, "dictionary key (object \(ref)) is not a string", at: offset)
    }

    /// Whether checked keys `a` and `b` are the same key (the same scalars).
    @inline(__always) func keysEqual(_ a: BinaryKey, _ b: BinaryKey) -> Bool {
        if a.irregular || b.irregular { return canonicalUnits(a) == canonicalUnits(b) }
        guard a.count == b.count else { return false }
        switch (a.wide, b.wide) {
        case (false, false): return memcmp(base + a.start, base + b.start, a.count) == 0
        case (true, true): return memcmp(base + a.start, base + b.start, 2 * a.count) == 0
        case (false, true): return b.narrow && asciiEqualsNarrow(a, b)
        case (true, false): return a.narrow && asciiEqualsNarrow(b, a)
        }
    }

    private func asciiEqualsNarrow(_ ascii: BinaryKey, _ wide: BinaryKey) -> Bool {
        for i in 0 ..< ascii.count where base.load(fromByteOffset: ascii.start + i, as: UInt8.self) != UInt8(truncatingIfNeeded: unit(wide.start, i)) {
            return false
        }
        return true
    }

    /// Whether checked key `key` is the query's key.
    @inline(__always) func key(_ key: BinaryKey, equals query: BinaryKeyQuery) -> Bool {
        if key.irregular { return canonicalBytes(key).elementsEqual(query.utf16) }
        if key.wide {
            guard 2 * key.count == query.utf16.count else { return false }
            return key.count == 0 || memcmp(base + key.start, query.utf16.baseAddress!, 2 * key.count) == 0
        }
        guard let ascii = query.ascii, ascii.count == key.count else { return false }
        return key.count == 0 || memcmp(base + key.start, ascii.baseAddress!, key.count) == 0
    }

    /// `key`'s hash, as `BinaryKeyQuery` hashes the same key.
    @inline(__always) func hash(_ key: BinaryKey, seed: UInt64) -> UInt64 {
        if key.irregular {
            // Never narrow (a byte ≥ 0x80 or U+FFFD): hashed as a query hashes its UTF-16BE.
            return canonicalBytes(key).withUnsafeBytes { BinaryKeyHash.bytes($0.baseAddress, $0.count, seed ^ BinaryKeyHash.wideTag) }
        }
        if !key.wide { return BinaryKeyHash.bytes(base + key.start, key.count, seed) }
        if key.narrow { return BinaryKeyHash.lowBytes(base + key.start, key.count, seed) }
        return BinaryKeyHash.bytes(base + key.start, 2 * key.count, seed ^ BinaryKeyHash.wideTag)
    }

    /// The string of checked key `key`, as the tree reader reads it.
    func string(of key: BinaryKey) -> String {
        let bytes = UnsafeRawBufferPointer(start: base + key.start, count: key.count)
        if !key.wide { return key.irregular ? Self.latin1(bytes) : String(decoding: bytes, as: UTF8.self) }
        return String(decoding: (0 ..< key.count).map { unit(key.start, $0) }, as: UTF16.self)
    }
}

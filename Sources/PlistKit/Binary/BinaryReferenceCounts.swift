/// A first pass over a binary plist that counts, per object, the references to it held by every array and
/// dictionary in the offset table (saturating at 2), so the decoder only remembers objects that can be met twice.
///
/// The pass tolerates anything malformed (the decoder reports it) and over-counts rather than under-counts: an
/// object scanned twice only costs an extra memo entry. Its work is bounded like the decoder's: once the container
/// spans scanned exceed twice the object area it gives up, and the decoder then remembers everything.
enum BinaryReferenceCounts {
    /// The counts (to be deallocated by the caller), or nil when the pass gave up.
    static func count(base: UnsafeRawPointer, trailer: BinaryTrailer) -> UnsafeMutablePointer<UInt8>? {
        let count = trailer.objectCount
        let end = trailer.offsetTableOffset
        let refSize = trailer.refSize
        let offsetSize = trailer.offsetSize
        let counts = UnsafeMutablePointer<UInt8>.allocate(capacity: count)
        counts.initialize(repeating: 0, count: count)
        var budget = 2 * end
        for i in 0..<count {
            // Compared before converting: an 8-byte entry can exceed Int.max.
            let entry = read(base, end + i * offsetSize, offsetSize)
            guard entry >= UInt64(BinaryTrailer.headerSize), entry < UInt64(end) else { continue }
            let offset = Int(entry)
            let marker = base.load(fromByteOffset: offset, as: UInt8.self)
            let kind = marker >> 4
            guard kind == 0xA || kind == 0xD else { continue }
            var n = Int(marker & 0x0F)
            var start = offset + 1
            if n == 0xF {
                guard offset + 2 <= end else { continue }
                let m = base.load(fromByteOffset: offset + 1, as: UInt8.self)
                guard m >> 4 == 0x1, m & 0x0F <= 3 else { continue }
                let size = 1 << Int(m & 0x0F)
                guard offset + 2 + size <= end else { continue }
                let v = read(base, offset + 2, size)
                guard v <= UInt64(end) else { continue }
                n = Int(v)
                start = offset + 2 + size
            }
            let refs = kind == 0xD ? 2 * n : n
            let stop = start + refs * refSize
            guard stop <= end else { continue }
            budget -= stop - offset
            guard budget >= 0 else {
                counts.deallocate()
                return nil
            }
            var p = start
            while p < stop {
                let ref = read(base, p, refSize)
                if ref < UInt64(count), counts[Int(ref)] < 2 { counts[Int(ref)] += 1 }
                p += refSize
            }
        }
        return counts
    }

    @inline(__always) private static func read(_ base: UnsafeRawPointer, _ offset: Int, _ size: Int) -> UInt64 {
        switch size {
        case 1: return UInt64(base.load(fromByteOffset: offset, as: UInt8.self))
        case 2: return UInt64(UInt16(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
        case 4: return UInt64(UInt32(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        case 8: return UInt64(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        default:
            var v: UInt64 = 0
            for i in 0..<size { v = v << 8 | UInt64(base.load(fromByteOffset: offset + i, as: UInt8.self)) }
            return v
        }
    }
}

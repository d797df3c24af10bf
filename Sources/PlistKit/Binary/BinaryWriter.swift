/// Writes binary property lists (`bplist00`), deterministically and compactly.
///
/// Layout, as Python's `plistlib` and Core Foundation write it: objects in pre-order (dictionary keys, then values),
/// equal strings, integers, reals, dates and data written once (reals and dates compared by bits), `true` and
/// `false` once, collections never shared; reference and offset widths the smallest of 1, 2, 4, 8 bytes that fit the
/// object count and the offset-table offset. With `sortKeys` (the default) dictionary keys are written in Unicode
/// scalar order and the bytes equal `plistlib.dumps(value, fmt=FMT_BINARY)` for values Python can represent
/// (Python writes every real as 8 bytes, so 4-byte reals are the exception).
enum BinaryWriter {
    static func write(_ value: PlistValue, options: PlistWriteOptions) throws -> [UInt8] {
        var table = BinaryWriterObjects(options: options)
        _ = try table.add(value, depth: 0)
        let bytes = assemble(table)
        table.keepScratch()
        return bytes
    }

    /// Interleaves the encoded objects with their references, then appends the offset table and trailer.
    private static func assemble(_ table: BinaryWriterObjects) -> [UInt8] {
        let count = table.objectCount
        let refSize = byteWidth(UInt64(count))
        let tableOffset = BinaryTrailer.headerSize + table.body.count + table.refs.count * refSize
        let offsetSize = byteWidth(UInt64(tableOffset))
        let total = tableOffset + count * offsetSize + BinaryTrailer.trailerSize
        return [UInt8](unsafeUninitializedCapacity: total) { out, initialized in
            guard let p = UnsafeMutableRawPointer(out.baseAddress) else { return }
            for (i, byte) in "bplist00".utf8.enumerated() { p.storeBytes(of: byte, toByteOffset: i, as: UInt8.self) }
            var position = BinaryTrailer.headerSize
            var bodyStart = 0
            var refsStart = 0
            table.body.withUnsafeBytes { body in
                table.refs.withUnsafeBufferPointer { refs in
                    for i in 0..<count {
                        store(UInt64(position), size: offsetSize, at: p + tableOffset + i * offsetSize)
                        let end = table.ends[i]
                        let bodyEnd = Int(end.body)
                        let length = bodyEnd - bodyStart
                        if length > 0, let src = body.baseAddress {
                            (p + position).copyMemory(from: src + bodyStart, byteCount: length)
                        }
                        position += length
                        bodyStart = bodyEnd
                        let refsEnd = Int(end.refs)
                        while refsStart < refsEnd {
                            store(UInt64(refs[refsStart]), size: refSize, at: p + position)
                            position += refSize
                            refsStart += 1
                        }
                    }
                }
            }
            // Trailer: 5 unused bytes, sort version 0, the two widths, object count, top object (0), table offset.
            let trailer = p + tableOffset + count * offsetSize
            trailer.initializeMemory(as: UInt8.self, repeating: 0, count: 6)
            trailer.storeBytes(of: UInt8(offsetSize), toByteOffset: 6, as: UInt8.self)
            trailer.storeBytes(of: UInt8(refSize), toByteOffset: 7, as: UInt8.self)
            store(UInt64(count), size: 8, at: trailer + 8)
            store(0, size: 8, at: trailer + 16)
            store(UInt64(tableOffset), size: 8, at: trailer + 24)
            initialized = total
        }
    }

    /// The smallest of 1, 2, 4, 8 bytes that holds `n` (CF's `_byteCount`, Python's `_count_to_size`).
    static func byteWidth(_ n: UInt64) -> Int {
        n < 1 << 8 ? 1 : n < 1 << 16 ? 2 : n < 1 << 32 ? 4 : 8
    }

    @inline(__always) private static func store(_ v: UInt64, size: Int, at p: UnsafeMutableRawPointer) {
        switch size {
        case 1: p.storeBytes(of: UInt8(truncatingIfNeeded: v), as: UInt8.self)
        case 2: p.storeBytes(of: UInt16(truncatingIfNeeded: v).bigEndian, as: UInt16.self)
        case 4: p.storeBytes(of: UInt32(truncatingIfNeeded: v).bigEndian, as: UInt32.self)
        default: p.storeBytes(of: v.bigEndian, as: UInt64.self)
        }
    }
}

/// Serialises a `BookContainer` the way Apple does: header, data items, then the TOCs, entries sorted by key.
enum BookWriter {
    static func write(_ container: BookContainer, limits: BookLimits) throws(BookmarkError) -> [UInt8] {
        var out: [UInt8] = Array("book".utf8)
        out.reserveCapacity(1024)
        append32(&out, 0)                                     // total size, patched below
        append32(&out, container.version)
        append32(&out, UInt32(BookContainer.standardHeaderSize))
        var reserved = Array(container.reserved.prefix(32))
        reserved += [UInt8](repeating: 0, count: 32 - reserved.count)
        out += reserved
        let h = out.count
        append32(&out, 0)                                     // first TOC offset, patched below

        // Data items first; remember every TOC's (raw key, value offset) pairs.
        var tocEntries: [[(UInt32, UInt32)]] = []
        for toc in container.tocs {
            var entries: [(UInt32, UInt32)] = []
            for e in toc.entries {
                let raw: UInt32
                switch e.key {
                case .numeric(let k):
                    guard k & 0x8000_0000 == 0 else { throw .invalidArgument("numeric key \(e.key) has the string-key bit set") }
                    raw = k
                case .string(let s):
                    raw = try emit(.string(s), into: &out, base: h, limits: limits) | 0x8000_0000
                }
                entries.append((raw, try emit(e.value, into: &out, base: h, limits: limits)))
            }
            entries.sort { $0.0 < $1.0 }
            for i in entries.indices.dropFirst() where entries[i].0 == entries[i - 1].0 {
                throw .invalidArgument("duplicate key 0x\(String(entries[i].0, radix: 16))")
            }
            tocEntries.append(entries)
        }
        // TOCs last, chained in order.
        var tocStarts: [Int] = []
        for (i, toc) in container.tocs.enumerated() {
            tocStarts.append(out.count)
            let entries = tocEntries[i]
            append32(&out, UInt32(12 + 12 * entries.count))
            append32(&out, 0xFFFF_FFFE)
            append32(&out, toc.id)
            append32(&out, 0)                                 // next TOC, patched below
            append32(&out, UInt32(entries.count))
            for (k, v) in entries {
                append32(&out, k)
                append32(&out, v)
                append32(&out, 0)
            }
        }
        guard out.count <= limits.maxOutputSize else { throw .bookmarkTooLarge(size: out.count, limit: limits.maxOutputSize) }
        patch32(&out, 4, UInt32(out.count))
        if let first = tocStarts.first { patch32(&out, h, UInt32(first - h)) }
        for i in tocStarts.indices.dropLast() {
            patch32(&out, tocStarts[i] + 12, UInt32(tocStarts[i + 1] - h))
        }
        return out
    }

    /// Appends one item (children first) and returns its offset relative to the header end.
    static func emit(_ value: BookValue, into out: inout [UInt8], base: Int, limits: BookLimits) throws(BookmarkError) -> UInt32 {
        guard out.count <= limits.maxOutputSize else { throw .bookmarkTooLarge(size: out.count, limit: limits.maxOutputSize) }
        var type: UInt32
        var body: [UInt8] = []
        switch value {
        case .string(let s): type = 0x0101; body = Array(s.utf8)
        case .data(let d): type = 0x0201; body = d
        case .integer(let v, let subtype):
            type = 0x0300 | UInt32(subtype)
            switch subtype {
            case 1: body = [UInt8(truncatingIfNeeded: v)]
            case 2: body = le(UInt64(bitPattern: v), 2)
            case 3: body = le(UInt64(bitPattern: v), 4)
            default: type = 0x0304; body = le(UInt64(bitPattern: v), 8)
            }
        case .real(let d, let subtype):
            if subtype == 5 { type = 0x0305; body = le(UInt64(Float(d).bitPattern), 4) }
            else { type = 0x0306; body = le(d.bitPattern, 8) }
        case .date(let d):
            type = 0x0400
            body = le(d.bitPattern, 8).reversed()
        case .bool(let b): type = b ? 0x0501 : 0x0500
        case .array(let items):
            type = 0x0601
            for item in items { body += le(UInt64(try emit(item, into: &out, base: base, limits: limits)), 4) }
        case .dictionary(let pairs):
            type = 0x0701
            for p in pairs {
                body += le(UInt64(try emit(p.key, into: &out, base: base, limits: limits)), 4)
                body += le(UInt64(try emit(p.value, into: &out, base: base, limits: limits)), 4)
            }
        case .uuid(let u):
            guard u.count == 16 else { throw .invalidArgument("UUID items hold 16 bytes, not \(u.count)") }
            type = 0x0801; body = u
        case .url(let s): type = 0x0901; body = Array(s.utf8)
        case .relativeURL(let b, let r):
            type = 0x0902
            body = le(UInt64(try emit(b, into: &out, base: base, limits: limits)), 4)
            body += le(UInt64(try emit(r, into: &out, base: base, limits: limits)), 4)
        case .null: type = 0x0A01
        case .unknown(let t, let bytes): type = t; body = bytes
        }
        guard out.count + 8 + body.count <= limits.maxOutputSize else {
            throw .bookmarkTooLarge(size: out.count + 8 + body.count, limit: limits.maxOutputSize)
        }
        let offset = UInt32(out.count - base)
        append32(&out, UInt32(body.count))
        append32(&out, type)
        out += body
        while out.count % 4 != 0 { out.append(0) }
        return offset
    }

    static func le(_ v: UInt64, _ n: Int) -> [UInt8] {
        (0..<n).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) }
    }
    static func append32(_ out: inout [UInt8], _ v: UInt32) {
        out.append(UInt8(truncatingIfNeeded: v)); out.append(UInt8(truncatingIfNeeded: v >> 8))
        out.append(UInt8(truncatingIfNeeded: v >> 16)); out.append(UInt8(truncatingIfNeeded: v >> 24))
    }
    static func patch32(_ out: inout [UInt8], _ at: Int, _ v: UInt32) {
        out[at] = UInt8(truncatingIfNeeded: v); out[at + 1] = UInt8(truncatingIfNeeded: v >> 8)
        out[at + 2] = UInt8(truncatingIfNeeded: v >> 16); out[at + 3] = UInt8(truncatingIfNeeded: v >> 24)
    }
}

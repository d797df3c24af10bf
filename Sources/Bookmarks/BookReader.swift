/// The strict, bounded parser behind `BookContainer.read`.
struct BookReader {
    let bytes: UnsafeRawBufferPointer
    let limits: BookLimits
    var headerSize = 0
    var visits = 0
    /// Decoded items by absolute offset: a shared item is decoded once, so repeated references cost no memory.
    var cache: [Int: BookValue] = [:]
    var inProgress: Set<Int> = []

    init(bytes: UnsafeRawBufferPointer, limits: BookLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    func fail(_ reason: BookmarkError.Corruption, _ offset: Int) -> BookmarkError {
        .corruptData(reason, offset: offset)
    }

    func u32(_ at: Int) throws(BookmarkError) -> UInt32 {
        guard at >= 0, at <= bytes.count - 4 else { throw fail(.truncated(needed: at + 4, available: bytes.count), max(0, at)) }
        return UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }

    func u64(_ at: Int) -> UInt64 {
        var v: UInt64 = 0
        for i in 0..<8 { v |= UInt64(bytes[at + i]) << (8 * UInt64(i)) }
        return v
    }

    /// Absolute position of a data-area offset, checked for alignment and range (`room` bytes must follow).
    func absolute(_ offset: UInt32, room: Int, at site: Int) throws(BookmarkError) -> Int {
        let position = headerSize + Int(offset)
        guard offset % 4 == 0 else { throw fail(.misalignedOffset(Int(offset)), site) }
        guard position <= bytes.count - room else { throw fail(.offsetOutOfRange(Int(offset)), site) }
        return position
    }

    mutating func readContainer() throws(BookmarkError) -> BookContainer {
        guard bytes.count <= limits.maxInputSize else { throw fail(.tooLarge(size: bytes.count, limit: limits.maxInputSize), 0) }
        guard bytes.count >= 16 else { throw fail(.truncated(needed: 16, available: bytes.count), 0) }
        guard bytes[0] == 0x62, bytes[1] == 0x6F, bytes[2] == 0x6F, bytes[3] == 0x6B else { throw fail(.badMagic, 0) }
        let declared = Int(try u32(4))
        guard declared == bytes.count else { throw fail(.sizeMismatch(declared: declared, actual: bytes.count), 4) }
        let version = try u32(8)
        let h = Int(try u32(12))
        guard h >= 16, h % 4 == 0, h <= bytes.count - 4 else { throw fail(.badHeaderSize(h), 12) }
        headerSize = h
        let reserved = Array(UnsafeRawBufferPointer(rebasing: bytes[16..<h]))
        var tocs: [BookContainer.TOC] = []
        var seen: Set<UInt32> = []
        var next = try u32(h)
        var site = h
        while true {
            guard tocs.count < limits.maxTOCs else { throw fail(.tooManyTOCs(limit: limits.maxTOCs), site) }
            guard seen.insert(next).inserted else { throw fail(.tocLoop, site) }
            let (toc, following, at) = try readTOC(next, site: site)
            tocs.append(toc)
            if following == 0 { break }
            next = following
            site = at + 12
        }
        var container = BookContainer(version: version, reserved: reserved, tocs: tocs)
        container.headerSize = h
        return container
    }

    mutating func readTOC(_ offset: UInt32, site: Int) throws(BookmarkError) -> (BookContainer.TOC, UInt32, Int) {
        let at = try absolute(offset, room: 20, at: site)
        let size = Int(try u32(at))
        let magic = try u32(at + 4)
        guard magic == 0xFFFF_FFFE else { throw fail(.badTOCMagic(magic), at + 4) }
        let id = try u32(at + 8)
        let next = try u32(at + 12)
        let count = Int(try u32(at + 16))
        guard count <= (bytes.count - at - 20) / 12 else { throw fail(.badTOCSize(declared: size, count: count), at + 16) }
        // Apple writes 12 + 12·count; mac_alias writes 12·count − 8. Accept both, reject less.
        guard size >= 12 * count - 8 else { throw fail(.badTOCSize(declared: size, count: count), at) }
        var entries: [BookContainer.Entry] = []
        entries.reserveCapacity(count)
        var previous: UInt32? = nil
        for i in 0..<count {
            let e = at + 20 + 12 * i
            let rawKey = try u32(e)
            if let p = previous, rawKey <= p { throw fail(.tocNotSorted(key: rawKey), e) }
            previous = rawKey
            let key: BookKey
            if rawKey & 0x8000_0000 != 0 {
                guard case .string(let s) = try item(rawKey & 0x7FFF_FFFF, site: e, depth: 1) else { throw fail(.badStringKey, e) }
                key = .string(s)
            } else {
                key = .numeric(rawKey)
            }
            let valueOffset = try u32(e + 4)
            let value = try item(valueOffset, site: e + 4, depth: 1)
            entries.append(BookContainer.Entry(key: key, value: value, offset: headerSize + Int(valueOffset)))
        }
        return (BookContainer.TOC(id: id, entries: entries), next, at)
    }

    mutating func item(_ offset: UInt32, site: Int, depth: Int) throws(BookmarkError) -> BookValue {
        visits += 1
        guard visits <= limits.maxItemVisits else { throw fail(.tooManyItems(limit: limits.maxItemVisits), site) }
        guard depth <= limits.maxDepth else { throw fail(.nestingTooDeep(limit: limits.maxDepth), site) }
        let at = try absolute(offset, room: 8, at: site)
        if let cached = cache[at] { return cached }
        guard inProgress.insert(at).inserted else { throw fail(.itemLoop, site) }
        defer { inProgress.remove(at) }
        let length = Int(try u32(at))
        let type = try u32(at + 4)
        let start = at + 8
        guard length <= bytes.count - start else { throw fail(.badItemLength(type: type, length: length), at) }
        let body = UnsafeRawBufferPointer(rebasing: bytes[start..<(start + length)])
        let value = try decode(type: type, body: body, at: at, depth: depth)
        cache[at] = value
        return value
    }

    func string(_ body: UnsafeRawBufferPointer, at: Int) throws(BookmarkError) -> String {
        guard let s = String(validating: body, as: UTF8.self) else { throw fail(.invalidUTF8, at + 8) }
        return s
    }

    mutating func decode(type: UInt32, body: UnsafeRawBufferPointer, at: Int, depth: Int) throws(BookmarkError) -> BookValue {
        let length = body.count
        func need(_ n: Int) throws(BookmarkError) {
            guard length == n else { throw BookmarkError.corruptData(.badItemLength(type: type, length: length), offset: at) }
        }
        func le(_ n: Int) -> UInt64 {
            var v: UInt64 = 0
            for i in 0..<n { v |= UInt64(body[i]) << (8 * UInt64(i)) }
            return v
        }
        switch type {
        case 0x0101: return .string(try string(body, at: at))
        case 0x0201: return .data(Array(body))
        case 0x0301: try need(1); return .integer(Int64(Int8(bitPattern: body[0])), subtype: 1)
        case 0x0302: try need(2); return .integer(Int64(Int16(bitPattern: UInt16(le(2)))), subtype: 2)
        case 0x0303: try need(4); return .integer(Int64(Int32(bitPattern: UInt32(le(4)))), subtype: 3)
        case 0x0304: try need(8); return .integer(Int64(bitPattern: le(8)), subtype: 4)
        case 0x0305: try need(4); return .real(Double(Float(bitPattern: UInt32(le(4)))), subtype: 5)
        case 0x0306: try need(8); return .real(Double(bitPattern: le(8)), subtype: 6)
        case 0x0400:
            try need(8)
            var v: UInt64 = 0
            for i in 0..<8 { v = v << 8 | UInt64(body[i]) }
            return .date(Double(bitPattern: v))
        case 0x0500: return .bool(false)
        case 0x0501: return .bool(true)
        case 0x0601:
            guard length % 4 == 0 else { throw fail(.badItemLength(type: type, length: length), at) }
            var out: [BookValue] = []
            out.reserveCapacity(length / 4)
            for i in stride(from: 0, to: length, by: 4) {
                out.append(try item(UInt32(le32(body, i)), site: at + 8 + i, depth: depth + 1))
            }
            return .array(out)
        case 0x0701:
            guard length % 8 == 0 else { throw fail(.badItemLength(type: type, length: length), at) }
            var out: [BookPair] = []
            out.reserveCapacity(length / 8)
            for i in stride(from: 0, to: length, by: 8) {
                let k = try item(le32(body, i), site: at + 8 + i, depth: depth + 1)
                let v = try item(le32(body, i + 4), site: at + 12 + i, depth: depth + 1)
                out.append(BookPair(key: k, value: v))
            }
            return .dictionary(out)
        case 0x0801: try need(16); return .uuid(Array(body))
        case 0x0901: return .url(try string(body, at: at))
        case 0x0902:
            try need(8)
            let base = try item(le32(body, 0), site: at + 8, depth: depth + 1)
            let relative = try item(le32(body, 4), site: at + 12, depth: depth + 1)
            return .relativeURL(base: base, relative: relative)
        default:
            if type & 0xFFFF_FF00 == 0x0A00 { return .null }
            return .unknown(type: type, bytes: Array(body))
        }
    }

    func le32(_ body: UnsafeRawBufferPointer, _ i: Int) -> UInt32 {
        UInt32(body[i]) | UInt32(body[i + 1]) << 8 | UInt32(body[i + 2]) << 16 | UInt32(body[i + 3]) << 24
    }
}

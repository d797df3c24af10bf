/// The validated header and 32-byte trailer of a `bplist00` document (the layout of CoreFoundation's
/// `CFBinaryPList.c`: `CFBinaryPlistTrailer` and the checks of `__CFBinaryPlistGetTopLevelInfo`).
///
/// Construction checks everything that can be checked without touching objects, so the object reader can trust
/// that the offset table lies inside the file and that every field fits its width.
struct BinaryTrailer {
    /// Bytes per entry in the offset table (1…8).
    let offsetSize: Int
    /// Bytes per object reference inside arrays and dictionaries (1…8).
    let refSize: Int
    /// Number of objects (and offset-table entries).
    let objectCount: Int
    /// Index of the root object.
    let topObject: Int
    /// Where the offset table starts; objects must lie in `8 ..< offsetTableOffset`.
    let offsetTableOffset: Int

    static let headerSize = 8
    static let trailerSize = 32

    init(_ b: UnsafeRawBufferPointer, options: PlistReadOptions) throws {
        let n = b.count
        // Magic first, so a short non-bplist input gets the more useful message.
        let magic: [UInt8] = Array("bplist".utf8)
        for i in 0..<min(6, n) where b[i] != magic[i] {
            throw BinaryTrailer.error(.syntax, "not a binary property list (no 'bplist' magic)", at: i)
        }
        if n >= 8 {
            guard b[6] == 0x30 else {
                let version = String(decoding: [b[6], b[7]], as: UTF8.self)
                throw BinaryTrailer.error(.unsupportedVersion, "unsupported binary plist version 'bplist\(version)'", at: 6)
            }
        }
        // Smallest possible document: header, one 1-byte object, one 1-byte offset entry, trailer.
        guard n >= Self.headerSize + 2 + Self.trailerSize else {
            throw BinaryTrailer.error(.truncated, "binary property list is too short (\(n) bytes) to hold a header, an object, its offset and the trailer (\(Self.headerSize + 2 + Self.trailerSize) bytes)", at: n)
        }
        let t = n - Self.trailerSize
        // CF writes the trailer's first five bytes as zeros. When they are not and the trailer is wrong anyway, the
        // likeliest story is a file cut short (the last 32 bytes are object data): say so.
        let unusedAreZero = (0..<5).allSatisfy { b[t + $0] == 0 }
        func fail(_ kind: PlistError.Kind, _ message: String, at offset: Int) -> PlistError {
            if unusedAreZero { return BinaryTrailer.error(kind, message, at: offset) }
            return BinaryTrailer.error(
                .truncated, "no trailer in the last 32 bytes (its unused bytes are not zero): the file looks truncated (\(message))", at: t)
        }
        let offsetSize = Int(b[t + 6])
        let refSize = Int(b[t + 7])
        guard (1...8).contains(offsetSize) else {
            throw fail(.syntax, "trailer offset size \(offsetSize) is not between 1 and 8", at: t + 6)
        }
        guard (1...8).contains(refSize) else {
            throw fail(.syntax, "trailer object reference size \(refSize) is not between 1 and 8", at: t + 7)
        }
        let count = BinaryTrailer.uint64(b, t + 8)
        let top = BinaryTrailer.uint64(b, t + 16)
        let tableOffset = BinaryTrailer.uint64(b, t + 24)
        guard count >= 1 else {
            throw fail(.invalidReference, "trailer object count is 0", at: t + 8)
        }
        // Each offset entry takes at least one byte, so a count above the file size is a lie; checking it here also
        // keeps every later multiplication far from overflow.
        guard count <= UInt64(n) else {
            throw fail(.truncated, "trailer claims \(count) objects, more than the file can hold", at: t + 8)
        }
        guard count <= UInt64(max(options.maxObjectCount, 0)) else {
            throw fail(.countLimit, "\(count) objects exceed the limit of \(options.maxObjectCount)", at: t + 8)
        }
        guard top < count else {
            throw fail(.invalidReference, "top object \(top) is not below the object count \(count)", at: t + 16)
        }
        guard tableOffset >= UInt64(Self.headerSize + 1), tableOffset < UInt64(t) else {
            throw fail(.invalidReference, "offset table offset \(tableOffset) points outside the object area", at: t + 24)
        }
        // The widths must be able to express the counts they index (CF's checks).
        guard refSize == 8 || count < (UInt64(1) << (8 * UInt64(refSize))) else {
            throw fail(.invalidReference, "object reference size \(refSize) is too small for \(count) objects", at: t + 7)
        }
        guard offsetSize == 8 || tableOffset < (UInt64(1) << (8 * UInt64(offsetSize))) else {
            throw fail(.invalidReference, "offset size \(offsetSize) is too small for offset table offset \(tableOffset)", at: t + 6)
        }
        let tableEnd = Int(tableOffset) + Int(count) * offsetSize
        if tableEnd > t {
            throw fail(.truncated, "offset table (\(count) × \(offsetSize) bytes at \(tableOffset)) runs into the trailer", at: Int(tableOffset))
        }
        if tableEnd < t {
            // CF rejects bytes between the offset table and the trailer; so do we.
            throw fail(.syntax, "\(t - tableEnd) unexpected bytes between the offset table and the trailer", at: tableEnd)
        }
        self.offsetSize = offsetSize
        self.refSize = refSize
        self.objectCount = Int(count)
        self.topObject = Int(top)
        self.offsetTableOffset = Int(tableOffset)
    }

    @inline(__always) static func uint64(_ b: UnsafeRawBufferPointer, _ at: Int) -> UInt64 {
        UInt64(bigEndian: b.loadUnaligned(fromByteOffset: at, as: UInt64.self))
    }

    static func error(_ kind: PlistError.Kind, _ message: String, at offset: Int) -> PlistError {
        PlistError(kind, message, format: .binary, offset: offset)
    }
}

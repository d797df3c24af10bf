/// Reads binary property lists (`bplist00`, and `bplist0?` as Core Foundation accepts).
///
/// Accepts offset and reference widths 1…8, integers of 1/2/4/8/16 bytes, 4- and 8-byte reals (a 4-byte real keeps
/// its width in `PlistReal.isFloat32`), ASCII and UTF-16 strings, data, dates, UIDs, arrays, dictionaries and shared
/// subtrees. Rejects, with a `PlistError` carrying the byte offset: truncation, out-of-range trailer fields and
/// references, cycles, nesting past `maxDepth`, invalid text, unknown markers and other versions (`bplist1?`).
///
/// UIDs are 64-bit, as plistlib reads them (`NSKeyedArchiver` writes at most 32 bits; CF and libplist refuse
/// larger UIDs in binary, and CF cuts an XML `CF$UID` to its low 32 bits): a UID is never silently truncated.
/// A length may be written as a 16-byte integer, as CF and libplist read it, but not past 64 bits.
enum BinaryReader {
    static func read(_ bytes: UnsafeRawBufferPointer, options: PlistReadOptions) throws -> PlistValue {
        let trailer = try BinaryTrailer(bytes, options: options)
        return try BinaryObjectReader.readRoot(bytes, trailer: trailer, options: options)
    }
}

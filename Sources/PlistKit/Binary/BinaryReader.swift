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
        try read(bytes, trailer: try BinaryTrailer(bytes, options: options), options: options)
    }

    /// The value of object `top` (the root when nil) of a document whose trailer is checked.
    static func read(
        _ bytes: UnsafeRawBufferPointer, trailer: BinaryTrailer, options: PlistReadOptions, from top: Int? = nil
    ) throws -> PlistValue {
        do {
            return try PlistTreeBuilder.build(options, format: .binary) {
                try BinaryEventSource<_, AsWrittenKeyOrder>.run(bytes, trailer: trailer, options: options, byOffset: false, from: top, into: &$0)
            }
        } catch is BinaryBudgetExhausted {
            // Offset entries alias one another: read again with objects remembered by offset.
            return try PlistTreeBuilder.build(options, format: .binary) {
                try BinaryEventSource<_, AsWrittenKeyOrder>.run(bytes, trailer: trailer, options: options, byOffset: true, from: top, into: &$0)
            }
        }
    }

    /// Sends the document's events to `sink`. A sink that cannot stand in for repeated subtrees
    /// (`PlistEventSink.rememberSubtree`) gets them again each time, up to the decoding budget; past it the document
    /// is refused as overlapping, where the tree reader would read it again by offset.
    static func parse<Sink: PlistEventSink>(
        _ bytes: UnsafeRawBufferPointer, options: PlistReadOptions, into sink: inout Sink
    ) throws {
        let trailer = try BinaryTrailer(bytes, options: options)
        do {
            try BinaryEventSource<_, AsWrittenKeyOrder>.run(bytes, trailer: trailer, options: options, byOffset: false, into: &sink)
        } catch let exhausted as BinaryBudgetExhausted {
            throw exhausted.error
        }
    }
}

/// Thrown when a first reading runs out of decoding budget (see `BinaryEventSource`).
struct BinaryBudgetExhausted: Error {
    let offset: Int
    var error: PlistError {
        BinaryTrailer.error(.invalidReference, "objects overlap: decoding would exceed four times the input size", at: offset)
    }
}

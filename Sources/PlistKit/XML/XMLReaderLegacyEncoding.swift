#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Byte-oriented documents that declare an encoding other than UTF-8 (`ISO-8859-1`, `UTF-7`, `Shift_JIS`, …) are
/// converted to UTF-8 here, with iconv, before parsing, as Core Foundation converts a whole document before reading
/// it. Left to libxml2's own conversion, their text would go through XML end-of-line handling (CR and CR LF become
/// LF) and their control characters would be rejected, where CF — and PlistKit for UTF-8 documents — keeps both.
/// Error offsets are mapped back to the caller's bytes through checkpoints recorded during the conversion.
struct XMLReaderLegacyEncoding {
    /// The declared encoding name, as written.
    let name: String
    /// The document in UTF-8.
    private(set) var utf8: [UInt8] = []
    /// (UTF-8 offset, original offset) at every character whose UTF-8 form is not as long as its original bytes,
    /// and just after it; between checkpoints offsets advance together.
    private var checkpoints: [(converted: Int, original: Int)] = [(0, 0)]

    /// The encoding `b` declares when it is one to convert here: not UTF-8 (nor its ASCII subset, nor UTF-16 or
    /// UTF-32, whose declarations libxml2 checks against the bytes and `XMLReaderInputEncoding` handles).
    static func declared(in b: UnsafeRawBufferPointer) -> String? {
        guard let name = XMLReaderInputEncoding.declaredEncoding(b) else { return nil }
        let upper = name.uppercased()
        let native = ["UTF-8", "UTF8", "US-ASCII", "ASCII"]
        if native.contains(upper) || upper.hasPrefix("UTF-16") || upper.hasPrefix("UTF-32") || upper.hasPrefix("UCS") {
            return nil
        }
        return name
    }

    /// Converts `b` from `name`; an unknown encoding, or bytes invalid in it, is an `.encoding` error at the offset.
    init(converting b: UnsafeRawBufferPointer, from name: String) throws {
        self.name = name
        let cd = iconv_open("UTF-8", name)
        guard let cd, Int(bitPattern: cd) != -1 else {
            throw PlistError(.encoding, "unsupported encoding \"\(name)\"", format: .xml, offset: 0)
        }
        defer { iconv_close(cd) }
        utf8.reserveCapacity(b.count + b.count / 8)
        guard let base = b.baseAddress else { return }
        var input = 0
        var out = [UInt8](repeating: 0, count: 64)
        // One character at a time (growing the input until iconv takes it), so every offset can be mapped back;
        // legacy-encoded property lists are rare and small, and iconv keeps any shift state between calls.
        while input < b.count {
            var length = 1
            var produced = 0
            while true {
                var inPointer: UnsafeMutablePointer<CChar>? = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: CChar.self)) + input
                var inLeft = length
                let result: Int = out.withUnsafeMutableBytes { o in
                    var outPointer: UnsafeMutablePointer<CChar>? = o.baseAddress!.assumingMemoryBound(to: CChar.self)
                    var outLeft = o.count
                    let r = iconv(cd, &inPointer, &inLeft, &outPointer, &outLeft)
                    produced = o.count - outLeft
                    return r
                }
                if result != -1 || inLeft == 0 { break }
                // EINVAL: an incomplete sequence, so offer one more byte; anything else is invalid input.
                guard errno == EINVAL, input + length < b.count, length < 16 else {
                    throw PlistError(.encoding, "bytes invalid in the declared encoding \"\(name)\"", format: .xml, offset: input)
                }
                length += 1
            }
            if produced != length {
                checkpoints.append((utf8.count, input))
                checkpoints.append((utf8.count + produced, input + length))
            }
            utf8.append(contentsOf: out[0..<produced])
            input += length
        }
    }

    /// Maps an offset in `utf8` back to one in the original bytes (inside a converted character: a byte of it).
    func originalOffset(_ offset: Int) -> Int {
        var lo = 0
        var hi = checkpoints.count - 1
        while lo < hi {  // the last checkpoint at or before `offset`
            let mid = (lo + hi + 1) / 2
            if checkpoints[mid].converted <= offset { lo = mid } else { hi = mid - 1 }
        }
        let c = checkpoints[lo]
        let mapped = c.original + (offset - c.converted)
        if lo + 1 < checkpoints.count { return min(mapped, checkpoints[lo + 1].original) }
        return mapped
    }
}

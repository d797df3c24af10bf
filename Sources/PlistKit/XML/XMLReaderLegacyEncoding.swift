#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Byte-oriented documents that declare an encoding other than UTF-8 (`ISO-8859-1`, `UTF-7`, `Shift_JIS`, …) are
/// converted to UTF-8 here, with iconv, before parsing, as Core Foundation converts a whole document before reading
/// it. Left to libxml2's own conversion, their text would go through XML end-of-line handling (CR and CR LF become
/// LF) and their control characters would be rejected, where CF — and PlistKit for UTF-8 documents — keeps both.
/// The conversion runs in bulk; an error offset in the converted text is mapped back to the caller's bytes by
/// converting again, one character at a time, up to that offset (errors are rare, documents in these encodings too).
struct XMLReaderLegacyEncoding {
    /// The declared encoding name, as written.
    let name: String
    /// The document in UTF-8.
    private(set) var utf8: [UInt8] = []
    private let original: UnsafeRawBufferPointer

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

    /// Converts `b` (which must outlive this value) from `name`; an unknown encoding, or bytes invalid in it, is an
    /// `.encoding` error at the offset.
    init(converting b: UnsafeRawBufferPointer, from name: String) throws {
        self.name = name
        original = b
        let cd = try Self.open(name)
        defer { iconv_close(cd) }
        guard let base = b.baseAddress, b.count > 0 else { return }
        var inPointer: UnsafeMutablePointer<CChar>? = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: CChar.self))
        var inLeft = b.count
        var out = [UInt8](repeating: 0, count: b.count + b.count / 2 + 64)
        var produced = 0
        while inLeft > 0 {
            let (result, failure) = out.withUnsafeMutableBytes { o -> (Int, Int32) in
                var outPointer: UnsafeMutablePointer<CChar>? = (o.baseAddress! + produced).assumingMemoryBound(to: CChar.self)
                var outLeft = o.count - produced
                let r = iconv(cd, &inPointer, &inLeft, &outPointer, &outLeft)
                produced = o.count - outLeft
                return (r, r == -1 ? errno : 0)
            }
            if result != -1 { break }
            if failure == E2BIG {
                out += [UInt8](repeating: 0, count: out.count)  // bounded: each step at most doubles
                continue
            }
            // EILSEQ (a byte sequence the encoding does not have) or EINVAL (one cut short by the end).
            throw PlistError(.encoding, "bytes invalid in the declared encoding \"\(name)\"", format: .xml, offset: b.count - inLeft)
        }
        out.removeLast(out.count - produced)
        utf8 = out
    }

    private static func open(_ name: String) throws -> iconv_t {
        let cd = iconv_open("UTF-8", name)
        guard let cd, Int(bitPattern: cd) != -1 else {
            throw PlistError(.encoding, "unsupported encoding \"\(name)\"", format: .xml, offset: 0)
        }
        return cd
    }

    /// Maps an offset in `utf8` back to one in the original bytes (inside a converted character: its first byte).
    func originalOffset(_ offset: Int) -> Int {
        guard let base = original.baseAddress, let cd = try? Self.open(name) else { return offset }
        defer { iconv_close(cd) }
        var input = 0
        var converted = 0
        var out = [CChar](repeating: 0, count: 64)
        // One character at a time: offer one byte more until iconv takes a whole character.
        while input < original.count {
            var length = 1
            var produced = 0
            while true {
                var inPointer: UnsafeMutablePointer<CChar>? = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: CChar.self)) + input
                var inLeft = length
                let result = out.withUnsafeMutableBufferPointer { o -> Int in
                    var outPointer: UnsafeMutablePointer<CChar>? = o.baseAddress
                    var outLeft = o.count
                    let r = iconv(cd, &inPointer, &inLeft, &outPointer, &outLeft)
                    produced = o.count - outLeft
                    return r
                }
                if result != -1 || inLeft == 0 { break }
                guard input + length < original.count, length < 16 else { return input }
                length += 1
            }
            if converted + produced > offset { return input }
            converted += produced
            input += length
        }
        return input
    }
}

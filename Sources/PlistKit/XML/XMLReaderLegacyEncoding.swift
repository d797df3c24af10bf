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

    /// What a byte-oriented document's declaration says about its encoding.
    enum Declared {
        /// No encoding, or one libxml2 reads itself (UTF-8 by its usual names; UTF-16 and UTF-32, whose
        /// declarations libxml2 checks against the bytes and `XMLReaderInputEncoding` handles).
        case native
        /// UTF-8 under a spelling libxml2 does not know (`UTF_8`), or ASCII with no byte ≥ 0x80: the declaration is
        /// ignored and the document read as UTF-8, as Core Foundation reads it.
        case looseUTF8
        /// Another encoding, converted here.
        case legacy(String)

        var isLooseUTF8: Bool { if case .looseUTF8 = self { return true } else { return false } }
    }

    /// The encoding `b`'s declaration names, classified.
    static func declared(in b: UnsafeRawBufferPointer) -> Declared {
        guard let name = XMLReaderInputEncoding.declaredEncoding(b) else { return .native }
        let loose = looseForm(name)
        if ["UTF8", "USASCII", "ASCII"].contains(loose) {
            // Core Foundation converts a document declared ASCII with its ASCII conversion, which takes a byte
            // ≥ 0x80 as the character of the same value (ISO Latin-1): so does this reader, rather than fail.
            // Without one, ASCII is UTF-8: read as such (declaration ignored), so CRs and control characters in text
            // are kept as in any UTF-8 document, whichever way the document is declared.
            if loose != "UTF8" { return BinaryObjectTable.firstNonASCII(b) != nil ? .legacy("ISO-8859-1") : .looseUTF8 }
            return ["UTF-8", "UTF8"].contains(name.uppercased()) ? .native : .looseUTF8
        }
        if loose.hasPrefix("UTF16") || loose.hasPrefix("UTF32") || loose.hasPrefix("UCS") { return .native }
        return .legacy(name)
    }

    /// `name` upper-cased with everything but letters and digits removed: `Latin-1` and `LATIN1`, `UTF_8` and
    /// `UTF-8` compare equal, as Core Foundation matches charset names.
    static func looseForm(_ name: String) -> String {
        String(decoding: name.utf8.compactMap { c -> UInt8? in
            switch c {
            case 0x61...0x7A: return c - 0x20
            case 0x41...0x5A, 0x30...0x39: return c
            default: return nil
            }
        }, as: UTF8.self)
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
        XMLReaderProlog.sanitizeEncodingName(&out)
        utf8 = out
    }

    /// A converter from `name`, as written or, when iconv does not know that spelling, from a looser one: trimmed,
    /// without an IANA year suffix (`ISO-8859-1:1987`), with `_` for `-` or without either (`Latin-1` → `Latin1`).
    private static func open(_ name: String) throws -> iconv_t {
        let trimmed = String(name.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
        let undated = trimmed.split(separator: ":", maxSplits: 1).first.map(String.init) ?? trimmed
        var candidates = [name]
        for base in [trimmed, undated] {
            candidates += [base, String(base.map { $0 == "-" ? "_" : $0 }), String(base.map { $0 == "_" ? "-" : $0 }),
                           String(base.filter { $0 != "-" && $0 != "_" })]
        }
        for candidate in candidates where !candidate.isEmpty {
            if let cd = iconv_open("UTF-8", candidate), Int(bitPattern: cd) != -1 { return cd }
        }
        throw PlistError(.encoding, "unsupported encoding \"\(name)\"", format: .xml, offset: 0)
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

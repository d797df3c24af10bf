import FoundationEssentials

/// Reads OpenStep (old-style ASCII) property lists with Core Foundation's rules, GNUstep's typed extensions
/// (`<*I…>`, `<*R…>`, `<*B…>`, `<*D…>`, `<[base64]>`) in the same grammar, and `.strings` bodies.
///
/// Input is UTF-8 (optional BOM) or UTF-16 or UTF-32 with a BOM (transcoded to UTF-8 first; odd lengths and lone
/// surrogates are encoding errors, where CF reads U+FFFD). Deliberate differences from
/// Core Foundation, all "CF accepts, PlistKit reports an error" except the first:
/// - an empty document is an empty dictionary, as an empty strings file is (CF refuses zero-length data, and so
///   does `PropertyList.read` when it detects the format; whitespace-only is `{}` in both);
/// - an unterminated `/* …` comment at the end, and junk after a `.strings` body (CF ignores both);
/// - a malformed last element or entry followed by a closing bracket (CF clears that error on its "success path",
///   so `(a, <0fab)` reads as `[a]` and `{a = b; "}` as `{a = b}`);
/// - 513 nested containers, even when the innermost one is empty.
enum OpenStepReader {
    /// Reads a document; `format` is what detection (or the caller) said. `.strings` parses the body as
    /// `key = value;` pairs directly; the other formats accept the whole grammar.
    static func read(_ bytes: UnsafeRawBufferPointer, format: PlistFormat, options: PlistReadOptions) throws -> PlistValue {
        try readDetectingFormat(bytes, format: format, options: options).value
    }

    /// Reads a document and says which dialect it turned out to be: `.gnustep` when a GNUstep form was used,
    /// `.strings` for a strings-file body, else `.openStep`.
    static func readDetectingFormat(
        _ bytes: UnsafeRawBufferPointer, format: PlistFormat = .openStep, options: PlistReadOptions
    ) throws -> (value: PlistValue, format: PlistFormat) {
        let n = bytes.count
        // Only a byte-order mark decides (CF's guess from a leading `{` in UTF-16LE is not copied).
        if let wide = WideText.detect(bytes, unmarkedFirst: { _ in false }), wide.bomLength > 0 {
            let utf8 = try wide.utf8(bytes, format: format)
            return try utf8.withUnsafeBytes { buffer in
                do {
                    return try parse(buffer, start: 0, format: format, options: options)
                } catch var error as PlistError {
                    // Offsets would point into the transcoded text, so only line:column is reported.
                    error = error.located(in: buffer)
                    error.offset = nil
                    throw error
                }
            }
        }
        let start = n >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
        do {
            return try parse(bytes, start: start, format: format, options: options)
        } catch let error as PlistError {
            var located = error.located(in: bytes)
            // The byte-order mark is not a column of the text.
            if start == 3, located.line == 1, let column = located.column, column > 1 { located.column = column - 1 }
            throw located
        }
    }

    private static func parse(
        _ bytes: UnsafeRawBufferPointer, start: Int, format: PlistFormat, options: PlistReadOptions
    ) throws -> (value: PlistValue, format: PlistFormat) {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count > start else {
            return (.dictionary(PlistDictionary()), .openStep)
        }
        var parser = OpenStepParser(base: base, count: bytes.count, start: start, format: format, options: options)
        return try parser.parseDocument(asStrings: format == .strings)
    }
}

/// The scanner: one pass over UTF-8 bytes, recursive descent with an explicit depth cap.
struct OpenStepParser {
    let p: UnsafePointer<UInt8>
    let n: Int
    let start: Int
    var i: Int
    /// The dialect errors are reported in: the caller's format, `.strings` once a strings body is being read.
    var format: PlistFormat
    let maxDepth: Int
    let maxObjects: Int
    let duplicateKeys: DuplicateKeyPolicy
    var objects = 0
    var usedGNUstep = false
    var scratch: [UInt8] = []

    init(base: UnsafePointer<UInt8>, count: Int, start: Int, format: PlistFormat, options: PlistReadOptions) {
        p = base
        n = count
        self.start = start
        i = start
        self.format = format
        maxDepth = options.maxDepth
        maxObjects = options.maxObjectCount
        duplicateKeys = options.duplicateKeys
    }

    // MARK: Errors

    func error(_ kind: PlistError.Kind, _ message: String, at offset: Int? = nil) -> PlistError {
        PlistError(kind, message, format: format, offset: offset ?? i)
    }

    /// Describes the byte at `i` for messages.
    func describeCurrent() -> String {
        guard i < n else { return "end of input" }
        let c = p[i]
        if c >= 0x21 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
        return "byte 0x" + String(c, radix: 16, uppercase: true)
    }

    // MARK: Document

    mutating func parseDocument(asStrings: Bool) throws -> (value: PlistValue, format: PlistFormat) {
        guard try skipSpace() else { return (.dictionary(PlistDictionary()), asStrings ? .strings : .openStep) }
        if asStrings {
            format = .strings
            let d = try parseDictionaryBody(depth: 1, braced: false)  // the implicit dictionary is a level, as `{…}`
            return (.dictionary(d), usedGNUstep ? .gnustep : .strings)
        }
        let value = try parseValue(depth: 0)
        guard try skipSpace() else { return (value, usedGNUstep ? .gnustep : .openStep) }
        if case .string = value {
            // A top-level string followed by more text: the document is a .strings body (CF does the same).
            i = start
            objects = 0
            usedGNUstep = false
            format = .strings
            _ = try skipSpace()
            let d = try parseDictionaryBody(depth: 1, braced: false)  // the implicit dictionary is a level, as `{…}`
            return (.dictionary(d), usedGNUstep ? .gnustep : .strings)
        }
        throw error(.syntax, "junk after the property list: \(describeCurrent())")
    }

    // MARK: Whitespace and comments

    /// Skips whitespace (including U+2028/U+2029) and comments; returns false at the end of input.
    @inline(__always)
    mutating func skipSpace() throws -> Bool {
        while i < n {
            let c = p[i]
            if c == 0x20 || (c >= 0x09 && c <= 0x0D) {
                i += 1
            } else if c == 0x2F || c == 0xE2 {
                if try !skipCommentOrSeparator() { return true }
            } else {
                return true
            }
        }
        return false
    }

    /// At `/` or 0xE2: skips a comment or a U+2028/U+2029 and returns true, or returns false when the byte starts
    /// something else.
    mutating func skipCommentOrSeparator() throws -> Bool {
        let c = p[i]
        if c == 0xE2 {
            if i + 2 < n, p[i + 1] == 0x80, p[i + 2] == 0xA8 || p[i + 2] == 0xA9 {
                i += 3
                return true
            }
            return false
        }
        guard i + 1 < n else { return false }
        if p[i + 1] == 0x2F {
            i += 2
            while i < n {
                let d = p[i]
                if d == 0x0A || d == 0x0D { break }
                if d == 0xE2, i + 2 < n, p[i + 1] == 0x80, p[i + 2] == 0xA8 || p[i + 2] == 0xA9 { break }
                i += 1
            }
            return true
        }
        if p[i + 1] == 0x2A {
            let open = i
            i += 2
            while i + 1 < n {
                if p[i] == 0x2A && p[i + 1] == 0x2F {
                    i += 2
                    return true
                }
                i += 1
            }
            i = n
            throw error(.truncated, "unterminated /* comment", at: open)
        }
        return false
    }

    // MARK: Values

    @inline(__always)
    mutating func countObject() throws {
        objects += 1
        if objects > maxObjects {
            throw error(.countLimit, "more than \(maxObjects) objects (maxObjectCount)")
        }
    }

    /// Parses a value at `i` (which is at a non-space byte). `depth` is the number of enclosing containers.
    mutating func parseValue(depth: Int) throws -> PlistValue {
        try countObject()
        let c = p[i]
        switch c {
        case 0x7B:  // {
            try checkDepth(depth)
            i += 1
            let dict = try parseDictionaryBody(depth: depth + 1, braced: true)
            // GNUstep text has no UID form; a lone `CF$UID` key with an integer stands for one, as in XML.
            if dict.count == 1, case .integer(let v) = dict[0].value, let u = v.uint64Value, dict[0].key == "CF$UID" {
                return .uid(UID(u))
            }
            return .dictionary(dict)
        case 0x28:  // (
            try checkDepth(depth)
            i += 1
            return .array(try parseArray(depth: depth + 1))
        case 0x3C:  // <
            return try parseAngle()
        case 0x22, 0x27:
            return .string(try parseQuoted())
        default:
            if Self.isUnquoted(c) { return .string(parseUnquoted()) }
            throw error(.syntax, "unexpected \(describeCurrent()) where a value was expected")
        }
    }

    @inline(__always)
    func checkDepth(_ depth: Int) throws {
        if depth >= maxDepth {
            throw error(.depthLimit, "more than \(maxDepth) nested arrays or dictionaries (maxDepth)")
        }
    }

    mutating func parseArray(depth: Int) throws -> [PlistValue] {
        let open = i - 1
        var out: [PlistValue] = []
        while true {
            guard try skipSpace() else { throw error(.truncated, "array starting here is missing its ')'", at: open) }
            if p[i] == 0x29 {
                i += 1
                return out
            }
            do {
                out.append(try parseValue(depth: depth))
            } catch let e as PlistError {
                throw e.inside(String(out.count))
            }
            guard try skipSpace() else { throw error(.truncated, "array starting here is missing its ')'", at: open) }
            let c = p[i]
            if c == 0x2C {
                i += 1
            } else if c == 0x29 {
                i += 1
                return out
            } else {
                throw error(.syntax, "expected ',' or ')' in array, found \(describeCurrent())")
            }
        }
    }

    /// Dictionary entries up to `}` (braced) or the end of input (a .strings body).
    mutating func parseDictionaryBody(depth: Int, braced: Bool) throws -> PlistDictionary {
        let open = i - 1
        var dict = PlistDictionary()
        while true {
            guard try skipSpace() else {
                if braced { throw error(.truncated, "dictionary starting here is missing its '}'", at: open) }
                return dict
            }
            let c = p[i]
            if braced && c == 0x7D {
                i += 1
                return dict
            }
            let key: String
            if c == 0x22 || c == 0x27 {
                key = try parseQuoted()
            } else if Self.isUnquoted(c) {
                key = parseUnquoted()
            } else if braced {
                throw error(.syntax, "expected a key or '}' in dictionary, found \(describeCurrent())")
            } else {
                throw error(.syntax, "expected a key in strings file, found \(describeCurrent())")
            }
            guard try skipSpace() else { throw error(.truncated, "missing ';' after key \"\(key)\"") }
            let value: PlistValue
            if p[i] == 0x3B {
                // `key;` is shorthand for `key = key;` (strings files use it).
                try countObject()
                value = .string(key)
            } else if p[i] == 0x3D {
                i += 1
                do {
                    guard try skipSpace() else { throw error(.truncated, "missing value after '='") }
                    value = try parseValue(depth: depth)
                } catch let e as PlistError {
                    throw e.inside(key)
                }
                guard try skipSpace() else {
                    throw error(.truncated, "missing ';' after the value of \"\(key)\"")
                }
                guard p[i] == 0x3B else {
                    throw error(.syntax, "missing ';' after the value of \"\(key)\", found \(describeCurrent())")
                }
            } else {
                throw error(.syntax, "expected '=' or ';' after key \"\(key)\", found \(describeCurrent())")
            }
            i += 1
            guard let existing = dict.index(forKey: key) else {
                dict.appendNew(key, value)
                continue
            }
            switch duplicateKeys {
            case .lastWins: dict.setValue(value, at: existing)
            case .firstWins: break
            case .reject: throw error(.duplicateKey, "duplicate key \"\(key)\"")
            }
        }
    }

    // MARK: Strings

    /// `[A-Za-z0-9_$/:.-]`, as a bit set over ASCII.
    @inline(__always)
    static func isUnquoted(_ c: UInt8) -> Bool {
        // 0–63: '$'(36) '-'(45) '.'(46) '/'(47) '0'–'9'(48–57) ':'(58); 64–127: 'A'–'Z', '_'(95), 'a'–'z'.
        let low: UInt64 = (1 << 36) | (1 << 45) | (1 << 46) | (1 << 47) | (0x3FF << 48) | (1 << 58)
        let high: UInt64 = (0x3FF_FFFF << 1) | (1 << 31) | (0x3FF_FFFF << 33)
        if c < 64 { return low >> c & 1 != 0 }
        if c < 128 { return high >> (c - 64) & 1 != 0 }
        return false
    }

    mutating func parseUnquoted() -> String {
        let s = i
        i += 1
        while i < n, Self.isUnquoted(p[i]) { i += 1 }
        return String(decoding: UnsafeBufferPointer(start: p + s, count: i - s), as: UTF8.self)
    }

    /// At an opening `"` or `'`.
    mutating func parseQuoted() throws -> String {
        let open = i
        let quote = p[i]
        i += 1
        let s = i
        var bits: UInt8 = 0
        while i < n {
            let c = p[i]
            if c == quote {
                let buffer = UnsafeBufferPointer(start: p + s, count: i - s)
                i += 1
                if bits < 0x80 { return String(decoding: buffer, as: UTF8.self) }
                guard let string = String(validating: buffer, as: UTF8.self) else {
                    throw error(.encoding, "string is not valid UTF-8", at: open)
                }
                return string
            }
            if c == 0x5C { return try parseEscaped(open: open, quote: quote, from: s) }
            bits |= c
            i += 1
        }
        throw error(.truncated, "unterminated quoted string", at: open)
    }

    /// The slow path of `parseQuoted`, from the first backslash on.
    mutating func parseEscaped(open: Int, quote: UInt8, from s: Int) throws -> String {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(start: p + s, count: i - s))
        var pendingHigh: UInt32 = 0  // a \U high surrogate waiting for its low half
        while i < n {
            let c = p[i]
            if c == quote {
                i += 1
                if pendingHigh != 0 { UTF8Encoding.append(0xFFFD, to: &scratch) }
                guard let string = String(validating: scratch, as: UTF8.self) else {
                    throw error(.encoding, "string is not valid UTF-8", at: open)
                }
                return string
            }
            guard c == 0x5C else {
                if pendingHigh != 0 { UTF8Encoding.append(0xFFFD, to: &scratch); pendingHigh = 0 }
                let run = i
                i += 1
                while i < n && p[i] != quote && p[i] != 0x5C { i += 1 }
                scratch.append(contentsOf: UnsafeBufferPointer(start: p + run, count: i - run))
                continue
            }
            i += 1
            guard i < n else { throw error(.truncated, "escape sequence cut off by the end of input", at: i - 1) }
            let e = p[i]
            i += 1
            var scalar: UInt32
            switch e {
            case 0x61: scalar = 0x07  // \a
            case 0x62: scalar = 0x08  // \b
            case 0x66: scalar = 0x0C  // \f
            case 0x6E: scalar = 0x0A  // \n
            case 0x72: scalar = 0x0D  // \r
            case 0x74: scalar = 0x09  // \t
            case 0x76: scalar = 0x0B  // \v
            case 0x30...0x37:
                // Up to three octal digits, kept to 8 bits as CF does, then NeXTSTEP Latin.
                var v = e &- 0x30
                var digits = 1
                while digits < 3, i < n, p[i] >= 0x30, p[i] <= 0x37 {
                    v = v &<< 3 &+ (p[i] &- 0x30)
                    i += 1
                    digits += 1
                }
                scalar = NeXTSTEPLatin.scalar(v)
            case 0x55:  // \U + up to four hex digits (a UTF-16 code unit)
                var v: UInt32 = 0
                var digits = 0
                while digits < 4, i < n, let h = Self.hexValue(p[i]) {
                    v = v << 4 | UInt32(h)
                    i += 1
                    digits += 1
                }
                if v >= 0xD800 && v < 0xDC00 {
                    if pendingHigh != 0 { UTF8Encoding.append(0xFFFD, to: &scratch) }
                    pendingHigh = v
                    continue
                }
                if v >= 0xDC00 && v < 0xE000 {
                    if pendingHigh != 0 {
                        UTF8Encoding.append(0x10000 + ((pendingHigh - 0xD800) << 10) + (v - 0xDC00), to: &scratch)
                        pendingHigh = 0
                        continue
                    }
                    v = 0xFFFD
                }
                scalar = v
            default:
                // Any other escaped character stands for itself (the rest of a multi-byte one follows unescaped).
                if pendingHigh != 0 { UTF8Encoding.append(0xFFFD, to: &scratch); pendingHigh = 0 }
                scratch.append(e)
                continue
            }
            if pendingHigh != 0 { UTF8Encoding.append(0xFFFD, to: &scratch); pendingHigh = 0 }
            if scalar < 0x80 { scratch.append(UInt8(scalar)) } else { UTF8Encoding.append(scalar, to: &scratch) }
        }
        throw error(.truncated, "unterminated quoted string", at: open)
    }

    @inline(__always)
    static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x41...0x46: return c - 0x41 + 10
        case 0x61...0x66: return c - 0x61 + 10
        default: return nil
        }
    }


    // MARK: Data and GNUstep forms

    /// At `<`: hex data, or a GNUstep `<*…>` / `<[…]>` form.
    mutating func parseAngle() throws -> PlistValue {
        let open = i
        i += 1
        if i < n && p[i] == 0x2A { return try parseGNUstepTyped(open: open) }
        if i < n && p[i] == 0x5B { return try parseGNUstepBase64(open: open) }
        // Find the closing '>' first so the bytes can be decoded into storage of the right size in one pass.
        var end = i
        while end < n && p[end] != 0x3E { end += 1 }
        guard end < n else {
            // Still report a bad digit before the missing '>' when there is one.
            _ = try decodeHex(upTo: n)
            throw error(.truncated, "unterminated data (missing '>')", at: open)
        }
        let data = try decodeHex(upTo: end)
        i = end + 1
        return .data(data)
    }

    /// Decodes hex digit pairs (whitespace between pairs allowed) from `i` up to `end`.
    mutating func decodeHex(upTo end: Int) throws -> Data {
        // At least one byte, so the buffer always has an address; trimmed to what was decoded below.
        var data = Data(count: max(1, (end - i) / 2))
        let start = i
        let (written, fault) = data.withUnsafeMutableBytes { out -> (Int, Int?) in
            guard let base = out.baseAddress else { return (0, start) }
            return Self.hexPairs(p, from: start, to: end, atEndOfInput: end == n, into: base.assumingMemoryBound(to: UInt8.self))
        }
        if let fault {
            let c = p[fault]
            if Self.nibble(c) < 16 {  // a digit without its pair
                throw error(.syntax, "data has an odd number of hex digits", at: fault)
            }
            i = fault
            throw error(.syntax, "invalid hex digit in data: \(describeCurrent())")
        }
        if written < data.count { data.count = written }
        return data
    }

    /// The decoding loop of `decodeHex`, free of `self` so the compiler keeps everything in registers. Returns the
    /// bytes written, or the offset of the first fault: a lone digit (odd count) or a byte that is not a hex digit.
    static func hexPairs(
        _ p: UnsafePointer<UInt8>, from: Int, to end: Int, atEndOfInput: Bool, into out: UnsafeMutablePointer<UInt8>
    ) -> (Int, Int?) {
        hexTable.withUnsafeBufferPointer { table in
            hexPairs(p, from: from, to: end, atEndOfInput: atEndOfInput, into: out, table: table.baseAddress.unsafelyUnwrapped)
        }
    }

    /// Hex digit values, 0xFF for other bytes: a table instead of comparisons, because random hex digits make the
    /// digit-or-letter branch unpredictable.
    static let hexTable: [UInt8] = (0..<256).map { nibble(UInt8($0)) }

    @inline(__always)
    static func hexPairs(
        _ p: UnsafePointer<UInt8>, from: Int, to end: Int, atEndOfInput: Bool, into out: UnsafeMutablePointer<UInt8>,
        table t: UnsafePointer<UInt8>
    ) -> (Int, Int?) {
        var o = 0
        var k = from
        while k < end {
            // Fast path: four pairs in a row, as writers group them.
            if k + 8 <= end {
                let a = t[Int(p[k])], b = t[Int(p[k + 1])], c = t[Int(p[k + 2])], d = t[Int(p[k + 3])]
                let e = t[Int(p[k + 4])], f = t[Int(p[k + 5])], g = t[Int(p[k + 6])], h = t[Int(p[k + 7])]
                if (a | b | c | d | e | f | g | h) < 16 {
                    out[o] = a << 4 | b
                    out[o + 1] = c << 4 | d
                    out[o + 2] = e << 4 | f
                    out[o + 3] = g << 4 | h
                    o += 4
                    k += 8
                    continue
                }
            }
            let ch = p[k]
            let hi = t[Int(ch)]
            if hi < 16 {
                guard k + 1 < end else {
                    if atEndOfInput { return (o, nil) }  // the missing '>' is the error to report
                    return (o, k)
                }
                let lo = t[Int(p[k + 1])]
                guard lo < 16 else {
                    let d = p[k + 1]
                    return (o, d == 0x20 || (d >= 0x09 && d <= 0x0D) || d == 0xE2 ? k : k + 1)
                }
                out[o] = hi << 4 | lo
                o += 1
                k += 2
            } else if ch == 0x20 || (ch >= 0x09 && ch <= 0x0D) {
                k += 1
            } else if ch == 0xE2, k + 2 < end, p[k + 1] == 0x80, p[k + 2] == 0xA8 || p[k + 2] == 0xA9 {
                k += 3
            } else {
                return (o, k)
            }
        }
        return (o, nil)
    }

    /// The value of a hex digit, or 0xFF.
    @inline(__always)
    static func nibble(_ c: UInt8) -> UInt8 {
        let d = c &- 0x30
        if d < 10 { return d }
        let l = (c | 0x20) &- 0x61
        return l < 6 ? l + 10 : 0xFF
    }

    /// At `[` after `<`: `<[base64]>`.
    mutating func parseGNUstepBase64(open: Int) throws -> PlistValue {
        let outer = format
        if format == .openStep { format = .gnustep }
        defer { format = outer }
        i += 1
        let s = i
        while i < n && p[i] != 0x5D { i += 1 }
        guard i + 1 < n, p[i + 1] == 0x3E else {
            if i >= n { throw error(.truncated, "unterminated <[…]> data", at: open) }
            throw error(.syntax, "expected '>' after ']' in <[…]> data")
        }
        let bytes: [UInt8]
        do {
            bytes = try OpenStepBase64.decode(UnsafeRawBufferPointer(start: p + s, count: i - s))
        } catch .dataAfterPadding(let k) {
            throw error(.invalidValue, "base64 data after '=' padding in <[…]> data", at: s + k)
        } catch .notInAlphabet(let k) {
            throw error(.invalidValue, "byte 0x\(String(p[s + k], radix: 16)) is not base64 in <[…]> data", at: s + k)
        } catch .leftOverCharacter {
            throw error(.invalidValue, "invalid base64 in <[…]> data (a single character left over)", at: s)
        }
        i += 2
        usedGNUstep = true
        return .data(Data(bytes))
    }

    /// At `*` after `<`: `<*I…>`, `<*R…>`, `<*B…>` or `<*D…>`.
    mutating func parseGNUstepTyped(open: Int) throws -> PlistValue {
        let outer = format
        if format == .openStep { format = .gnustep }
        defer { format = outer }
        i += 1
        guard i < n else { throw error(.truncated, "unterminated <*…> value", at: open) }
        let code = p[i]
        guard code == 0x49 || code == 0x52 || code == 0x42 || code == 0x44 else {
            if code == 0x3E { throw error(.syntax, "missing type code after '<*'") }
            throw error(.syntax, "unknown type code \(describeCurrent()) after '<*' (expected I, R, B or D)")
        }
        i += 1
        var s = i
        while i < n && p[i] != 0x3E { i += 1 }
        guard i < n else { throw error(.truncated, "unterminated <*…> value", at: open) }
        var e = i
        i += 1
        // GNUstep tolerates surrounding spaces and quotes (`<*I"5">`, `<*I5">`).
        while s < e, p[s] == 0x20 || p[s] == 0x22 { s += 1 }
        while e > s, p[e - 1] == 0x20 || p[e - 1] == 0x22 { e -= 1 }
        guard e > s else { throw error(.syntax, "missing value after '<*\(Character(Unicode.Scalar(code)))'", at: open) }
        let text = UnsafeBufferPointer(start: p + s, count: e - s)
        usedGNUstep = true
        switch code {
        case 0x49: return .integer(try GNUstepScalars.integer(text, self, at: s))
        case 0x52: return .real(try GNUstepScalars.real(text, self, at: s))
        case 0x42:
            if text.count == 1 && text[0] == 0x59 { return .bool(true) }
            if text.count == 1 && text[0] == 0x4E { return .bool(false) }
            throw error(.invalidValue, "a <*B…> value must be Y or N", at: s)
        default: return .date(try GNUstepScalars.date(text, self, at: s))
        }
    }
}

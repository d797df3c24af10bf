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
        var dialect = format
        let value = try PlistTreeBuilder.build(options, format: format) { dialect = try parse(bytes, format: format, into: &$0) }
        return (value, dialect)
    }

    /// Sends the document's events to `sink` and returns its dialect (see `readDetectingFormat`).
    static func parse<Sink: PlistEventSink>(
        _ bytes: UnsafeRawBufferPointer, format: PlistFormat, pages: InputPages? = nil, into sink: inout Sink
    ) throws -> PlistFormat {
        // Only a byte-order mark decides (CF's guess from a leading `{` in UTF-16LE is not copied).
        let wide = WideText.detect(bytes, unmarkedFirst: { _ in false }).flatMap { $0.bomLength > 0 ? $0 : nil }
        var map = OffsetMap(originalIsUTF8: wide == nil)
        do {
            if let wide {
                let utf8 = try wide.utf8(bytes, format: format, appendingTo: &map)
                return try utf8.withUnsafeBytes { converted in
                    guard Sink.wantsExactRanges else { return try parseUTF8(converted, start: 0, format: format, into: &sink) }
                    var mapped = RangeMappingSink(inner: sink, map: map)
                    defer { sink = mapped.inner }
                    return try parseUTF8(converted, start: 0, format: format, into: &mapped)
                }
            }
            let start = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF ? 3 : 0
            return try parseUTF8(bytes, start: start, format: format, pages: pages, into: &sink)
        } catch let error as PlistError {
            if wide == nil, var conflict = MergeConflictMarkers.error(in: bytes, format: format) {
                conflict.keyPath = error.keyPath
                throw conflict
            }
            var located = map.locate(error, in: bytes)
            // As this reader has always reported UTF-16 and UTF-32 text: by line and column only (the tools' output
            // stays as it was; the map does give the offset).
            if wide != nil, !map.isEmpty { located.offset = nil }
            throw located
        }
    }

    private static func parseUTF8<Sink: PlistEventSink>(
        _ bytes: UnsafeRawBufferPointer, start: Int, format: PlistFormat, pages: InputPages? = nil, into sink: inout Sink
    ) throws -> PlistFormat {
        guard let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self), bytes.count > start else {
            try sink.beginDictionary(count: 0, at: start..<start)
            try sink.endDictionary(at: start..<start)
            return format == .strings ? .strings : .openStep
        }
        var source = OpenStepEventSource(base: base, count: bytes.count, start: start, format: format, sink: sink)
        source.pages = pages
        defer { sink = source.sink }
        return try source.parseDocument(asStrings: format == .strings)
    }
}

/// The scanner: one pass over UTF-8 bytes, recursive descent, sending what it reads to a sink (which bounds the
/// nesting: `ReadLimits`).
struct OpenStepEventSource<Sink: PlistEventSink> {
    let p: UnsafePointer<UInt8>
    let n: Int
    let start: Int
    var i: Int
    /// The dialect errors are reported in: the caller's format, `.strings` once a strings body is being read.
    var format: PlistFormat
    var sink: Sink
    var usedGNUstep = false
    var scratch: [UInt8] = []
    /// The input's pages, given back behind the reader when `p` is a file mapping's (`InputPages`): nothing below a
    /// finished element or entry is read again, but for an error's line and column, which faults pages back in.
    var pages: InputPages?

    init(base: UnsafePointer<UInt8>, count: Int, start: Int, format: PlistFormat, sink: Sink) {
        p = base
        n = count
        self.start = start
        i = start
        self.format = format
        self.sink = sink
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

    mutating func parseDocument(asStrings: Bool) throws -> PlistFormat {
        guard try skipSpace() else {
            try sink.beginDictionary(count: 0, at: i..<i)
            try sink.endDictionary(at: i..<i)
            return asStrings ? .strings : .openStep
        }
        if asStrings { return try parseStringsBody() }
        let first = i
        let c = p[i]
        if c == 0x22 || c == 0x27 || OpenStepBytes.isUnquoted(c) {
            // A top-level string followed by more text is a .strings body (CF does the same): look past the string
            // before sending it.
            let string = c == 0x22 || c == 0x27 ? try parseQuoted() : parseUnquoted()
            let end = i
            if try skipSpace() {
                i = start
                return try parseStringsBody()
            }
            try sink.value(.string(string), at: first..<end)
            return .openStep
        }
        try parseValue()
        guard try skipSpace() else { return usedGNUstep ? .gnustep : .openStep }
        throw error(.syntax, "junk after the property list: \(describeCurrent())")
    }

    /// The document as `key = value;` pairs of one implicit dictionary (a level of nesting, like `{…}`).
    mutating func parseStringsBody() throws -> PlistFormat {
        format = .strings
        _ = try skipSpace()
        let at = i
        try sink.beginDictionary(count: nil, at: at..<at)
        try parseDictionaryBody(braced: false)
        try sink.endDictionary(at: i..<i)
        return usedGNUstep ? .gnustep : .strings
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

    /// Parses a value at `i` (which is at a non-space byte) and sends it to the sink.
    mutating func parseValue() throws {
        let c = p[i]
        let at = i
        switch c {
        case 0x7B:  // {
            try sink.beginDictionary(count: nil, at: at..<(at + 1))
            i += 1
            try parseDictionaryBody(braced: true)
            try sink.endDictionary(at: (i - 1)..<i)
        case 0x28:  // (
            try sink.beginArray(count: nil, at: at..<(at + 1))
            i += 1
            try parseArray()
            try sink.endArray(at: (i - 1)..<i)
        case 0x3C:  // <
            let value = try parseAngle()
            try sink.value(value, at: at..<i)
        case 0x22, 0x27:
            let string = try parseQuoted()
            try sink.value(.string(string), at: at..<i)
        default:
            guard OpenStepBytes.isUnquoted(c) else { throw error(.syntax, "unexpected \(describeCurrent()) where a value was expected") }
            let string = parseUnquoted()
            try sink.value(.string(string), at: at..<i)
        }
    }

    /// Array elements up to and including `)`.
    mutating func parseArray() throws {
        let open = i - 1
        var count = 0
        while true {
            guard try skipSpace() else { throw error(.truncated, "array starting here is missing its ')'", at: open) }
            if p[i] == 0x29 {
                i += 1
                return
            }
            do {
                try parseValue()
            } catch let e as PlistError {
                throw e.inside(String(count))
            }
            count += 1
            passed()
            guard try skipSpace() else { throw error(.truncated, "array starting here is missing its ')'", at: open) }
            let c = p[i]
            if c == 0x2C {
                i += 1
            } else if c == 0x29 {
                i += 1
                return
            } else {
                throw error(.syntax, "expected ',' or ')' in array, found \(describeCurrent())")
            }
        }
    }

    /// Dictionary entries up to and including `}` (braced) or up to the end of input (a .strings body).
    mutating func parseDictionaryBody(braced: Bool) throws {
        let open = i - 1
        while true {
            guard try skipSpace() else {
                if braced { throw error(.truncated, "dictionary starting here is missing its '}'", at: open) }
                return
            }
            let c = p[i]
            if braced && c == 0x7D {
                i += 1
                return
            }
            let keyStart = i
            let key: String
            if c == 0x22 || c == 0x27 {
                key = try parseQuoted()
            } else if OpenStepBytes.isUnquoted(c) {
                key = parseUnquoted()
            } else if braced {
                throw error(.syntax, "expected a key or '}' in dictionary, found \(describeCurrent())")
            } else {
                throw error(.syntax, "expected a key in strings file, found \(describeCurrent())")
            }
            let keyRange = keyStart..<i
            guard try skipSpace() else { throw error(.truncated, "missing ';' after key \"\(key)\"") }
            if p[i] == 0x3B {
                // `key;` is shorthand for `key = key;` (strings files use it).
                try sink.key(key, at: keyRange)
                try sink.value(.string(key), at: keyRange)
            } else if p[i] == 0x3D {
                i += 1
                do {
                    try sink.key(key, at: keyRange)
                    guard try skipSpace() else { throw error(.truncated, "missing value after '='") }
                    try parseValue()
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
            passed()
        }
    }

    /// An element or entry is complete: the pages before `i` may go.
    @inline(__always) func passed() {
        if let pages { pages.passed(UnsafeRawPointer(p + i)) }
    }

    // MARK: Strings

    mutating func parseUnquoted() -> String {
        let s = i
        i += 1
        while i < n, OpenStepBytes.isUnquoted(p[i]) { i += 1 }
        return String(readerUTF8: UnsafeRawBufferPointer(start: p + s, count: i - s))
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
                if bits < 0x80 { return String(readerUTF8: UnsafeRawBufferPointer(buffer)) }
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
                while digits < 4, i < n, let h = OpenStepBytes.hexValue(p[i]) {
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
            return OpenStepBytes.hexPairs(p, from: start, to: end, atEndOfInput: end == n, into: base.assumingMemoryBound(to: UInt8.self))
        }
        if let fault {
            let c = p[fault]
            if OpenStepBytes.nibble(c) < 16 {  // a digit without its pair
                throw error(.syntax, "data has an odd number of hex digits", at: fault)
            }
            i = fault
            throw error(.syntax, "invalid hex digit in data: \(describeCurrent())")
        }
        if written < data.count { data.count = written }
        return data
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
        case 0x49: return .integer(try GNUstepScalars.integer(text, format, at: s))
        case 0x52: return .real(try GNUstepScalars.real(text, format, at: s))
        case 0x42:
            if text.count == 1 && text[0] == 0x59 { return .bool(true) }
            if text.count == 1 && text[0] == 0x4E { return .bool(false) }
            throw error(.invalidValue, "a <*B…> value must be Y or N", at: s)
        default: return .date(try GNUstepScalars.date(text, format, at: s))
        }
    }
}

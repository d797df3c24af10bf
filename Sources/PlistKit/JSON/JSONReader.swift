#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads JSON (RFC 8259, strictly) as property-list events, with `plutil`'s typing rules.
///
/// - Input is UTF-8 (a leading byte-order mark is skipped; invalid UTF-8 is an `.encoding` error at its offset), or
///   UTF-16/UTF-32 recognised by byte-order mark or by RFC 4627's zero bytes, converted first, as Apple's
///   `JSONSerialization` and Python's `json` accept it (RFC 8259 asks writers, not readers, for UTF-8).
/// - Numbers without a fraction or exponent that fit −2^63 … 2^64−1 become integers (`-0` is the integer 0, as in
///   `JSONSerialization`); every other number becomes a real; a number beyond the range of `Double` is an error.
/// - `null` has no property-list form: an `.invalidValue` error.
/// - Any value may be the root (RFC 8259); Apple `plutil` accepts only an array or an object there.
/// - Nesting, value count and duplicate keys are the sink's business (`ReadLimits`, `PlistTreeBuilder`): last wins
///   by default, as in `JSONSerialization`.
/// - Errors carry the byte offset and line:column.
enum JSONReader {
    static func read(_ bytes: UnsafeRawBufferPointer, options: PlistReadOptions) throws -> PlistValue {
        try PlistTreeBuilder.build(options, format: .json) { try parse(bytes, into: &$0) }
    }

    /// Sends the document's events to `sink`. `pages`, when `bytes` are a file mapping's, gives back the pages the
    /// reader has passed (UTF-8 input, read in place).
    static func parse<Sink: PlistEventSink>(_ bytes: UnsafeRawBufferPointer, pages: InputPages? = nil, into sink: inout Sink) throws {
        // UTF-16 and UTF-32, by byte-order mark or by RFC 4627's zero-byte pattern, as Apple's `JSONSerialization`
        // and Python's `json` read them; converted to UTF-8, and positions mapped back.
        let wide = WideText.detect(bytes, unmarkedFirst: { _ in true })
        var map = OffsetMap(originalIsUTF8: wide == nil)
        do {
            guard let wide else { return try parseUTF8(bytes, pages: pages, into: &sink) }
            let utf8 = try wide.utf8(bytes, format: .json, appendingTo: &map)
            try utf8.withUnsafeBytes { converted in
                guard Sink.wantsExactRanges else { return try parseUTF8(converted, into: &sink) }
                var mapped = RangeMappingSink(inner: sink, map: map)
                defer { sink = mapped.inner }
                try parseUTF8(converted, into: &mapped)
            }
        } catch let e as PlistError {
            throw map.locate(e, in: bytes)
        }
    }

    private static func parseUTF8<Sink: PlistEventSink>(_ bytes: UnsafeRawBufferPointer, pages: InputPages? = nil,
                                                        into sink: inout Sink) throws {
        var source = JSONEventSource(bytes, sink: sink)
        source.pages = pages
        defer { sink = source.sink }
        try source.document()
    }
}

/// A recursive-descent parser over raw bytes that sends what it reads to a sink.
struct JSONEventSource<Sink: PlistEventSink> {
    let b: UnsafeRawBufferPointer
    let n: Int
    var i = 0
    var sink: Sink
    /// Scratch for strings with escapes.
    var scratch: [UInt8] = []
    /// The input's pages, given back behind the reader (nothing is read again below a finished value, but an
    /// error's line and column, counted from the start, which faults pages in again).
    var pages: InputPages? = nil

    /// A container's element or entry is complete: the pages before `i` may go.
    @inline(__always)
    func passed() {
        if let pages, let base = b.baseAddress { pages.passed(base + i) }
    }

    init(_ bytes: UnsafeRawBufferPointer, sink: Sink) {
        b = bytes
        n = bytes.count
        self.sink = sink
    }

    func error(_ kind: PlistError.Kind, _ message: String, at offset: Int) -> PlistError {
        PlistError(kind, message, format: .json, offset: offset)
    }

    /// A readable name for the byte at `at` (or the end of input).
    func describe(_ at: Int) -> String {
        guard at < n else { return "end of input" }
        let c = b[at]
        if c >= 0x21 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
        return "byte 0x\(String(c, radix: 16, uppercase: true))"
    }

    mutating func document() throws {
        if n >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF { i = 3 }
        skipSpace()
        guard i < n else { throw error(.truncated, "the document is empty", at: i) }
        try value()
        skipSpace()
        guard i >= n else { throw error(.syntax, "unexpected \(describe(i)) after the top-level value", at: i) }
    }

    @inline(__always) mutating func skipSpace() {
        while i < n {
            let c = b[i]
            guard c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { return }
            i += 1
        }
    }

    mutating func value() throws {
        guard i < n else { throw error(.truncated, "a value is missing at the end of input", at: i) }
        let start = i
        switch b[i] {
        case 0x7B: try object()
        case 0x5B: try array()
        case 0x22:
            let s = try string()
            try sink.value(.string(s), at: start..<i)
        case 0x74:
            try literal("true")
            try sink.value(.bool(true), at: start..<i)
        case 0x66:
            try literal("false")
            try sink.value(.bool(false), at: start..<i)
        case 0x6E:
            try literal("null")
            throw error(.invalidValue, "null has no property-list form", at: start)
        case 0x2D, 0x30...0x39:
            let v = try number()
            try sink.value(v, at: start..<i)
        default:
            throw error(.syntax, "unexpected \(describe(i)); expected a value", at: i)
        }
    }

    mutating func literal(_ word: StaticString) throws {
        let start = i
        let len = word.utf8CodeUnitCount
        let w = word.utf8Start
        for k in 0..<len {
            guard start + k < n else { throw error(.truncated, "input ends inside '\(word)'", at: start + k) }
            guard b[start + k] == w[k] else { throw error(.syntax, "unexpected \(describe(start + k)); expected '\(word)'", at: start + k) }
        }
        i = start + len
    }

    mutating func array() throws {
        try sink.beginArray(count: nil, at: i..<(i + 1))
        i += 1
        skipSpace()
        if i < n && b[i] == 0x5D {
            i += 1
            return try sink.endArray(at: (i - 1)..<i)
        }
        var count = 0
        while true {
            skipSpace()
            do {
                try value()
            } catch let e as PlistError {
                throw e.inside(String(count))
            }
            count += 1
            passed()
            skipSpace()
            guard i < n else { throw error(.truncated, "input ends inside an array", at: i) }
            if b[i] == 0x2C {
                i += 1
                continue
            }
            if b[i] == 0x5D {
                i += 1
                return try sink.endArray(at: (i - 1)..<i)
            }
            throw error(.syntax, "unexpected \(describe(i)) in an array; expected ',' or ']'", at: i)
        }
    }

    mutating func object() throws {
        try sink.beginDictionary(count: nil, at: i..<(i + 1))
        i += 1
        skipSpace()
        if i < n && b[i] == 0x7D {
            i += 1
            return try sink.endDictionary(at: (i - 1)..<i)
        }
        while true {
            skipSpace()
            guard i < n else { throw error(.truncated, "input ends inside an object", at: i) }
            guard b[i] == 0x22 else { throw error(.syntax, "unexpected \(describe(i)); expected a string key", at: i) }
            let keyAt = i
            let key = try string()
            try sink.key(key, at: keyAt..<i)
            skipSpace()
            guard i < n else { throw error(.truncated, "input ends after an object key", at: i) }
            guard b[i] == 0x3A else { throw error(.syntax, "unexpected \(describe(i)); expected ':' after a key", at: i) }
            i += 1
            skipSpace()
            do {
                try value()
            } catch let e as PlistError {
                throw e.inside(key)
            }
            passed()
            skipSpace()
            guard i < n else { throw error(.truncated, "input ends inside an object", at: i) }
            if b[i] == 0x2C {
                i += 1
                continue
            }
            if b[i] == 0x7D {
                i += 1
                return try sink.endDictionary(at: (i - 1)..<i)
            }
            throw error(.syntax, "unexpected \(describe(i)) in an object; expected ',' or '}'", at: i)
        }
    }

    // MARK: Strings

    /// A string literal starting at the opening quote.
    mutating func string() throws -> String {
        let open = i
        i += 1
        let start = i
        var ascii = true
        // Fast scan: most strings have no escapes.
        while i < n {
            if i + 8 <= n {
                let word = (b.baseAddress! + i).loadUnaligned(as: UInt64.self)
                if !SWAR.hasJSONSpecial(word, slash: false) {
                    if word & SWAR.high != 0 { ascii = false }
                    i += 8
                    continue
                }
            }
            let c = b[i]
            if c == 0x22 {
                let run = UnsafeRawBufferPointer(rebasing: b[start..<i])
                i += 1
                return try makeString(run, ascii: ascii, offset: start)
            }
            if c == 0x5C { break }
            if c < 0x20 { throw error(.syntax, "a control character (\(describe(i))) must be escaped inside a string", at: i) }
            if c >= 0x80 { ascii = false }
            i += 1
        }
        guard i < n else { throw error(.truncated, "input ends inside a string that starts here", at: open) }
        // Slow path: copy the run so far, then decode escapes.
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeRawBufferPointer(rebasing: b[start..<i]))
        while i < n {
            let c = b[i]
            if c == 0x22 {
                i += 1
                let s = scratch
                return try s.withUnsafeBytes { try makeString($0, ascii: ascii, offset: start, fromEscapes: true) }
            }
            if c == 0x5C {
                try escape()
                continue
            }
            if c < 0x20 { throw error(.syntax, "a control character (\(describe(i))) must be escaped inside a string", at: i) }
            if c >= 0x80 { ascii = false }
            scratch.append(c)
            i += 1
        }
        throw error(.truncated, "input ends inside a string that starts here", at: open)
    }

    /// Decodes one escape at `i` (the backslash) into `scratch`.
    mutating func escape() throws {
        let at = i
        guard i + 1 < n else { throw error(.truncated, "input ends inside an escape", at: at) }
        let c = b[i + 1]
        i += 2
        switch c {
        case 0x22: scratch.append(0x22)
        case 0x5C: scratch.append(0x5C)
        case 0x2F: scratch.append(0x2F)
        case 0x62: scratch.append(0x08)
        case 0x66: scratch.append(0x0C)
        case 0x6E: scratch.append(0x0A)
        case 0x72: scratch.append(0x0D)
        case 0x74: scratch.append(0x09)
        case 0x75:
            var scalar = try hex4()
            if scalar >= 0xD800 && scalar < 0xDC00 {
                guard i + 1 < n, b[i] == 0x5C, b[i + 1] == 0x75 else {
                    throw error(.encoding, "a \\u escape of a high surrogate must be followed by a low surrogate", at: at)
                }
                i += 2
                let low = try hex4()
                guard low >= 0xDC00 && low < 0xE000 else {
                    throw error(.encoding, "a high surrogate escape is followed by a \\u escape that is not a low surrogate", at: at)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if scalar >= 0xDC00 && scalar < 0xE000 {
                throw error(.encoding, "a \\u escape of a lone low surrogate", at: at)
            }
            UTF8Encoding.append(scalar, to: &scratch)
        default:
            throw error(.syntax, "invalid escape: a backslash followed by \(describe(at + 1))", at: at)
        }
    }

    mutating func hex4() throws -> UInt32 {
        guard i + 4 <= n else { throw error(.truncated, "input ends inside a \\u escape", at: i) }
        var v: UInt32 = 0
        for k in 0..<4 {
            let c = b[i + k]
            let d: UInt8
            switch c {
            case 0x30...0x39: d = c - 0x30
            case 0x41...0x46: d = c - 0x41 + 10
            case 0x61...0x66: d = c - 0x61 + 10
            default: throw error(.syntax, "a \\u escape needs four hex digits, not \(describe(i + k))", at: i + k)
            }
            v = v << 4 | UInt32(d)
        }
        i += 4
        return v
    }


    /// A `String` from UTF-8 bytes, validating them; `offset` is where `bytes` starts in the input (for errors).
    func makeString(_ bytes: UnsafeRawBufferPointer, ascii: Bool, offset: Int, fromEscapes: Bool = false) throws -> String {
        let u = bytes.assumingMemoryBound(to: UInt8.self)
        if ascii { return String(readerUTF8: bytes) }
        if let s = String(validating: u, as: UTF8.self) { return s }
        // Find the first invalid sequence to report its offset. With escapes decoded, offsets inside the scratch
        // copy no longer match the input, so search the input from the string's start instead.
        let bad = UTF8Validation.firstInvalidOffset(fromEscapes ? UnsafeRawBufferPointer(rebasing: b[offset..<n]) : bytes) ?? 0
        throw error(.encoding, "invalid UTF-8 in a string", at: offset + bad)
    }

    // MARK: Numbers


    mutating func number() throws -> PlistValue {
        let start = i
        var negative = false
        if b[i] == 0x2D {
            negative = true
            i += 1
        }
        guard i < n else { throw error(.truncated, "input ends inside a number", at: i) }
        guard b[i] >= 0x30 && b[i] <= 0x39 else { throw error(.syntax, "a '-' must be followed by a digit, not \(describe(i))", at: i) }
        // Integer part: 0 or [1-9][0-9]*.
        var magnitude: UInt64 = 0
        var overflow = false
        var significant = 0  // digits accumulated into `mantissa` (for the exact fast path)
        var mantissa: UInt64 = 0
        var dropped = false  // a nonzero digit was not accumulated
        if b[i] == 0x30 {
            i += 1
            if i < n && b[i] >= 0x30 && b[i] <= 0x39 { throw error(.syntax, "a number cannot have a leading zero", at: start) }
        } else {
            while i < n && b[i] >= 0x30 && b[i] <= 0x39 {
                let d = UInt64(b[i] - 0x30)
                let (m1, o1) = magnitude.multipliedReportingOverflow(by: 10)
                let (m2, o2) = m1.addingReportingOverflow(d)
                if o1 || o2 { overflow = true } else { magnitude = m2 }
                i += 1
            }
        }
        var isInteger = true
        if i < n && b[i] == 0x2E {
            isInteger = false
            i += 1
            guard i < n && b[i] >= 0x30 && b[i] <= 0x39 else {
                throw error(i < n ? .syntax : .truncated, "a '.' in a number must be followed by a digit", at: i)
            }
            while i < n && b[i] >= 0x30 && b[i] <= 0x39 { i += 1 }
        }
        if i < n && (b[i] == 0x65 || b[i] == 0x45) {
            isInteger = false
            i += 1
            if i < n && (b[i] == 0x2B || b[i] == 0x2D) { i += 1 }
            guard i < n && b[i] >= 0x30 && b[i] <= 0x39 else {
                throw error(i < n ? .syntax : .truncated, "an exponent in a number needs digits", at: i)
            }
            while i < n && b[i] >= 0x30 && b[i] <= 0x39 { i += 1 }
        }
        if isInteger && !overflow, let v = PlistInteger(negative: negative, magnitude: magnitude) {
            return .integer(v)
        }
        // Exact fast path (Clinger): at most 15 significant digits and a power of ten up to 10^22.
        var exponent = 0
        var k = negative ? start + 1 : start
        var fraction = false
        var expStart = -1
        while k < i {
            let c = b[k]
            if c == 0x2E {
                fraction = true
            } else if c == 0x65 || c == 0x45 {
                expStart = k + 1
                break
            } else {
                let d = UInt64(c - 0x30)
                if significant < 15 {
                    if mantissa != 0 || d != 0 { significant += 1 }
                    mantissa = mantissa * 10 + d
                    if fraction { exponent -= 1 }
                } else {
                    if d != 0 { dropped = true }
                    if !fraction { exponent += 1 }
                }
            }
            k += 1
        }
        if expStart >= 0 {
            var e = 0
            var eNeg = false
            var j = expStart
            if b[j] == 0x2B || b[j] == 0x2D {
                eNeg = b[j] == 0x2D
                j += 1
            }
            while j < i {
                if e < 100_000 { e = e * 10 + Int(b[j] - 0x30) }
                j += 1
            }
            exponent += eNeg ? -e : e
        }
        if !dropped && mantissa < (1 << 53) && exponent >= -22 && exponent <= 22 {
            var d = Double(mantissa)
            d = exponent < 0 ? d / jsonExactPowers[-exponent] : d * jsonExactPowers[exponent]
            return .real(PlistReal(negative ? -d : d))
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: b[start..<i]), as: UTF8.self)
        guard let d = Double(text), d.isFinite else {
            throw error(.invalidValue, "the number \(text) is outside the range of a double", at: start)
        }
        return .real(PlistReal(d))
    }
}

/// Powers of ten a `Double` holds exactly (for the exact fast path of number parsing).
private let jsonExactPowers: [Double] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
    1e20, 1e21, 1e22,
]

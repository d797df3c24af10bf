import FoundationEssentials

/// Writes OpenStep, GNUstep and `.strings` text.
///
/// Layout (stable, the same for every run): a container opens on the current line; each entry sits on its own line
/// indented by four spaces per level; the closer is indented like the line that opened it. Empty containers are
/// `{}` and `()`. Dictionary entries are `key = value;`, array elements are separated by `,` (no trailing comma).
/// The document ends with a newline. Keys are sorted by UTF-16 code units (as CF sorts) when `sortKeys` is set,
/// else kept in insertion order.
///
/// Strings are left unquoted when they consist only of `[A-Za-z0-9_$/:.-]` and do not start with `//`; otherwise
/// they are quoted with `"` and escape `"` `\` as `\"` `\\`, newline, tab and carriage return as `\n` `\t` `\r`,
/// other C0 controls and DEL as three-digit octal (`\001`), and keep everything else (including non-BMP scalars)
/// as raw UTF-8 — which Core Foundation, GNUstep and PlistKit all read back to the same scalars.
enum OpenStepWriter {
    /// Writes `value` in `format` (`.openStep`, `.gnustep` or `.strings`).
    static func write(_ value: PlistValue, format: PlistFormat, options: PlistWriteOptions) throws -> [UInt8] {
        do {
            if format == .strings { return try StringsWriter.write(value, options: options) }
            let gnustep = format == .gnustep
            // Write straight into the result's storage, sized by an upper bound (untouched pages cost nothing).
            let bound = OpenStepSizeBound.bound(value, gnustep: gnustep, depth: 0, maxDepth: options.maxDepth) + 1
            var spilled: [UInt8]?
            let result = try [UInt8](unsafeUninitializedCapacity: bound) { storage, written in
                written = 0
                var sink = OpenStepWriterSink(
                    gnustep: gnustep, options: options,
                    out: storage.baseAddress.map { OpenStepTextOutput(external: $0, capacity: bound) } ?? OpenStepTextOutput())
                do {
                    try sink.receive(value, sortedBy: UTF16KeyOrder.self, if: options.sortKeys)
                    sink.finishDocument()
                } catch {
                    sink.out.discard()
                    throw error
                }
                if sink.out.ownsMemory {
                    spilled = sink.out.finish()
                } else {
                    written = sink.out.count
                }
            }
            return spilled ?? result
        } catch var error as PlistError {
            error.format = format
            throw error
        }
    }
}

/// The OpenStep and GNUstep writer as an event sink: a container opens on the current line, each entry sits on its
/// own line indented by four spaces per level, the closer is indented like the line that opened it. Keys are written
/// in the order they arrive (the source orders them).
struct OpenStepWriterSink: StreamingWriterSink {
    var out: OpenStepTextOutput
    let gnustep: Bool
    let lossy: Bool
    let maxDepth: Int
    /// Per open container: whether it is an array, and whether it has no child yet.
    private var containers: [(isArray: Bool, empty: Bool)] = []

    init(gnustep: Bool, options: PlistWriteOptions, out: OpenStepTextOutput) {
        self.out = out
        self.gnustep = gnustep
        lossy = options.lossy
        maxDepth = options.maxDepth
    }

    /// The newline that ends the document.
    mutating func finishDocument() {
        out.append(0x0A)
    }

    mutating func abandonStream() { out.discard() }

    mutating func finishStream() {
        finishDocument()
        out.flush()
        out.discard()
    }

    private var depth: Int { containers.count }

    mutating func indent(_ depth: Int) {
        out.append(repeating: 0x20, count: depth * 4)
    }

    /// What goes before a child of the innermost container: the line break after its opener or the previous
    /// element's `,`, and the indentation (a dictionary's value follows its key on the same line).
    @inline(__always)
    private mutating func childFollows(isKey: Bool) {
        guard let last = containers.last else { return }
        if last.isArray {
            out.append(last.empty ? 0x0A : 0x2C)
            if !last.empty { out.append(0x0A) }
            indent(depth)
        } else if isKey {
            if last.empty { out.append(0x0A) }
            indent(depth)
        } else {
            return  // the value of the key just written
        }
        if last.empty { containers[containers.count - 1].empty = false }
    }

    /// After a complete child: a dictionary entry ends with `;`.
    @inline(__always)
    private mutating func childEnded() {
        if let last = containers.last, !last.isArray { out.append(";\n") }
    }

    mutating func beginArray(count: Int?, at range: Range<Int>) throws { try begin(0x28, isArray: true) }
    mutating func beginDictionary(count: Int?, at range: Range<Int>) throws { try begin(0x7B, isArray: false) }

    @inline(__always)
    private mutating func begin(_ bracket: UInt8, isArray: Bool) throws {
        guard depth < maxDepth else { throw Self.tooDeep(maxDepth) }
        childFollows(isKey: false)
        out.append(bracket)
        containers.append((isArray, true))
    }

    mutating func endArray(at range: Range<Int>) throws { end(0x29) }
    mutating func endDictionary(at range: Range<Int>) throws { end(0x7D) }

    @inline(__always)
    private mutating func end(_ bracket: UInt8) {
        guard let (isArray, empty) = containers.popLast() else { return }
        if !empty {
            if isArray { out.append(0x0A) }
            indent(depth)
        }
        out.append(bracket)
        childEnded()
    }

    mutating func key(_ key: consuming String, at range: Range<Int>) throws {
        childFollows(isKey: true)
        OpenStepStringQuoting.append(key, to: &out, alwaysQuote: false)
        out.append(" = ")
    }

    mutating func value(_ v: PlistValue, at range: Range<Int>) throws {
        switch v {
        case .string, .data: break
        default:
            if !gnustep && !lossy {
                throw PlistError(
                    .unrepresentable,
                    "OpenStep has no \(v.typeName) values (only strings, data, arrays and dictionaries); "
                        + "write it as a string with the lossy option (plutil -lossy), or use the GNUstep format")
            }
        }
        childFollows(isKey: false)
        switch v {
        case .string(let s):
            OpenStepStringQuoting.append(s, to: &out, alwaysQuote: false)
        case .data(let d):
            if gnustep {
                out.append("<[")
                d.withUnsafeBytes { out.appendBase64($0) }
                out.append("]>")
            } else {
                Self.appendHexData(d, to: &out)
            }
        default:
            if gnustep {
                try GNUstepScalarWriter.append(v, to: &out)
            } else {
                OpenStepStringQuoting.append(LossySpelling.text(v), to: &out, alwaysQuote: false)
            }
        }
        childEnded()
    }

    static func tooDeep(_ maxDepth: Int) -> PlistError {
        PlistError(.depthLimit, "value is nested more than \(maxDepth) levels deep (maxDepth)")
    }

    /// `<0fbd7777 20480102 ab>`: lowercase hex in groups of four bytes, a whole group at a time.
    static func appendHexData(_ d: Data, to out: inout OpenStepTextOutput) {
        hexDigitPairs.withUnsafeBufferPointer { pairs in
            d.withUnsafeBytes { bytes in
                let n = bytes.count
                out.reserve(n * 9 / 4 + 3)
                out.appendUnchecked(0x3C)
                var k = 0
                while k + 4 <= n {
                    if k > 0 { out.appendUnchecked(0x20) }
                    out.appendUncheckedWord(hexDigits(bytes.loadUnaligned(fromByteOffset: k, as: UInt32.self)))
                    k += 4
                }
                if k < n && k > 0 { out.appendUnchecked(0x20) }
                while k < n {
                    out.appendUncheckedPair(pairs[Int(bytes[k])])
                    k += 1
                }
                out.appendUnchecked(0x3E)
            }
        }
    }

    /// The eight lowercase hex digits of four bytes (in memory order), as the bytes of one word in memory order.
    @inline(__always)
    static func hexDigits(_ bytes: UInt32) -> UInt64 {
        // Byte i of the input to the low byte of 16-bit lane i.
        var x = UInt64(UInt32(littleEndian: bytes))
        x = (x | x << 16) & 0x0000_FFFF_0000_FFFF
        x = (x | x << 8) & 0x00FF_00FF_00FF_00FF
        // Lane i: the high nibble (the first digit) in its low byte, the low nibble in its high byte.
        let nibbles = (x >> 4) & 0x000F_000F_000F_000F | (x & 0x000F_000F_000F_000F) << 8
        // A nibble of 10 or more (bit 4 set once 6 is added; no carry leaves its byte) is a letter: '0' + n + 0x27.
        let letters = ((nibbles &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        return (nibbles &+ 0x3030_3030_3030_3030 &+ letters &* 0x27).littleEndian
    }

    /// The two lowercase hex digits of every byte, as one little-endian `UInt16` to store at once.
    static let hexDigitPairs: [UInt16] = (0..<256).map { b in
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        return (UInt16(digits[b & 15]) << 8 | UInt16(digits[b >> 4])).littleEndian
    }
}

/// How scalars OpenStep cannot hold are spelled when `PlistWriteOptions.lossy` is set.
///
/// Integers in decimal (`-5`, `18446744073709551615`); reals as Swift prints them, the shortest text that reads back
/// to the same `Double` (`0.1`, `1e+300`, `-0.0`, `nan`, `inf`, `-inf`); Booleans `YES` / `NO`; dates
/// `2024-01-02 03:04:05 +0000` in UTC (to the second, as `NSDate` describes itself); UIDs as their decimal number.
enum LossySpelling {
    static func text(_ v: PlistValue) -> String {
        switch v {
        case .integer(let i): return i.description
        case .real(let r): return r.value.description
        case .bool(let b): return b ? "YES" : "NO"
        case .date(let d): return PlistDescription.dateDescription(d)
        case .uid(let u): return String(u.value)
        case .string(let s): return s
        default: return ""
        }
    }
}

/// Quoting and escaping of OpenStep strings.
enum OpenStepStringQuoting {
    /// Appends `s`, bare when it may be and `alwaysQuote` is off, else in double quotes with escapes.
    static func append(_ s: String, to out: inout OpenStepTextOutput, alwaysQuote: Bool) {
        let done: Void? = s.utf8.withContiguousStorageIfAvailable { append($0, to: &out, alwaysQuote: alwaysQuote) }
        if done == nil {
            var copy = s
            copy.withUTF8 { append($0, to: &out, alwaysQuote: alwaysQuote) }
        }
    }

    static func append(_ u: UnsafeBufferPointer<UInt8>, to out: inout OpenStepTextOutput, alwaysQuote: Bool) {
        if !alwaysQuote && canBeBare(u) {
            out.append(u)
            return
        }
        // Worst case: every byte becomes a four-byte octal escape.
        out.reserve(u.count * 4 + 2)
        out.appendUnchecked(0x22)
        var runStart = 0
        var k = 0
        let n = u.count
        let raw = UnsafeRawPointer(u.baseAddress)
        while k < n {
            // Eight bytes at a time while none of them needs an escape (n > 0 here, so `raw` is not nil).
            if k + 8 <= n, let raw, !Self.needsEscape(raw.loadUnaligned(fromByteOffset: k, as: UInt64.self)) {
                k += 8
                continue
            }
            let c = u[k]
            if c >= 0x20 && c != 0x22 && c != 0x5C && c != 0x7F {
                k += 1
                continue
            }
            if runStart < k { out.append(UnsafeBufferPointer(rebasing: u[runStart..<k])) }
            out.appendUnchecked(0x5C)
            switch c {
            case 0x22: out.appendUnchecked(0x22)
            case 0x5C: out.appendUnchecked(0x5C)
            case 0x0A: out.appendUnchecked(0x6E)
            case 0x09: out.appendUnchecked(0x74)
            case 0x0D: out.appendUnchecked(0x72)
            default:
                // Three octal digits always, so a following digit is never taken into the escape.
                out.appendUnchecked(0x30 + (c >> 6))
                out.appendUnchecked(0x30 + (c >> 3 & 7))
                out.appendUnchecked(0x30 + (c & 7))
            }
            k += 1
            runStart = k
        }
        if runStart < n { out.append(UnsafeBufferPointer(rebasing: u[runStart..<n])) }
        out.appendUnchecked(0x22)
    }

    /// Whether any of eight bytes is below 0x20 or is `"`, `\` or DEL.
    @inline(__always)
    static func needsEscape(_ w: UInt64) -> Bool {
        SWAR.hasLess(w, 0x20) || SWAR.hasByte(w, 0x22) || SWAR.hasByte(w, 0x5C) || SWAR.hasByte(w, 0x7F)
    }

    /// Non-empty, only `[A-Za-z0-9_$/:.-]`, and not starting with `//` (which a reader would take for a comment).
    @inline(__always)
    static func canBeBare(_ u: UnsafeBufferPointer<UInt8>) -> Bool {
        guard !u.isEmpty else { return false }
        if u.count >= 2 && u[0] == 0x2F && u[1] == 0x2F { return false }
        for c in u where !OpenStepBytes.isUnquoted(c) { return false }
        return true
    }
}

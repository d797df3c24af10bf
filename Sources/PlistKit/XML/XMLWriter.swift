import FoundationEssentials

/// Writes Apple XML property lists byte-for-byte as Core Foundation does (`PropertyListSerialization` with
/// `.xml`, Apple `plutil -convert xml1`): the same prolog, one tab per level, `<array/>`/`<dict/>` for empty
/// collections, keys in UTF-16 code-unit order, only `<`, `>` and `&` escaped, `%.17g` reals, and base64 lines
/// whose width shrinks with depth.
///
/// Deliberate differences from Core Foundation: a date that is NaN, infinite or more than about 285 million years
/// from 2001 is an `.unrepresentable` error (Core Foundation writes a garbled date it cannot read back), and nesting
/// deeper than `options.maxDepth` is a `.depthLimit` error.
enum XMLWriter {
    static func write(_ value: PlistValue, options: PlistWriteOptions) throws -> [UInt8] {
        var sink = XMLWriterSink(maxDepth: options.maxDepth)
        do {
            try sink.receive(value, sortedBy: UTF16KeyOrder.self, if: options.sortKeys)
        } catch {
            sink.out.discard()
            throw error
        }
        return sink.finish()
    }
}

/// The XML writer as an event sink: the prolog at creation, each event's text as it comes, `</plist>` at `finish`.
/// Keys are written in the order they arrive (the source orders them). When a container's count is not known in
/// advance, its opening tag waits for its first child, so an empty one is still `<array/>`.
struct XMLWriterSink: PlistEventSink {
    var out: RawOutput
    let maxDepth: Int
    /// Open containers.
    private var depth = 0
    /// The innermost open container's state: its tag is not finished yet while `openingPending` (count unknown, no
    /// child yet), and its closer is written unless it was written empty. Only the innermost one can be other than
    /// `open` (a child makes its parent open), so one value is enough: no stack to keep per level.
    private var innermost = ContainerState.open
    private enum ContainerState { case open, writtenEmpty, openingPending }

    init(maxDepth: Int, drain: OutputDrain? = nil) {
        self.maxDepth = maxDepth
        out = drain.map(RawOutput.init(streamingTo:)) ?? RawOutput(capacity: 1 << 16)
        out.append(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">

            """)
    }

    /// The document's bytes (the buffer is freed).
    mutating func finish() -> [UInt8] {
        out.append("</plist>\n")
        return out.finish()
    }
}

extension XMLWriterSink: StreamingWriterSink {
    mutating func abandonStream() { out.discard() }

    mutating func finishStream() {
        out.append("</plist>\n")
        out.flush()
        out.discard()
    }

    /// Finishes the innermost container's opening tag if it was waiting for its first child.
    @inline(__always)
    private mutating func childFollows() {
        guard innermost == .openingPending else { return }
        out.append(">\n")
        innermost = .open
    }

    // Inlined into the tree walk's loops, as the writer's own recursion was.
    @inline(__always)
    mutating func beginArray(count: Int?, at range: Range<Int>) throws {
        try begin("array", count: count)
    }

    @inline(__always)
    mutating func beginDictionary(count: Int?, at range: Range<Int>) throws {
        try begin("dict", count: count)
    }

    @inline(__always)
    private mutating func begin(_ tag: StaticString, count: Int?) throws {
        guard depth < maxDepth else { throw depthError() }
        childFollows()
        out.appendTabs(depth)
        out.append(0x3C)
        out.append(tag)
        depth += 1
        switch count {
        case 0?:
            out.append("/>\n")
            innermost = .writtenEmpty
        case nil:
            innermost = .openingPending
        default:
            out.append(">\n")
            innermost = .open
        }
    }

    @inline(__always)
    mutating func endArray(at range: Range<Int>) throws { end("array") }
    @inline(__always)
    mutating func endDictionary(at range: Range<Int>) throws { end("dict") }

    @inline(__always)
    private mutating func end(_ tag: StaticString) {
        guard depth > 0 else { return }
        depth -= 1
        let state = innermost
        innermost = .open
        switch state {
        case .writtenEmpty: break
        case .openingPending: out.append("/>\n")
        case .open:
            out.appendTabs(depth)
            out.append("</")
            out.append(tag)
            out.append(">\n")
        }
    }

    @inline(__always)
    mutating func key(_ key: consuming String, at range: Range<Int>) throws {
        childFollows()
        out.appendTabs(depth)
        out.append("<key>")
        escaped(key)
        out.append("</key>\n")
    }

    /// Writes one scalar element (with its indentation and final newline).
    mutating func value(_ v: PlistValue, at range: Range<Int>) throws {
        childFollows()
        let depth = depth
        out.appendTabs(depth)
        switch v {
        case .string(let s):
            out.append("<string>")
            escaped(s)
            out.append("</string>\n")
        case .integer(let i):
            out.append("<integer>")
            out.appendDecimal(i)
            out.append("</integer>\n")
        case .real(let r):
            out.append("<real>")
            real(r.value)
            out.append("</real>\n")
        case .bool(let b):
            if b { out.append("<true/>\n") } else { out.append("<false/>\n") }
        case .date(let d):
            try date(d)
        case .data(let d):
            data(d, depth: depth)
        case .uid(let u):
            out.append("<dict>\n")
            out.appendTabs(depth + 1)
            out.append("<key>CF$UID</key>\n")
            out.appendTabs(depth + 1)
            out.append("<integer>")
            out.appendDecimal(u.value)
            out.append("</integer>\n")
            out.appendTabs(depth)
            out.append("</dict>\n")
        case .array, .dictionary:
            preconditionFailure("containers arrive as begin and end events")
        }
    }

    private func depthError() -> PlistError {
        PlistError(.depthLimit, "nesting is deeper than the limit of \(maxDepth)", format: .xml)
    }

    /// The string's UTF-8 with `<`, `>` and `&` replaced by entities (Core Foundation escapes nothing else:
    /// quotes, control characters and NUL are written as they are).
    @inline(__always)
    private mutating func escaped(_ s: String) {
        if let done = s.utf8.withContiguousStorageIfAvailable({ buf -> Bool in
            escaped(buf)
            return true
        }), done {
            return
        }
        var copy = s
        copy.withUTF8 { escaped($0) }
    }

    @inline(__always)
    private mutating func escaped(_ buf: UnsafeBufferPointer<UInt8>) {
        out.appendEscaping(
            buf, wordIsPlain: { !(SWAR.hasByte($0, 0x26) || SWAR.hasByte($0, 0x3C) || SWAR.hasByte($0, 0x3E)) },
            // '&' 0x26, '<' 0x3C, '>' 0x3E: one comparison rules out most bytes.
            needsEscape: { $0 <= 0x3E && ($0 == 0x26 || $0 == 0x3C || $0 == 0x3E) }
        ) { c, out in
            switch c {
            case 0x26: out.append("&amp;")
            case 0x3C: out.append("&lt;")
            default: out.append("&gt;")
            }
        }
    }

    /// Core Foundation's real text: `nan`, `+infinity`, `-infinity`, `0.0` for both zeros, else `%.17g`.
    @inline(__always)
    private mutating func real(_ v: Double) {
        if v.isNaN {
            out.append("nan")
        } else if v.isInfinite {
            if v < 0 { out.append("-infinity") } else { out.append("+infinity") }
        } else if v == 0 {
            out.append("0.0")
        } else {
            out.appendG17(v)
        }
    }

    /// `<date>YYYY-MM-DDTHH:MM:SSZ</date>`, seconds rounded down, years below 1000 zero-padded and negative years
    /// as `-001`, as Core Foundation's `%04d-%02d-%02dT%02d:%02d:%02dZ` prints them.
    private mutating func date(_ d: PlistDate) throws {
        guard let c = PlistDateText.components(d) else {
            throw PlistError(
                .unrepresentable, "the date \(d.secondsSinceReferenceDate) has no XML form (it must be finite and within about 285 million years of 2001)",
                format: .xml)
        }
        out.append("<date>")
        out.append(maxCount: 48) { p in
            var n = 0
            if c.year < 0 {
                p[0] = 0x2D
                n = 1
                let y = UInt64(-c.year)
                if y < 100 { p[n] = 0x30; n += 1 }
                if y < 10 { p[n] = 0x30; n += 1 }
                n += NumberFormatting.writeDecimal(y, negative: false, into: p + n)
            } else {
                let y = UInt64(c.year)
                if y < 1000 { p[n] = 0x30; n += 1 }
                if y < 100 { p[n] = 0x30; n += 1 }
                if y < 10 { p[n] = 0x30; n += 1 }
                n += NumberFormatting.writeDecimal(y, negative: false, into: p + n)
            }
            @inline(__always) func two(_ v: Int, _ sep: UInt8) {
                p[n] = sep
                p[n + 1] = UInt8(0x30 + v / 10)
                p[n + 2] = UInt8(0x30 + v % 10)
                n += 3
            }
            two(c.month, 0x2D)
            two(c.day, 0x2D)
            two(c.hour, 0x54)
            two(c.minute, 0x3A)
            two(c.second, 0x3A)
            p[n] = 0x5A
            return n + 1
        }
        out.append("</date>\n")
    }

    /// `<data>`, then base64 lines of `76 − 8·min(depth, 8)` characters each prefixed by `min(depth, 8)` tabs,
    /// then `</data>` at the element's own indentation.
    private mutating func data(_ d: Data, depth: Int) {
        out.append("<data>\n")
        let tabs = min(depth, 8)
        let width = 76 - 8 * tabs  // a multiple of 4, so every full line encodes width/4*3 input bytes
        d.withUnsafeBytes { raw in
            let length = Base64.linesLength(raw.count, width: width, indent: tabs)
            out.append(maxCount: length) { Base64.encodeLines(raw, width: width, indent: tabs, into: $0) }
        }
        out.appendTabs(depth)
        out.append("</data>\n")
    }
}

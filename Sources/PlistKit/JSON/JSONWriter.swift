import FoundationEssentials

/// Writes JSON the way Apple `plutil -convert json` does (its `JSONSerialization` writer, swift-corelibs-foundation):
///
/// - the root must be an array or a dictionary;
/// - strings escape `"`, `\`, `/` (as `\/`), `\b \f \n \r \t`, other controls as lowercase `\u00xx`; everything
///   else, including non-ASCII, is written as UTF-8;
/// - integers in decimal; reals as Swift's shortest round-trip text with a trailing `.0` removed (`2`, `0.1`,
///   `1e+20`, `-0`); 32-bit reals with `Float`'s text; Booleans `true`/`false`;
/// - `options.prettyPrinted` (`plutil -r`): two-space indentation, `"key" : value`, empty collections as
///   `[`, a blank line and `]` — exactly `JSONSerialization`'s `.prettyPrinted`;
/// - no final newline.
///
/// Dates, data, UIDs, NaN and infinities have no JSON form and throw `.unrepresentable` with the key path.
///
/// Key order: when `options.sortKeys` is true (the default) keys are sorted as `plutil -r` sorts them
/// (`JSONKeyOrder`), in both layouts — `plutil` without `-r` prints dictionary hash order, which is not
/// reproducible, so sorted output is the deterministic stand-in. With `sortKeys` false, insertion order is kept.
enum JSONWriter {
    static func write(_ value: PlistValue, options: PlistWriteOptions) throws -> [UInt8] {
        var sink = JSONWriterSink(pretty: options.prettyPrinted, maxDepth: options.maxDepth)
        do {
            try sink.receive(value, sortedBy: JSONKeyOrder.self, if: options.sortKeys)
        } catch {
            sink.out.discard()
            throw error
        }
        return sink.out.finish()
    }
}

/// The JSON writer as an event sink; keys are written in the order they arrive (the source orders them).
struct JSONWriterSink: StreamingWriterSink {
    var out: RawOutput
    let pretty: Bool
    let maxDepth: Int
    /// Per open container: whether it has no child yet.
    private var firstChild: [Bool] = []
    /// A key was written and its value comes next (no separator before it).
    private var afterKey = false

    init(pretty: Bool, maxDepth: Int, drain: OutputDrain? = nil) {
        self.pretty = pretty
        self.maxDepth = maxDepth
        out = drain.map(RawOutput.init(streamingTo:)) ?? RawOutput(capacity: 1 << 14)
    }

    private var depth: Int { firstChild.count }

    mutating func abandonStream() { out.discard() }

    mutating func finishStream() {
        out.flush()
        out.discard()
    }

    private func unrepresentable(_ what: String) -> PlistError {
        PlistError(.unrepresentable, "\(what) has no JSON form", format: .json)
    }

    /// The separator and indentation before a child of the innermost container (nothing before a key's value).
    @inline(__always)
    private mutating func childFollows() {
        if afterKey {
            afterKey = false
            return
        }
        guard let first = firstChild.last else { return }
        if !first {
            if pretty { out.append(",\n") } else { out.append(0x2C) }
        } else {
            firstChild[firstChild.count - 1] = false
        }
        if pretty { out.appendSpaces(2 * depth) }
    }

    mutating func beginArray(count: Int?, at range: Range<Int>) throws { try begin(0x5B) }
    mutating func beginDictionary(count: Int?, at range: Range<Int>) throws { try begin(0x7B) }

    @inline(__always)
    private mutating func begin(_ bracket: UInt8) throws {
        guard depth < maxDepth else { throw PlistError(.depthLimit, "nesting is deeper than the limit of \(maxDepth)", format: .json) }
        childFollows()
        out.append(bracket)
        if pretty { out.append(0x0A) }
        firstChild.append(true)
    }

    mutating func endArray(at range: Range<Int>) throws { end(0x5D) }
    mutating func endDictionary(at range: Range<Int>) throws { end(0x7D) }

    @inline(__always)
    private mutating func end(_ bracket: UInt8) {
        _ = firstChild.popLast()
        if pretty {
            out.append(0x0A)
            out.appendSpaces(2 * depth)
        }
        out.append(bracket)
    }

    mutating func key(_ key: consuming String, at range: Range<Int>) throws {
        childFollows()
        string(key)
        if pretty { out.append(" : ") } else { out.append(0x3A) }
        afterKey = true
    }

    private static let scalarRootMessage = "JSON output needs an array or a dictionary at the top level"

    /// Whether `error` is this writer's refusal of a scalar at the top level.
    static func isScalarRootRefusal(_ error: PlistError) -> Bool {
        error.kind == .unrepresentable && error.keyPath == nil && error.message.hasPrefix(scalarRootMessage)
    }

    mutating func value(_ v: PlistValue, at range: Range<Int>) throws {
        guard depth > 0 else {
            throw PlistError(.unrepresentable, "\(Self.scalarRootMessage), not a \(v.typeName)", format: .json)
        }
        switch v {
        case .date: throw unrepresentable("a date")
        case .data: throw unrepresentable("data")
        case .uid: throw unrepresentable("a UID")
        case .real(let r) where !r.value.isFinite: throw unrepresentable("the real number \(r.value)")
        default: break
        }
        childFollows()
        switch v {
        case .string(let s):
            string(s)
        case .integer(let i):
            out.appendDecimal(i)
        case .real(let r):
            var text = r.isFloat32 ? Float(r.value).description : r.value.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            out.append(utf8: text)
        case .bool(let b):
            if b { out.append("true") } else { out.append("false") }
        default:
            preconditionFailure("containers arrive as begin and end events; the rest was refused above")
        }
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// A JSON string literal with `JSONSerialization`'s escapes.
    private mutating func string(_ s: String) {
        out.append(0x22)
        if s.utf8.withContiguousStorageIfAvailable({ escaped($0) }) == nil {
            var copy = s
            copy.withUTF8 { escaped($0) }
        }
        out.append(0x22)
    }

    @inline(__always)
    private mutating func escaped(_ buf: UnsafeBufferPointer<UInt8>) {
        out.appendEscaping(
            buf, wordIsPlain: { !SWAR.hasJSONSpecial($0, slash: true) },
            needsEscape: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x2F }
        ) { c, out in
            switch c {
            case 0x22: out.append("\\\"")
            case 0x5C: out.append("\\\\")
            case 0x2F: out.append("\\/")
            case 0x08: out.append("\\b")
            case 0x0C: out.append("\\f")
            case 0x0A: out.append("\\n")
            case 0x0D: out.append("\\r")
            case 0x09: out.append("\\t")
            default:
                out.append("\\u00")
                out.append(Self.hex[Int(c >> 4)])
                out.append(Self.hex[Int(c & 0x0F)])
            }
        }
    }
}

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
        switch value {
        case .array, .dictionary: break
        default:
            throw PlistError(
                .unrepresentable, "JSON output needs an array or a dictionary at the top level, not a \(value.typeName)",
                format: .json)
        }
        var emitter = JSONEmitter(pretty: options.prettyPrinted, sortKeys: options.sortKeys, maxDepth: options.maxDepth)
        do {
            try emitter.value(value, depth: 0)
        } catch {
            emitter.out.discard()
            throw error
        }
        return emitter.out.finish()
    }
}

/// The recursive part of `JSONWriter`.
struct JSONEmitter {
    var out = RawOutput(capacity: 1 << 14)
    let pretty: Bool
    let sortKeys: Bool
    let maxDepth: Int

    init(pretty: Bool, sortKeys: Bool, maxDepth: Int) {
        self.pretty = pretty
        self.sortKeys = sortKeys
        self.maxDepth = maxDepth
    }

    private func unrepresentable(_ what: String) -> PlistError {
        PlistError(.unrepresentable, "\(what) has no JSON form", format: .json)
    }

    mutating func value(_ v: PlistValue, depth: Int) throws {
        switch v {
        case .string(let s):
            string(s)
        case .integer(let i):
            out.appendDecimal(i)
        case .real(let r):
            guard r.value.isFinite else { throw unrepresentable("the real number \(r.value)") }
            var text = r.isFloat32 ? Float(r.value).description : r.value.description
            if text.hasSuffix(".0") { text.removeLast(2) }
            out.append(utf8: text)
        case .bool(let b):
            if b { out.append("true") } else { out.append("false") }
        case .date:
            throw unrepresentable("a date")
        case .data:
            throw unrepresentable("data")
        case .uid:
            throw unrepresentable("a UID")
        case .array(let a):
            guard depth < maxDepth else { throw PlistError(.depthLimit, "nesting is deeper than the limit of \(maxDepth)", format: .json) }
            out.append(0x5B)
            if pretty { out.append(0x0A) }
            for (i, element) in a.enumerated() {
                if i > 0 { if pretty { out.append(",\n") } else { out.append(0x2C) } }
                if pretty { out.appendSpaces(2 * (depth + 1)) }
                do {
                    try value(element, depth: depth + 1)
                } catch let e as PlistError {
                    throw e.inside(String(i))
                }
            }
            if pretty {
                out.append(0x0A)
                out.appendSpaces(2 * depth)
            }
            out.append(0x5D)
        case .dictionary(let d):
            guard depth < maxDepth else { throw PlistError(.depthLimit, "nesting is deeper than the limit of \(maxDepth)", format: .json) }
            out.append(0x7B)
            if pretty { out.append(0x0A) }
            try KeySorting.withOrder(d, sorted: sortKeys, by: JSONKeyOrder.less) { entries, order in
                var first = true
                for i in order {
                    if !first { if pretty { out.append(",\n") } else { out.append(0x2C) } }
                    first = false
                    if pretty { out.appendSpaces(2 * (depth + 1)) }
                    string(entries[i].key)
                    if pretty { out.append(" : ") } else { out.append(0x3A) }
                    do {
                        try value(entries[i].value, depth: depth + 1)
                    } catch let e as PlistError {
                        throw e.inside(entries[i].key)
                    }
                }
            }
            if pretty {
                out.append(0x0A)
                out.appendSpaces(2 * depth)
            }
            out.append(0x7D)
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
        let n = buf.count
        var start = 0
        var i = 0
        while i < n {
            // Eight bytes at a time while none needs an escape.
            if i + 8 <= n, !SWAR.hasJSONSpecial(UnsafeRawPointer(buf.baseAddress! + i).loadUnaligned(as: UInt64.self), slash: true) {
                i += 8
                continue
            }
            let c = buf[i]
            if c < 0x20 || c == 0x22 || c == 0x5C || c == 0x2F {
                if i > start { out.append(contentsOf: UnsafeBufferPointer(rebasing: buf[start..<i])) }
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
                start = i + 1
            }
            i += 1
        }
        if n > start { out.append(contentsOf: UnsafeBufferPointer(rebasing: buf[start..<n])) }
    }
}

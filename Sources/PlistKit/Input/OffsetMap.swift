/// How positions in a rewritten copy of the input lead back to the caller's bytes.
///
/// Readers sometimes parse a rewrite of what they were given: UTF-16 or UTF-32 text converted to UTF-8, a legacy
/// encoding converted with iconv, an XML declaration repaired, control characters swapped for stand-ins. Each rewrite
/// appends a step — its output and the way from an offset in that output back to an offset in its input — so the
/// steps compose, and `locate` gives every error its offset, line and column in the caller's bytes, once, at the
/// reader's entry point. Errors a rewrite throws itself are positioned in that rewrite's input, which is what the map
/// holds until the rewrite succeeds and is appended.
struct OffsetMap {
    /// What a step does to the text, which decides where lines and columns can be counted.
    enum Kind {
        /// The same text in another encoding (the step's output is UTF-8): lines and columns are the same.
        case convertsEncoding
        /// The same text with some characters spelled otherwise (stand-ins): lines and columns are the same.
        case substitutes
        /// Text moved (a repaired XML declaration): lines and columns must be counted before this step.
        case reorders
    }

    private struct Step {
        let kind: Kind
        /// An offset in `output` → the offset in the step's input.
        let back: (Int) -> Int
        /// The step's output, kept for counting lines and columns when it is the first UTF-8 form of the text.
        let output: [UInt8]?
    }

    private var steps: [Step] = []
    /// Whether the caller's bytes are UTF-8 (or ASCII-compatible) text, where lines and columns can be counted.
    private let originalIsUTF8: Bool

    /// A map with no steps yet, over input that is (`originalIsUTF8`) or is not byte-oriented text.
    init(originalIsUTF8: Bool = true) {
        self.originalIsUTF8 = originalIsUTF8
    }

    /// Records a rewrite: `output` is what the next stage reads, `back` maps an offset in it to one in this step's
    /// input.
    mutating func append(_ kind: Kind, output: [UInt8], back: @escaping (Int) -> Int) {
        // Only the first UTF-8 form of a non-UTF-8 input is needed for counting.
        let keeps = kind == .convertsEncoding && !originalIsUTF8 && !steps.contains { $0.kind == .convertsEncoding }
        steps.append(Step(kind: kind, back: back, output: keeps ? output : nil))
    }

    /// Whether any rewrite was made.
    var isEmpty: Bool { steps.isEmpty }

    /// The offset in the caller's bytes of `offset` in the last step's output.
    func original(_ offset: Int) -> Int {
        var o = offset
        for step in steps.reversed() { o = step.back(o) }
        return o
    }

    /// `error` (raised in the last step's output, or in the input of a rewrite that failed) with its offset in the
    /// caller's bytes and, unless the reader gave them and no text moved, its line and column, counted in the first
    /// UTF-8 form of the text that keeps the caller's order.
    func locate(_ error: PlistError, in original: UnsafeRawBufferPointer) -> PlistError {
        var e = error
        guard let offset = e.offset else { return e }
        if e.offsetIsOriginal {
            // A sink that was given mapped ranges positioned it already.
            e.offsetIsOriginal = false
            if e.line == nil, originalIsUTF8 { (e.line, e.column) = TextPosition.lineColumn(of: offset, in: original) }
            return e
        }
        let reorders = steps.contains { $0.kind == .reorders }
        // Walk back step by step, noting the offset in the text where lines and columns are counted.
        var o = offset
        var counted: (offset: Int, text: [UInt8])?
        for step in steps.reversed() {
            if let text = step.output { counted = (o, text) }
            o = step.back(o)
        }
        e.offset = o
        if e.line == nil || reorders {
            if let counted, !(reorders && originalIsUTF8) {
                (e.line, e.column) = counted.text.withUnsafeBytes { TextPosition.lineColumn(of: counted.offset, in: $0) }
            } else if originalIsUTF8 {
                (e.line, e.column) = TextPosition.lineColumn(of: o, in: original)
            }
        }
        return e
    }
}

/// Where the last back-mapping of a step that scans its text stopped, so that increasing queries (a source's events,
/// in order) cost one pass over the text in all rather than one each.
final class ScanPosition {
    /// The offset (in the step's output) the scan reached.
    var offset = 0
    /// What the scan counted up to `offset` (code units, extra bytes: the step's own measure).
    var carried = 0

    func reset() {
        offset = 0
        carried = 0
    }
}

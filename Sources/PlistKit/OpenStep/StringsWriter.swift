/// Writes `.strings` files: a top-level dictionary of strings, one `"key" = "value";` line per entry, keys and
/// values always quoted (as Xcode and `genstrings` write them), UTF-8 without a BOM. With the lossy option, numbers,
/// Booleans, dates and UIDs are written with `LossySpelling`; data, arrays and nested dictionaries are always an
/// `.unrepresentable` error.
enum StringsWriter {
    static func write(_ value: PlistValue, options: PlistWriteOptions) throws -> [UInt8] {
        var sink = StringsWriterSink(lossy: options.lossy)
        defer { sink.out.discard() }
        try sink.receive(value, sortedBy: UTF16KeyOrder.self, if: options.sortKeys)
        return [UInt8](UnsafeBufferPointer(start: sink.out.base, count: sink.out.count))
    }
}

/// The `.strings` writer as an event sink: one dictionary of scalars; keys are written in the order they arrive.
struct StringsWriterSink: StreamingWriterSink {
    var out: OpenStepTextOutput
    let lossy: Bool
    private var depth = 0

    init(lossy: Bool, drain: OutputDrain? = nil) {
        self.lossy = lossy
        out = drain.map(OpenStepTextOutput.init(streamingTo:)) ?? OpenStepTextOutput(capacity: 1 << 12)
    }

    mutating func abandonStream() { out.discard() }

    mutating func finishStream() {
        out.flush()
        out.discard()
    }

    private func notString(_ typeNameWithArticle: String) -> PlistError {
        PlistError(.unrepresentable, "a strings file holds only string values, not \(typeNameWithArticle)")
    }

    private func notDictionary(_ typeNameWithArticle: String) -> PlistError {
        PlistError(.unrepresentable, "a strings file holds a dictionary, not \(typeNameWithArticle)")
    }

    mutating func beginArray(count: Int?, at range: Range<Int>) throws {
        throw depth == 0 ? notDictionary("an array") : notString("an array")
    }

    mutating func beginDictionary(count: Int?, at range: Range<Int>) throws {
        guard depth == 0 else { throw notString("a dictionary") }
        depth = 1
    }

    mutating func endArray(at range: Range<Int>) throws {}
    mutating func endDictionary(at range: Range<Int>) throws { depth = 0 }

    mutating func key(_ key: consuming String, at range: Range<Int>) throws {
        OpenStepStringQuoting.append(key, to: &out, alwaysQuote: true)
        out.append(" = ")
    }

    mutating func value(_ v: PlistValue, at range: Range<Int>) throws {
        guard depth == 1 else { throw notDictionary(v.typeNameWithArticle) }
        let text: String
        switch v {
        case .string(let s): text = s
        case .integer, .real, .bool, .date, .uid:
            guard lossy else { fallthrough }
            text = LossySpelling.text(v)
        default:
            throw notString(v.typeNameWithArticle)
        }
        OpenStepStringQuoting.append(text, to: &out, alwaysQuote: true)
        out.append(";\n")
    }
}

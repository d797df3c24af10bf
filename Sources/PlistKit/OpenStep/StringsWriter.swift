/// Writes `.strings` files: a top-level dictionary of strings, one `"key" = "value";` line per entry, keys and
/// values always quoted (as Xcode and `genstrings` write them), UTF-8 without a BOM. With the lossy option, numbers,
/// Booleans, dates and UIDs are written with `LossySpelling`; data, arrays and nested dictionaries are always an
/// `.unrepresentable` error.
enum StringsWriter {
    static func write(_ value: PlistValue, options: PlistWriteOptions) throws -> [UInt8] {
        guard case .dictionary(let d) = value else {
            throw PlistError(.unrepresentable, "a strings file holds a dictionary, not \(value.typeNameWithArticle)")
        }
        var out = OpenStepTextOutput(capacity: 1 << 12)
        defer { out.discard() }
        try KeySorting.withOrder(d, sorted: options.sortKeys) { entries, order in
            for k in order { try entry(entries[k].key, entries[k].value, lossy: options.lossy, into: &out) }
        }
        return [UInt8](UnsafeBufferPointer(start: out.base, count: out.count))
    }

    private static func entry(_ key: String, _ v: PlistValue, lossy: Bool, into out: inout OpenStepTextOutput) throws {
        let text: String
        switch v {
        case .string(let s): text = s
        case .integer, .real, .bool, .date, .uid:
            guard lossy else { fallthrough }
            text = LossySpelling.text(v)
        default:
            throw PlistError(
                .unrepresentable, "a strings file holds only string values, not \(v.typeNameWithArticle)",
                keyPath: KeyPath(components: [key]))
        }
        OpenStepStringQuoting.append(key, to: &out, alwaysQuote: true)
        out.append(" = ")
        OpenStepStringQuoting.append(text, to: &out, alwaysQuote: true)
        out.append(";\n")
    }
}

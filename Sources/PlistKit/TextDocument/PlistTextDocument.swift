/// An OpenStep (also GNUstep and `.strings`) or XML property list kept as the text it was read from, with the source
/// range of every value and key, so that it writes back byte for byte and an edit by key path rewrites only the bytes
/// of the entry it touches.
///
/// Reading goes through the ordinary reader and event seam (`PropertyList.parse(_:into:)`) into a sink that builds the
/// plain tree and records each event's range: `value` is what `PropertyList.read` returns, and a document the reader
/// refuses fails with the same `PlistError`.
///
/// Edits (`replace`, `insert`, `remove`, `renameKey`) follow `plutil`'s rules and errors (`PlistValue+Editing`) and lay
/// new text out like its neighbours: indentation, one line or several, the line break, trailing `,` in arrays, keys
/// at their sorted place when the dictionary's keys are sorted. Setting a value to what it already is changes
/// nothing. Every edit is checked by reading the new text back: it must give the edited tree, or the edit throws and
/// the document is left as it was. In an Xcode project (`layout == .xcodeProject`) new text follows Xcode's writer
/// (`XcodeProjectWriter`): quoting, flat objects, sections, and the reference comments that name what changed.
public struct PlistTextDocument: Sendable {
    /// How new text is laid out.
    public enum Layout: Sendable, Hashable {
        /// Like the neighbours, with the format's own writer for new values.
        case plain
        /// Xcode's `project.pbxproj` style (chosen for an OpenStep document with `objects` and `rootObject`).
        case xcodeProject
    }

    /// The document's text as it stands (the input, until an edit).
    public internal(set) var bytes: [UInt8]
    /// The value the text reads to, as `PropertyList.read` gives it.
    public internal(set) var value: PlistValue
    /// The format the text is in (`.xml`, `.openStep`, `.gnustep` or `.strings`).
    public internal(set) var format: PlistFormat
    /// How edits lay out new text.
    public var layout: Layout
    /// The project name Xcode's reference comments use (`Build configuration list for PBXProject "<name>"`); taken
    /// from that comment in the text when not given.
    public var projectName: String?
    /// The options the text is read (and re-read after each edit) with.
    public let options: PlistReadOptions

    var nodes: [SourceNode]
    /// Whether the text is UTF-8 (edits are refused in UTF-16, UTF-32 and legacy encodings).
    let isUTF8: Bool

    /// Reads `bytes` as a text document.
    /// - Throws: the reader's `PlistError` for bad input; `.unsupportedFormat` for binary, JSON or gzip input.
    public init(_ bytes: [UInt8], options: PlistReadOptions = PlistReadOptions(), projectName: String? = nil) throws {
        let parsed = try bytes.withUnsafeBytes { try Self.parse($0, options: options) }
        self.bytes = bytes
        value = parsed.value
        format = parsed.format
        nodes = parsed.nodes
        self.options = options
        isUTF8 = bytes.withUnsafeBytes { Self.isUTF8Text($0, format: parsed.format) }
        layout = Self.isXcodeProject(parsed.value, format: parsed.format) ? .xcodeProject : .plain
        self.projectName = projectName ?? XcodeComments.projectName(inCommentsOf: bytes)
    }

    /// Reads a document from raw bytes (copied).
    public init(_ bytes: UnsafeRawBufferPointer, options: PlistReadOptions = PlistReadOptions(), projectName: String? = nil) throws {
        try self.init([UInt8](bytes), options: options, projectName: projectName)
    }

    /// The document's text: the input exactly, unless edited.
    public func write() -> [UInt8] { bytes }

    /// The bytes the document holds beside its value tree: its text and the source map (36 bytes a value).
    public var heldByteCount: Int { bytes.count + nodes.count * MemoryLayout<SourceNode>.stride }

    // MARK: Reading

    struct Parsed {
        var value: PlistValue
        var format: PlistFormat
        var nodes: [SourceNode]
    }

    static func parse(_ raw: UnsafeRawBufferPointer, options: PlistReadOptions) throws -> Parsed {
        if Gzip.isGzip(raw) {
            throw PlistError(.unsupportedFormat, "gzip-compressed input cannot be kept as text; inflate it first")
        }
        guard raw.count < Int(Int32.max) else {
            throw PlistError(.sizeLimit, "input is \(raw.count) bytes, more than a text document holds (2 GiB)")
        }
        let detected = raw.isEmpty ? PlistFormat.openStep : (PlistFormat.detection(of: raw).format ?? .openStep)
        guard detected == .xml || detected == .openStep || detected == .gnustep || detected == .strings else {
            throw PlistError(.unsupportedFormat, "\(detected.displayName) is not a text format this document keeps", format: detected)
        }
        var readOptions = options
        readOptions.allowGzip = false
        var sink = SourceMapSink(options: options, format: detected, expectedBytes: raw.count)
        defer { sink.tree.release() }
        let dialect = try PropertyList.parse(raw, options: readOptions, into: &sink)
        guard let value = sink.tree.result else {
            throw PlistError(.rootCount, "the document holds no value", format: detected)
        }
        return Parsed(value: value, format: dialect, nodes: sink.nodes)
    }

    private static func isUTF8Text(_ b: UnsafeRawBufferPointer, format: PlistFormat) -> Bool {
        if format == .xml {
            if XMLReaderInputEncoding.detect(b) != nil { return false }
            if case .legacy = XMLReaderLegacyEncoding.declared(in: b) { return false }
            return true
        }
        return WideText.detect(b, unmarkedFirst: { _ in false }).map { $0.bomLength == 0 } ?? true
    }

    static func isXcodeProject(_ value: PlistValue, format: PlistFormat) -> Bool {
        guard format == .openStep, case .dictionary(let root) = value else { return false }
        return root["objects"]?.dictionaryValue != nil && root["rootObject"]?.stringValue != nil
    }

    // MARK: Finding values

    /// The children of the container at `c`, in source order.
    func children(of c: Int) -> [Int] {
        var out: [Int] = []
        var i = c + 1
        let end = Int(nodes[c].subtreeEnd)
        while i < end {
            out.append(i)
            i = Int(nodes[i].subtreeEnd)
        }
        return out
    }

    /// The key of the dictionary entry at `i`, decoded from its token.
    func key(of i: Int) -> String {
        let s = Int(nodes[i].keyStart), e = Int(nodes[i].keyEnd)
        guard s >= 0, e > s else { return "" }
        return bytes.withUnsafeBufferPointer { b in
            if format == .xml { return Self.xmlKey(UnsafeBufferPointer(rebasing: b[s..<e])) }
            let q = b[s]
            guard q == 0x22 || q == 0x27 else { return String(decoding: UnsafeBufferPointer(rebasing: b[s..<e]), as: UTF8.self) }
            let inner = UnsafeBufferPointer(rebasing: b[(s + 1)..<(e - 1)])
            if !inner.contains(0x5C) { return String(decoding: inner, as: UTF8.self) }
            guard let base = b.baseAddress else { return "" }
            var source = OpenStepEventSource(base: base, count: e, start: s, format: .openStep, sink: PlistEventRecorder())
            return (try? source.parseQuoted()) ?? ""
        }
    }

    private static func xmlKey(_ token: UnsafeBufferPointer<UInt8>) -> String {
        // `<key>…</key>` or `<key/>`.
        guard let open = token.firstIndex(of: 0x3E), token[open - 1] != 0x2F else { return "" }
        var close = token.count - 1
        while close > open, token[close] != 0x3C { close -= 1 }
        let inner = UnsafeBufferPointer(rebasing: token[(open + 1)..<close])
        if !inner.contains(0x26) && !inner.contains(0x3C) { return String(decoding: inner, as: UTF8.self) }
        let wrapped = Array("<plist version=\"1.0\"><string>".utf8) + Array(inner) + Array("</string></plist>".utf8)
        return (try? PropertyList.read(wrapped).value.stringValue) ?? ""
    }

    /// The child of dictionary `c` with key `k` that the duplicate-key policy makes its value, and all children with
    /// that key.
    func entries(of c: Int, key k: String) -> [Int] {
        children(of: c).filter { key(of: $0).unicodeScalars.elementsEqual(k.unicodeScalars) }
    }

    func entry(of c: Int, key k: String) -> Int? {
        let all = entries(of: c, key: k)
        return options.duplicateKeys.resolved(for: format) == .firstWins ? all.first : all.last
    }

    /// The node at `components` (nil when the text has no such value: a path through a `CF$UID` dictionary).
    func node(at components: ArraySlice<String>) -> Int? {
        var i = 0
        guard !nodes.isEmpty else { return nil }
        for component in components {
            switch nodes[i].kind {
            case .dictionary:
                guard let next = entry(of: i, key: component) else { return nil }
                i = next
            case .array:
                guard let index = KeyPath.arrayIndex(component) else { return nil }
                let kids = children(of: i)
                guard index < kids.count else { return nil }
                i = kids[index]
            case .scalar:
                return nil
            }
        }
        return i
    }

    static func notInPlace(_ path: KeyPath, _ why: String) -> PlistError {
        PlistError(.unrepresentable, "cannot edit the text in place at key path \(path): \(why)", keyPath: path)
    }
}

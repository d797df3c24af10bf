/// `plutil -p` of a large file without its tree: the reader's events, dictionaries in `PlutilKeyOrder`, straight
/// into a writer of `PlistDescription.humanReadable`'s text — the same bytes.

/// `PlutilKeyOrder` as a stream's key order.
enum PlutilDescriptionKeyOrder: KeyOrdering {
    static var sorts: Bool { true }
    static func less(_ a: String, _ b: String) -> Bool { PlutilKeyOrder.less(a, b) }
}

/// Writes `PlistDescription.humanReadable`'s text from events (dictionaries must arrive in `PlutilKeyOrder`), to an
/// `OutputDrain` about a megabyte at a time.
struct DescriptionWriterSink: StreamingWriterSink {
    private let drain: OutputDrain
    private var buffer: [UInt8] = []
    /// For each open container: whether it is an array, and how many elements it has had.
    private var open: [(isArray: Bool, count: Int)] = []

    init(drain: OutputDrain) {
        self.drain = drain
        buffer.reserveCapacity(OutputDrain.bufferSize + 4096)
    }

    mutating func finishStream() {
        flush()
        buffer = []
    }

    mutating func abandonStream() { buffer = [] }

    private mutating func flush() {
        buffer.withUnsafeBytes { drain.take($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    @inline(__always) private mutating func append(_ text: String) {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= OutputDrain.bufferSize { flush() }
    }

    private mutating func indent(_ levels: Int) {
        buffer.append(contentsOf: repeatElement(0x20, count: 2 * levels))
    }

    /// Before a value: its index, when it is an array's element (a dictionary's key came with `key`).
    private mutating func startValue() {
        guard let last = open.last, last.isArray else { return }
        indent(open.count)
        append(String(last.count) + " => ")
        open[open.count - 1].count += 1
    }

    mutating func beginArray(count: Int?, at range: Range<Int>) throws {
        startValue()
        append("[\n")
        open.append((true, 0))
    }

    mutating func beginDictionary(count: Int?, at range: Range<Int>) throws {
        startValue()
        append("{\n")
        open.append((false, 0))
    }

    mutating func endArray(at range: Range<Int>) throws {
        open.removeLast()
        indent(open.count)
        append("]\n")
    }

    mutating func endDictionary(at range: Range<Int>) throws {
        open.removeLast()
        indent(open.count)
        append("}\n")
    }

    mutating func key(_ key: consuming String, at range: Range<Int>) throws {
        indent(open.count)
        append("\"" + key + "\" => ")
    }

    mutating func value(_ value: PlistValue, at range: Range<Int>) throws {
        startValue()
        append(PlistDescription.scalarLine(value))
    }
}

/// Whether a document is a keyed archive as `KeyedArchive.looksLikeArchive` decides it (a root dictionary with a
/// string `$archiver` and an `$objects`), from the reader's events alone. (It lets the reader run to the end: a
/// reader may word a sink's error as its own.)
struct KeyedArchiveSniffer: PlistEventSink {
    static var remembersSubtrees: Bool { false }
    private var depth = 0
    private var lastKey: String?
    private var rootIsDictionary = false
    private var archiverIsString = false
    private var hasObjects = false
    var isArchive: Bool { rootIsDictionary && archiverIsString && hasObjects }

    private mutating func valueAtTop(isString: Bool) {
        if lastKey == "$archiver" { archiverIsString = isString }
        if lastKey == "$objects" { hasObjects = true }
    }

    mutating func beginArray(count: Int?, at range: Range<Int>) throws {
        if depth == 1 { valueAtTop(isString: false) }
        depth += 1
    }

    mutating func beginDictionary(count: Int?, at range: Range<Int>) throws {
        if depth == 0 { rootIsDictionary = true }
        if depth == 1 { valueAtTop(isString: false) }
        depth += 1
    }

    mutating func endArray(at range: Range<Int>) throws { depth -= 1 }
    mutating func endDictionary(at range: Range<Int>) throws { depth -= 1 }

    mutating func key(_ key: consuming String, at range: Range<Int>) throws {
        if depth == 1 { lastKey = key }
    }

    mutating func value(_ value: PlistValue, at range: Range<Int>) throws {
        guard depth == 1 else { return }
        if case .string = value { valueAtTop(isString: true) } else { valueAtTop(isString: false) }
    }
}

extension PropertyList {
    /// Inputs up to this size print from their tree (all or nothing: an error prints nothing); larger ones stream.
    static let describeStreamingThreshold = 8 << 20

    /// `plutil -p` of `input` as it is read, without its tree, for input past `describeStreamingThreshold` that is
    /// no keyed archive (an archive is decoded from its tree). Returns nil, having written nothing, when the caller
    /// should print from the tree instead. Errors are the reader's; output already handed on stays handed on.
    static func describeStreaming(
        _ input: MappedInput, readOptions: PlistReadOptions = PlistReadOptions(),
        threshold: Int = describeStreamingThreshold, output: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> PlistFormat? {
        guard input.count > threshold else { return nil }
        let fileBase = input.withUnsafeBytes { $0.baseAddress }
        if input.withUnsafeBytes({ PlistFormat.detection(of: $0) == .binary }) {
            // The root's two keys, through the lazy document; a file it cannot answer for is printed (or its error
            // reported) from the tree.
            guard let archive = try? isKeyedArchive(BinaryPlistDocument(input, options: readOptions)), !archive else { return nil }
        }
        return try input.withUnsafeBytes { bytes -> PlistFormat? in
            try checkedInput(bytes, options: readOptions) { bytes, detected -> PlistFormat? in
                // (Gzip input is inflated into a copy: then the file's pages are not the ones read.)
                let fromFile = bytes.baseAddress == fileBase
                if detected != .binary || !fromFile {
                    let sniffed = try? isKeyedArchive(bytes, detected: detected, readOptions: readOptions,
                                                      pages: fromFile ? input.releasablePages() : nil)
                    guard sniffed == false else { return nil }
                }
                return try withoutActuallyEscaping(output) { output in
                    let drain = OutputDrain(output)
                    var writer = DescriptionWriterSink(drain: drain)
                    let spill = Spill(eventLogMemory: eventLogMemory, entryMemory: entrySpillMemory, entryFanIn: 64,
                                      directory: nil, pages: fromFile ? input.releasablePages() : nil)
                    let format: PlistFormat
                    do {
                        format = try stream(bytes, detected: detected, spill: spill, sharingAllowance: sharingAllowance,
                                            sortedBy: PlutilDescriptionKeyOrder.self, if: true, readOptions: readOptions, into: &writer)
                    } catch let failure as StreamWriteFailure {
                        throw failure.error
                    }
                    if let error = drain.error { throw error }
                    return format
                }
            }
        }
    }

    /// Whether a binary document's root is a keyed archive (`KeyedArchive.looksLikeArchive`), by its keys alone.
    private static func isKeyedArchive(_ document: BinaryPlistDocument) throws -> Bool {
        guard try document.object(at: KeyPath(components: []))?.typeName == "dictionary" else { return false }
        return try document.object(at: KeyPath(components: ["$archiver"]))?.typeName == "string"
            && document.object(at: KeyPath(components: ["$objects"])) != nil
    }

    /// Whether checked input is a keyed archive: a pass of its reader, no tree.
    private static func isKeyedArchive(
        _ bytes: UnsafeRawBufferPointer, detected: PlistFormat, readOptions: PlistReadOptions, pages: InputPages?
    ) throws -> Bool {
        var sniffer = LimitingSink(KeyedArchiveSniffer(), limits: ReadLimits(readOptions, format: detected))
        if detected == .binary {
            let trailer = try BinaryTrailer(bytes, options: readOptions)
            _ = try BinaryEventSource<_, AsWrittenKeyOrder>.run(bytes, trailer: trailer, options: readOptions, byOffset: false,
                                                                budget: nil, into: &sniffer)
        } else {
            _ = try parseText(bytes, detected: detected, options: readOptions, pages: pages, into: &sniffer)
        }
        return sniffer.inner.isArchive
    }
}

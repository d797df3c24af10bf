internal import CLibXML2

/// Reads XML property lists with libxml2's SAX2 parser.
///
/// SAX2 was chosen over the `xmlTextReader` API by measurement: on the benchmark corpus (config-M, array-M,
/// string-M) libxml2's SAX2 layer alone ran at 360/450/510 MB/s against 157/174/306 MB/s for the text reader, which
/// builds tree nodes we never use.
///
/// Safety: nothing is loaded from the network or from an external DTD (`XML_PARSE_NONET`, no DTD loading, no entity
/// substitution, no external-subset or entity-resolution callbacks); an internal DTD subset stops the parse with
/// `.forbiddenConstruct` where it starts, as CF stops there, which defeats "billion laughs" and XXE before any
/// declaration is read. The standard Apple DOCTYPE (an external identifier only) is accepted and ignored. Diagnostics go to a structured
/// handler per parser context (and, for encoding conversions, the calling thread's), never to stderr.
///
/// Where Core Foundation's hand-written parser departs from XML, this reader follows the XML specification, as
/// Python's plistlib and libplist do:
/// - an attribute value may contain `>` (`<key a=">">k</key>` is the key `k`; CF reads `">k`);
/// - anything but comments, processing instructions and white space after the root element is an error (CF ignores
///   it), and so is a second top-level element;
/// - `<data/>` is empty data, like `<data></data>` (CF rejects only the first spelling);
/// - comments and processing instructions may appear inside text (CF rejects them there);
///
/// With CF (and against plistlib and libplist) it reads `<key>` where a value belongs as a string. And it is more
/// lenient than XML (and Python) in one, with CF and libplist: raw control characters inside text,
/// which CF writes unescaped, are read, and CR and CR LF in text are kept as CF keeps them instead of becoming LF
/// (`XMLReaderControlCharacters`) — in every encoding, since documents in UTF-16/32 and in legacy encodings are
/// converted to UTF-8 first (`XMLReaderInputEncoding`, `XMLReaderLegacyEncoding`). With CF, plistlib and libplist it
/// also reads a `<plist>` nested as a value (the object it holds) and, with CF and libplist, declarations libxml2
/// refuses: white space before `<?xml`, a version other than 1.x, loosely spelled or padded encoding names
/// (`XMLReaderProlog`, `XMLReaderLegacyEncoding`).
enum XMLReader {
    static func read(_ bytes: UnsafeRawBufferPointer, options: PlistReadOptions) throws -> PlistValue {
        try PlistTreeBuilder.build(options, format: .xml) { try parse(bytes, options: options, into: &$0) }
    }

    /// Sends the document's events to `sink`, after the rewrites libxml2 needs (each recorded in an `OffsetMap`,
    /// so errors point into the caller's bytes): UTF-16/32 or a legacy encoding converted to UTF-8, a declaration
    /// repaired, control characters swapped for stand-ins. `pages`, when `bytes` are a file mapping's, releases the
    /// pages libxml2 has been given (it copies each chunk into its own buffer) when the bytes are parsed as they are.
    static func parse<Inner: PlistEventSink>(
        _ bytes: UnsafeRawBufferPointer, options: PlistReadOptions, pages: InputPages? = nil, into sink: inout LimitingSink<Inner>
    ) throws {
        LibXML2Setup.ensureInitialized()
        let wide = XMLReaderInputEncoding.detect(bytes)
        let declared = wide == nil ? XMLReaderLegacyEncoding.declared(in: bytes) : .native
        var legacyName: String?
        if case .legacy(let name) = declared { legacyName = name }
        var map = OffsetMap(originalIsUTF8: wide == nil && legacyName == nil)
        do {
            if let wide {
                let utf8 = try wide.utf8(bytes, format: .xml, appendingTo: &map)
                // (Converted text is parsed as it is: its declaration is not repaired, as before the conversion.)
                return try utf8.withUnsafeBytes {
                    try parseStandingInForControls($0, ignoreDeclaredEncoding: true, map: &map, options: options, into: &sink)
                }
            }
            if let legacyName {
                let legacy = try XMLReaderLegacyEncoding(converting: bytes, from: legacyName)
                map.append(.convertsEncoding, output: legacy.utf8) { legacy.originalOffset($0) }
                return try legacy.utf8.withUnsafeBytes {
                    try parseUTF8($0, ignoreDeclaredEncoding: true, map: &map, options: options, into: &sink)
                }
            }
            // UTF-8, or UTF-8 under a name libxml2 does not know (the declaration is then ignored).
            try parseUTF8(bytes, ignoreDeclaredEncoding: declared.isLooseUTF8, map: &map, options: options, pages: pages, into: &sink)
        } catch let e as PlistError {
            throw map.locate(e, in: bytes)
        }
    }

    /// UTF-8 input: the declaration repaired when libxml2 would refuse what CF reads, control characters stood in
    /// for, then parsed.
    private static func parseUTF8<Inner: PlistEventSink>(
        _ bytes: UnsafeRawBufferPointer, ignoreDeclaredEncoding: Bool, map: inout OffsetMap, options: PlistReadOptions,
        pages: InputPages? = nil, into sink: inout LimitingSink<Inner>
    ) throws {
        if let repair = XMLReaderProlog.normalized(bytes) {
            map.append(.reorders, output: repair.bytes) { repair.originalOffset($0) }
            return try repair.bytes.withUnsafeBytes {
                try parseStandingInForControls($0, ignoreDeclaredEncoding: ignoreDeclaredEncoding, map: &map, options: options, into: &sink)
            }
        }
        try parseStandingInForControls(bytes, ignoreDeclaredEncoding: ignoreDeclaredEncoding, map: &map, options: options, pages: pages, into: &sink)
    }

    /// Parses, first swapping raw control characters for stand-ins when the document has any (see
    /// `XMLReaderControlCharacters`).
    private static func parseStandingInForControls<Inner: PlistEventSink>(
        _ bytes: UnsafeRawBufferPointer, ignoreDeclaredEncoding: Bool, map: inout OffsetMap, options: PlistReadOptions,
        pages: InputPages? = nil, into sink: inout LimitingSink<Inner>
    ) throws {
        guard XMLReaderControlCharacters.applies(bytes, declaredEncodingIgnored: ignoreDeclaredEncoding, pages: pages) else {
            return try parseMapped(bytes, options: options, ignoreDeclaredEncoding: ignoreDeclaredEncoding, restoreControls: false, map: map,
                                   pages: pages, into: &sink)
        }
        let substituted = XMLReaderControlCharacters.substitute(bytes)
        let scan = ScanPosition()
        map.append(.substitutes, output: substituted) { offset in
            substituted.withUnsafeBytes { XMLReaderControlCharacters.originalOffset(offset, in: $0, resuming: scan) }
        }
        try substituted.withUnsafeBytes {
            try parseMapped($0, options: options, ignoreDeclaredEncoding: ignoreDeclaredEncoding, restoreControls: true, map: map, into: &sink)
        }
    }

    /// Parses the final bytes, with event ranges mapped back to the caller's bytes for a sink that wants them exact.
    private static func parseMapped<Inner: PlistEventSink>(
        _ bytes: UnsafeRawBufferPointer, options: PlistReadOptions, ignoreDeclaredEncoding: Bool, restoreControls: Bool,
        map: OffsetMap, pages: InputPages? = nil, into sink: inout LimitingSink<Inner>
    ) throws {
        guard Inner.wantsExactRanges, !map.isEmpty else {
            return try parseLibXML2(bytes, options: options, ignoreDeclaredEncoding: ignoreDeclaredEncoding, restoreControls: restoreControls,
                                    pages: pages, into: &sink)
        }
        var mapped = RangeMappingSink(inner: sink, map: map)
        defer { sink = mapped.inner }
        try parseLibXML2(bytes, options: options, ignoreDeclaredEncoding: ignoreDeclaredEncoding, restoreControls: restoreControls, into: &mapped)
    }

    /// Parses UTF-8 input with libxml2 (other encodings were converted by the caller).
    private static func parseLibXML2<Sink: PlistEventSink & NestingLimited>(
        _ bytes: UnsafeRawBufferPointer, options: PlistReadOptions, ignoreDeclaredEncoding: Bool, restoreControls: Bool,
        pages: InputPages? = nil, into sink: inout Sink
    ) throws {
        guard bytes.count <= Int(Int32.max) else {
            throw PlistError(.sizeLimit, "XML input larger than 2 GiB is not supported by libxml2", format: .xml)
        }
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            throw PlistError(.rootCount, "empty XML document", format: .xml, offset: 0, line: 1, column: 1)
        }
        // A file's pages (`pages`, the streaming path) are read by libxml2 a few kilobytes at a time through a read
        // callback (`XMLInputFeed`), and it keeps only a window of them; bytes a tree is built from go to a memory
        // parser, which copies the document once. Both parse in one `xmlParseDocument`: the push parser used for
        // files before scanned ahead for each token's end and cost 18 % more of libxml2's instructions (callgrind,
        // a 10 MiB XML file streamed to JSON). A static buffer over the caller's bytes is not possible: libxml2
        // relies on a NUL after the last byte.
        let chars = base.assumingMemoryBound(to: CChar.self)
        let feed = pages.map { XMLInputFeed(bytes, pages: $0) }
        let created: xmlParserCtxtPtr?
        if let feed {
            created = xmlCreateIOParserCtxt(nil, nil, { context, buffer, length in
                guard let context, let buffer else { return -1 }
                return Unmanaged<XMLInputFeed>.fromOpaque(context).takeUnretainedValue().read(into: buffer, length)
            }, nil, Unmanaged.passUnretained(feed).toOpaque(), XML_CHAR_ENCODING_NONE)
        } else {
            created = xmlCreateMemoryParserCtxt(chars, Int32(bytes.count))
        }
        guard let ctxt = created else {
            throw PlistError(.io, "libxml2 could not create a parser", format: .xml)
        }
        defer {
            // libxml2 builds a document for a DTD's entity declarations even in SAX mode ("expat compatibility");
            // the context does not own it, so free it here or every rejected DTD leaks.
            if let doc = ctxt.pointee.myDoc {
                xmlFreeDoc(doc)
                ctxt.pointee.myDoc = nil
            }
            xmlFreeParserCtxt(ctxt)
        }

        let box = XMLSinkBox(sink)
        defer { sink = box.sink }
        let source = XMLEventSource(ctxt: ctxt, input: bytes, restoresControlCharacters: restoreControls, sink: XMLEventTarget(box))
        installHandlers(ctxt)
        ctxt.pointee.userData = Unmanaged.passUnretained(source).toOpaque()
        var parseOptions = Int32(bitPattern: XML_PARSE_NONET.rawValue)
        if ignoreDeclaredEncoding { parseOptions |= Int32(bitPattern: XML_PARSE_IGNORE_ENC.rawValue) }
        // libxml2 stops at 256 nested elements unless XML_PARSE_HUGE: raise it only when the caller's depth cap
        // needs more than LibXML2Setup could provide (our own depth check still applies).
        if options.maxDepth > LibXML2Setup.elementDepthWithoutHuge - 2 {
            parseOptions |= Int32(bitPattern: XML_PARSE_HUGE.rawValue)
        }
        _ = xmlCtxtUseOptions(ctxt, parseOptions)
        // Encoding-conversion errors carry no parser context and go to the calling thread's handler (libxml2 keeps
        // it per thread), not to the SAX handler: route this thread's to the source for the parse, then restore it.
        let savedHandler = __xmlStructuredError()?.pointee
        let savedContext = __xmlStructuredErrorContext()?.pointee
        xmlSetStructuredErrorFunc(ctxt.pointee.userData) { ctx, error in
            guard let ctx, let error else { return }
            withReceiver(ctx) { $0.libxml2Error(error.pointee) }
        }
        withExtendedLifetime((source, feed)) {
            _ = xmlParseDocument(ctxt)
        }
        xmlSetStructuredErrorFunc(savedContext ?? nil, savedHandler ?? nil)

        if source.failed, let error = source.error { throw locate(error, cursor: source.cursor) }
        if ctxt.pointee.wellFormed == 0 {
            let e = PlistError(.syntax, "the document is not well-formed XML", format: .xml, offset: source.cursor.offset)
            throw locate(e, cursor: source.cursor)
        }
        guard source.hasRoot else {
            let e = PlistError(.rootCount, "the document holds no property-list object", format: .xml,
                               offset: source.cursor.offset)
            throw locate(e, cursor: source.cursor)
        }
    }

    /// The bytes of a mapped file, handed to libxml2 as its read callback asks for them; the pages it has been
    /// given are released (it copies them into its own buffer and never reads them again; the source's look-backs
    /// for error positions read near the cursor, in that buffer).
    private final class XMLInputFeed {
        private let bytes: UnsafeRawBufferPointer
        private let pages: InputPages
        private var offset = 0

        init(_ bytes: UnsafeRawBufferPointer, pages: InputPages) {
            self.bytes = bytes
            self.pages = pages
        }

        func read(into buffer: UnsafeMutablePointer<CChar>, _ length: Int32) -> Int32 {
            let n = min(bytes.count - offset, Int(max(length, 0)))
            guard n > 0 else { return 0 }
            UnsafeMutableRawPointer(buffer).copyMemory(from: bytes.baseAddress! + offset, byteCount: n)
            offset += n
            pages.passed(bytes.baseAddress! + offset)
            return Int32(n)
        }
    }

    /// The SAX2 callbacks. Only element, text and error events are handled; an internal DTD subset is refused (and
    /// entity declarations, should one be reached).
    private static func installHandlers(_ ctxt: xmlParserCtxtPtr) {
        guard let sax = ctxt.pointee.sax else { return }
        var h = xmlSAXHandler()
        h.initialized = XML_SAX2_MAGIC
        h.startElementNs = { ctx, localname, prefix, _, _, _, _, _, _ in
            guard let ctx, let localname else { return }
            withReceiver(ctx) { $0.startElement(localname, prefix: prefix) }
        }
        h.endElementNs = { ctx, _, _, _ in
            guard let ctx else { return }
            withReceiver(ctx) { $0.endElement() }
        }
        h.characters = { ctx, ch, len in
            guard let ctx, let ch else { return }
            withReceiver(ctx) { $0.characters(ch, Int(len)) }
        }
        h.ignorableWhitespace = h.characters
        h.cdataBlock = h.characters
        h.internalSubset = { ctx, _, _, _ in
            guard let ctx else { return }
            withReceiver(ctx) { $0.doctypeRead() }
        }
        h.entityDecl = { ctx, name, _, _, _, _ in
            guard let ctx else { return }
            let n = name.map { String(cString: $0) } ?? "?"
            withReceiver(ctx) { $0.fail(.forbiddenConstruct, "entity declarations are not allowed (<!ENTITY \(n)>)") }
        }
        h.unparsedEntityDecl = { ctx, name, _, _, _ in
            guard let ctx else { return }
            let n = name.map { String(cString: $0) } ?? "?"
            withReceiver(ctx) { $0.fail(.forbiddenConstruct, "entity declarations are not allowed (<!ENTITY \(n)>)") }
        }
        h.reference = { ctx, name in
            guard let ctx else { return }
            let n = name.map { String(cString: $0) } ?? "?"
            withReceiver(ctx) { $0.fail(.syntax, "unknown entity reference &\(n);", exact: true) }
        }
        // Never resolve or load anything external.
        h.resolveEntity = { _, _, _ in nil }
        h.serror = { ctx, error in
            guard let ctx, let error else { return }
            withReceiver(ctx) { $0.libxml2Error(error.pointee) }
        }
        sax.pointee = h
    }

    /// When libxml2 converted the input to UTF-8 itself, its own line and column are the reliable position, and
    /// `xmlByteConsumed` maps its cursor back to a byte offset in the bytes it was given. (Otherwise offsets are in
    /// those bytes already, and `OffsetMap.locate` does the rest.)
    private static func locate(_ error: PlistError, cursor: XMLCursor) -> PlistError {
        guard cursor.isTranscoding else { return error }
        var e = error
        if e.line == nil, let input = cursor.ctxt.pointee.input {
            e.line = Int(input.pointee.line)
            e.column = Int(input.pointee.col)
        }
        let consumed = xmlByteConsumed(cursor.ctxt)
        e.offset = consumed >= 0 ? consumed : nil
        return e
    }
}

/// The receiver behind a parser's `userData` (a file-level function: C callbacks cannot capture context).
/// The source is kept alive by `parseLibXML2` for the whole parse, so no retain is taken here.
@inline(__always)
private func withReceiver(_ ctx: UnsafeMutableRawPointer, _ body: (XMLEventSource) -> Void) {
    Unmanaged<XMLEventSource>.fromOpaque(ctx)._withUnsafeGuaranteedRef(body)
}

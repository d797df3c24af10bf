internal import CLibXML2

/// Reads XML property lists with libxml2's SAX2 parser.
///
/// SAX2 was chosen over the `xmlTextReader` API by measurement: on the benchmark corpus (config-M, array-M,
/// string-M) libxml2's SAX2 layer alone ran at 360/450/510 MB/s against 157/174/306 MB/s for the text reader, which
/// builds tree nodes we never use.
///
/// Safety: nothing is loaded from the network or from an external DTD (`XML_PARSE_NONET`, no DTD loading, no entity
/// substitution, no external-subset or entity-resolution callbacks); any entity declaration (internal or external,
/// general or parameter) stops the parse with `.forbiddenConstruct`, which defeats "billion laughs" and XXE. The
/// standard Apple DOCTYPE (an external identifier only) is accepted and ignored. Diagnostics go to a structured
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
/// It is stricter than CF in one more place: `<key>` outside a dictionary is an error (CF reads it as a string).
/// And it is more lenient than XML (and Python) in one, with CF and libplist: raw control characters inside text,
/// which CF writes unescaped, are read, and CR and CR LF in text are kept as CF keeps them instead of becoming LF
/// (`XMLReaderControlCharacters`) — in every encoding, since documents in UTF-16/32 and in legacy encodings are
/// converted to UTF-8 first (`XMLReaderInputEncoding`, `XMLReaderLegacyEncoding`). With CF, plistlib and libplist it
/// also reads a `<plist>` nested as a value (the object it holds) and, with CF and libplist, declarations libxml2
/// refuses: white space before `<?xml`, a version other than 1.x, loosely spelled or padded encoding names
/// (`XMLReaderProlog`, `XMLReaderLegacyEncoding`).
enum XMLReader {
    static func read(_ bytes: UnsafeRawBufferPointer, options: PlistReadOptions) throws -> PlistValue {
        LibXML2Setup.ensureInitialized()
        guard let wide = XMLReaderInputEncoding.detect(bytes) else {
            if let repair = XMLReaderProlog.normalized(bytes) {
                do {
                    return try repair.bytes.withUnsafeBytes { try readByteOriented($0, options: options) }
                } catch var e as PlistError {
                    // Lines and columns counted in the caller's bytes, where the white space is still first.
                    if let offset = e.offset {
                        e.offset = repair.originalOffset(offset)
                        (e.line, e.column) = TextPosition.lineColumn(of: e.offset!, in: bytes)
                    }
                    throw e
                }
            }
            return try readByteOriented(bytes, options: options)
        }
        let utf8 = try wide.utf8(bytes, format: .xml)
        return try utf8.withUnsafeBytes { converted in
            do {
                return try parseStandingInForControls(converted, options: options, ignoreDeclaredEncoding: true)
            } catch var e as PlistError {
                if let offset = e.offset { e.offset = wide.originalOffset(offset, in: converted) }
                throw e
            }
        }
    }

    /// UTF-8 input, or input in a legacy encoding its declaration names (converted with iconv first).
    private static func readByteOriented(_ bytes: UnsafeRawBufferPointer, options: PlistReadOptions) throws -> PlistValue {
        let name: String
        switch XMLReaderLegacyEncoding.declared(in: bytes) {
        case .native:
            return try parseStandingInForControls(bytes, options: options, ignoreDeclaredEncoding: false)
        case .looseUTF8:
            // UTF-8 all the same; libxml2 would not know the name.
            return try parseStandingInForControls(bytes, options: options, ignoreDeclaredEncoding: true)
        case .legacy(let declared):
            name = declared
        }
        let legacy = try XMLReaderLegacyEncoding(converting: bytes, from: name)
        return try legacy.utf8.withUnsafeBytes { converted in
            do {
                return try parseStandingInForControls(converted, options: options, ignoreDeclaredEncoding: true)
            } catch var e as PlistError {
                if let offset = e.offset { e.offset = legacy.originalOffset(offset) }
                throw e
            }
        }
    }

    /// Parses, first swapping raw control characters for stand-ins when the document has any (see
    /// `XMLReaderControlCharacters`).
    private static func parseStandingInForControls(
        _ bytes: UnsafeRawBufferPointer, options: PlistReadOptions, ignoreDeclaredEncoding: Bool
    ) throws -> PlistValue {
        guard XMLReaderControlCharacters.applies(bytes, declaredEncodingIgnored: ignoreDeclaredEncoding) else {
            return try parse(bytes, options: options, ignoreDeclaredEncoding: ignoreDeclaredEncoding, restoreControls: false)
        }
        let substituted = XMLReaderControlCharacters.substitute(bytes)
        return try substituted.withUnsafeBytes { b in
            do {
                return try parse(b, options: options, ignoreDeclaredEncoding: ignoreDeclaredEncoding, restoreControls: true)
            } catch var e as PlistError {
                if let offset = e.offset { e.offset = XMLReaderControlCharacters.originalOffset(offset, in: b) }
                throw e
            }
        }
    }

    /// Parses UTF-8 input (other encodings were converted by the caller).
    private static func parse(
        _ bytes: UnsafeRawBufferPointer, options: PlistReadOptions, ignoreDeclaredEncoding: Bool, restoreControls: Bool
    ) throws -> PlistValue {
        guard bytes.count <= Int(Int32.max) else {
            throw PlistError(.sizeLimit, "XML input larger than 2 GiB is not supported by libxml2", format: .xml)
        }
        guard let base = bytes.baseAddress, bytes.count > 0 else {
            throw PlistError(.rootCount, "empty XML document", format: .xml, offset: 0, line: 1, column: 1)
        }
        // A push parser fed in chunks: libxml2 keeps only a window of the input, where a memory parser would copy
        // the whole document first (a static buffer over the caller's bytes is not possible: libxml2 relies on a
        // NUL after the last byte). The first bytes go in at creation for encoding detection.
        let chars = base.assumingMemoryBound(to: CChar.self)
        let head = min(bytes.count, 4)
        guard let ctxt = xmlCreatePushParserCtxt(nil, nil, chars, Int32(head), nil) else {
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

        let builder = XMLReaderBuilder(ctxt: ctxt, options: options, input: bytes)
        builder.restoresControlCharacters = restoreControls
        installHandlers(ctxt)
        ctxt.pointee.userData = Unmanaged.passUnretained(builder).toOpaque()
        var parseOptions = Int32(bitPattern: XML_PARSE_NONET.rawValue)
        if ignoreDeclaredEncoding { parseOptions |= Int32(bitPattern: XML_PARSE_IGNORE_ENC.rawValue) }
        // libxml2 stops at 256 nested elements unless XML_PARSE_HUGE: raise it only when the caller's depth cap
        // needs more than LibXML2Setup could provide (our own depth check still applies).
        if options.maxDepth > LibXML2Setup.elementDepthWithoutHuge - 2 {
            parseOptions |= Int32(bitPattern: XML_PARSE_HUGE.rawValue)
        }
        _ = xmlCtxtUseOptions(ctxt, parseOptions)
        // Encoding-conversion errors carry no parser context and go to the calling thread's handler (libxml2 keeps
        // it per thread), not to the SAX handler: route this thread's to the builder for the parse, then restore it.
        let savedHandler = __xmlStructuredError()?.pointee
        let savedContext = __xmlStructuredErrorContext()?.pointee
        xmlSetStructuredErrorFunc(ctxt.pointee.userData) { ctx, error in
            guard let ctx, let error else { return }
            withReaderBuilder(ctx) { $0.libxml2Error(error.pointee) }
        }
        withExtendedLifetime(builder) {
            var offset = head
            while offset < bytes.count, !builder.failed {
                let n = min(bytes.count - offset, chunkSize)
                _ = xmlParseChunk(ctxt, chars + offset, Int32(n), 0)
                offset += n
            }
            if !builder.failed { _ = xmlParseChunk(ctxt, nil, 0, 1) }
        }
        xmlSetStructuredErrorFunc(savedContext ?? nil, savedHandler ?? nil)

        if builder.failed, let error = builder.error { throw locate(error, ctxt: ctxt, in: bytes) }
        if ctxt.pointee.wellFormed == 0 {
            let e = PlistError(.syntax, "the document is not well-formed XML", format: .xml, offset: builder.currentOffset)
            throw locate(e, ctxt: ctxt, in: bytes)
        }
        guard let root = builder.root else {
            let e = PlistError(.rootCount, "the document holds no property-list object", format: .xml,
                               offset: builder.currentOffset)
            throw locate(e, ctxt: ctxt, in: bytes)
        }
        return root
    }

    /// Bytes handed to libxml2 per `xmlParseChunk` call.
    private static let chunkSize = 256 << 10

    /// The SAX2 callbacks. Only element, text and error events are handled; entity declarations are refused.
    private static func installHandlers(_ ctxt: xmlParserCtxtPtr) {
        guard let sax = ctxt.pointee.sax else { return }
        var h = xmlSAXHandler()
        h.initialized = XML_SAX2_MAGIC
        h.startElementNs = { ctx, localname, prefix, _, _, _, _, _, _ in
            guard let ctx, let localname else { return }
            withReaderBuilder(ctx) { $0.startElement(localname, prefix: prefix) }
        }
        h.endElementNs = { ctx, _, _, _ in
            guard let ctx else { return }
            withReaderBuilder(ctx) { $0.endElement() }
        }
        h.characters = { ctx, ch, len in
            guard let ctx, let ch else { return }
            withReaderBuilder(ctx) { $0.characters(ch, Int(len)) }
        }
        h.ignorableWhitespace = h.characters
        h.cdataBlock = h.characters
        h.entityDecl = { ctx, name, _, _, _, _ in
            guard let ctx else { return }
            let n = name.map { String(cString: $0) } ?? "?"
            withReaderBuilder(ctx) { $0.fail(.forbiddenConstruct, "entity declarations are not allowed (<!ENTITY \(n)>)") }
        }
        h.unparsedEntityDecl = { ctx, name, _, _, _ in
            guard let ctx else { return }
            let n = name.map { String(cString: $0) } ?? "?"
            withReaderBuilder(ctx) { $0.fail(.forbiddenConstruct, "entity declarations are not allowed (<!ENTITY \(n)>)") }
        }
        h.reference = { ctx, name in
            guard let ctx else { return }
            let n = name.map { String(cString: $0) } ?? "?"
            withReaderBuilder(ctx) { $0.fail(.syntax, "unknown entity reference &\(n);", exact: true) }
        }
        // Never resolve or load anything external.
        h.resolveEntity = { _, _, _ in nil }
        h.serror = { ctx, error in
            guard let ctx, let error else { return }
            withReaderBuilder(ctx) { $0.libxml2Error(error.pointee) }
        }
        sax.pointee = h
    }

    /// Fills in line, column and a byte offset in the caller's input.
    private static func locate(_ error: PlistError, ctxt: xmlParserCtxtPtr, in bytes: UnsafeRawBufferPointer) -> PlistError {
        var e = error
        let transcoded = ctxt.pointee.input?.pointee.buf?.pointee.encoder != nil
        if transcoded {
            // libxml2 converted the input to UTF-8: its own line and column are the reliable position, and
            // `xmlByteConsumed` maps its cursor back to a byte offset in the original encoding.
            if e.line == nil, let input = ctxt.pointee.input {
                e.line = Int(input.pointee.line)
                e.column = Int(input.pointee.col)
            }
            let consumed = xmlByteConsumed(ctxt)
            e.offset = consumed >= 0 ? consumed : nil
            return e
        }
        if e.line == nil, let offset = e.offset {
            let (l, c) = TextPosition.lineColumn(of: offset, in: bytes)
            e.line = l
            e.column = c
        }
        return e
    }
}

/// The builder behind a parser's `userData` (a file-level function: C callbacks cannot capture context).
/// The builder is kept alive by `read` for the whole parse, so no retain is taken here.
@inline(__always)
private func withReaderBuilder(_ ctx: UnsafeMutableRawPointer, _ body: (XMLReaderBuilder) -> Void) {
    Unmanaged<XMLReaderBuilder>.fromOpaque(ctx)._withUnsafeGuaranteedRef(body)
}

extension XMLReaderBuilder {
    /// Maps a libxml2 diagnostic to a `PlistError`. Warnings are ignored; anything worse ends the parse.
    func libxml2Error(_ x: xmlError) {
        guard x.level.rawValue >= XML_ERR_ERROR.rawValue, !failed else { return }
        var message = x.message.map { String(cString: $0) } ?? "XML error \(x.code)"
        while message.last == "\n" || message.last == " " { message.removeLast() }
        let code = xmlParserErrors(rawValue: UInt32(bitPattern: x.code))
        if x.domain == Int32(bitPattern: XML_FROM_I18N.rawValue) {
            record(PlistError(.encoding, message, format: .xml, offset: currentOffset))
            return
        }
        let offset = currentOffset
        var kind = PlistError.Kind.syntax
        switch code {
        case XML_ERR_INVALID_CHAR, XML_ERR_INVALID_ENCODING:
            // Invalid UTF-8 (when libxml2 did not transcode): report the first bad byte exactly.
            if ctxt.pointee.input?.pointee.buf?.pointee.encoder == nil, let bad = UTF8Validation.firstInvalidOffset(input) {
                let (l, c) = TextPosition.lineColumn(of: bad, in: input)
                record(PlistError(.encoding, "invalid UTF-8 at byte offset \(bad)", format: .xml, offset: bad,
                                  line: l, column: c))
                return
            }
            // Otherwise a character XML does not allow (such as a raw control character).
            kind = code == XML_ERR_INVALID_ENCODING ? .encoding : .syntax
        case XML_ERR_UNKNOWN_ENCODING, XML_ERR_UNSUPPORTED_ENCODING:
            kind = .encoding
        case XML_ERR_DOCUMENT_EMPTY:
            kind = .rootCount
        case XML_ERR_DOCUMENT_END:
            // The push parser reports this both for content after the root element and, at the end of the input,
            // for a document that stops early.
            if isInsideElement || (root == nil && atEndOfInput) {
                let end = input.count
                let (l, c) = TextPosition.lineColumn(of: end, in: input)
                let truncated = isInsideElement
                record(PlistError(truncated ? .truncated : .rootCount,
                                  truncated ? "the document ends inside an element" : "the document holds no element",
                                  format: .xml, offset: end, line: l, column: c))
                return
            }
            // A second element after the root is a second root.
            kind = secondRootAhead ? .rootCount : .syntax
        case XML_ERR_TAG_NOT_FINISHED, XML_ERR_LTSLASH_REQUIRED, XML_ERR_GT_REQUIRED:
            kind = atEndOfInput ? .truncated : .syntax
        case XML_ERR_ENTITY_LOOP, XML_ERR_ENTITY_PE_INTERNAL, XML_ERR_EXT_ENTITY_STANDALONE:
            kind = .forbiddenConstruct
        default:
            if message.contains("Excessive depth") {
                kind = .depthLimit
            } else if atEndOfInput {
                kind = .truncated
            }
        }
        var e = PlistError(kind, message, format: .xml, offset: offset)
        if x.line > 0 {
            e.line = Int(x.line)
            if x.int2 > 0 { e.column = Int(x.int2) }
        }
        record(e)
    }

    /// Whether the parser's cursor has reached the end of the input.
    private var atEndOfInput: Bool {
        guard let input = ctxt.pointee.input, let cur = input.pointee.cur, let end = input.pointee.end else { return true }
        return cur >= end
    }

    /// Whether the cursor (after white space) is at the start of another element.
    private var secondRootAhead: Bool {
        guard let input = ctxt.pointee.input, var p = input.pointee.cur, let end = input.pointee.end else { return false }
        while p < end, p.pointee == 0x20 || p.pointee == 0x0A || p.pointee == 0x09 || p.pointee == 0x0D { p += 1 }
        guard p + 1 < end, p.pointee == 0x3C else { return false }
        let next = (p + 1).pointee
        return next != 0x21 && next != 0x3F && next != 0x2F
    }
}

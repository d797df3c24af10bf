internal import CLibXML2
import FoundationEssentials

/// The property-list grammar over libxml2's SAX2 events — which elements may appear where — and Core Foundation's
/// scalar rules, sending what it reads to a sink (`XMLEventTarget`). It also holds the parse's first error and maps
/// libxml2's diagnostics. One instance per parse; it lives on the caller's thread only.
final class XMLEventSource {
    let ctxt: xmlParserCtxtPtr
    let cursor: XMLCursor
    /// The bytes libxml2 parses (valid for the duration of the parse), for precise error offsets.
    let input: UnsafeRawBufferPointer

    /// The first failure, from the plist grammar, the sink or libxml2; later ones are ignored.
    @exclusivity(unchecked) private(set) var error: PlistError? = nil
    /// `error != nil`, as a plain flag for the hot paths.
    @exclusivity(unchecked) private(set) var failed = false

    /// Records the first error and stops libxml2. The position is the start (`<`) of the tag the parser is at, or of
    /// the element that began at `offset` (unless `exact`); the key path is the reader's, then `relativePath`.
    /// Out of line, with the message made only here: the event handlers libxml2 calls for every element and run of
    /// text would otherwise carry the message building of each of their errors (large frames, saved registers).
    @inline(never)
    func fail(
        _ kind: PlistError.Kind, _ message: @autoclosure () -> String, offset: Int? = nil, exact: Bool = false,
        relativePath: KeyPath? = nil
    ) {
        guard !failed else { return }
        let at = offset ?? cursor.offset
        var path = keyPath
        if let relativePath { path = KeyPath(components: path.components + relativePath.components) }
        record(PlistError(kind, message(), format: .xml, offset: exact ? at : tagStart(at), keyPath: path))
    }

    /// The `<` of the tag that `offset` (inside or just after it) belongs to: found in the parsed bytes, which hold
    /// the whole document, unless libxml2 transcodes (then in its buffer's window).
    func tagStart(_ offset: Int) -> Int {
        guard !cursor.isTranscoding, offset <= input.count, offset > 0 else { return cursor.tagStart(offset) }
        var i = min(offset, input.count - 1)
        while i > 0, input[i] != 0x3C { i -= 1 }
        return input[i] == 0x3C ? i : offset
    }

    /// libxml2 has read `<!DOCTYPE name` and any external identifier. An internal subset is refused where it starts,
    /// as Core Foundation refuses one (its parser stops at the `[`): nothing a plist needs is declared there, and
    /// entity declarations would come from it.
    func doctypeRead() {
        guard !failed, cursor.atInternalSubset else { return }
        fail(.forbiddenConstruct, "an internal DTD subset is not allowed (<!DOCTYPE … [)", offset: cursor.offset, exact: true)
    }

    /// `fail` for an error a sink threw: its offset is the position of the event, its key path relative to the
    /// container the reader is in.
    func fail(sinkError error: any Error) {
        guard let e = error as? PlistError else { return fail(.invalidValue, "\(error)") }
        fail(e.kind, e.message, offset: e.offset, relativePath: e.keyPath)
    }

    /// Records an error (already positioned) and stops the parse, even where libxml2 itself would recover.
    func record(_ e: PlistError) {
        guard !failed else { return }
        failed = true
        var e = e
        if e.keyPath == nil { e.keyPath = keyPath }
        error = e
        stopParser()
    }

    /// Ends the parse from inside a callback: no more events, and libxml2's parse loop stops at its next check.
    /// (`xmlStopParser` would also free the input buffer, which libxml2 2.9 may still touch when the callback
    /// returns.)
    private func stopParser() {
        ctxt.pointee.disableSAX = 1
        ctxt.pointee.instate = XML_PARSER_EOF
    }

    /// Maps a libxml2 diagnostic to a `PlistError`. Warnings are ignored; anything worse ends the parse.
    func libxml2Error(_ x: xmlError) {
        guard x.level.rawValue >= XML_ERR_ERROR.rawValue, !failed else { return }
        var message = x.message.map { String(cString: $0) } ?? "XML error \(x.code)"
        while message.last == "\n" || message.last == " " { message.removeLast() }
        let code = xmlParserErrors(rawValue: UInt32(bitPattern: x.code))
        if x.domain == Int32(bitPattern: XML_FROM_I18N.rawValue) {
            record(PlistError(.encoding, message, format: .xml, offset: cursor.offset))
            return
        }
        let offset = cursor.offset
        var kind = PlistError.Kind.syntax
        switch code {
        case XML_ERR_INVALID_CHAR, XML_ERR_INVALID_ENCODING:
            // Invalid UTF-8 (when libxml2 did not transcode): report the first bad byte exactly.
            if !cursor.isTranscoding, let bad = UTF8Validation.firstInvalidOffset(input) {
                record(PlistError(.encoding, "invalid UTF-8 at byte offset \(bad)", format: .xml, offset: bad))
                return
            }
            // Otherwise a character XML does not allow (such as a raw control character).
            kind = code == XML_ERR_INVALID_ENCODING ? .encoding : .syntax
        case XML_ERR_UNKNOWN_ENCODING, XML_ERR_UNSUPPORTED_ENCODING:
            kind = .encoding
        case XML_ERR_DOCUMENT_EMPTY:
            kind = .rootCount
        case XML_ERR_DOCUMENT_END:
            // Reported for content after the root element, and by libxml2's push parser at the end of the input
            // for a document that stops early: both are handled.
            if isInsideElement || (!hasRoot && cursor.atEndOfInput) {
                let truncated = isInsideElement
                record(PlistError(truncated ? .truncated : .rootCount,
                                  truncated ? "the document ends inside an element" : "the document holds no element",
                                  format: .xml, offset: input.count))
                return
            }
            // A second element after the root is a second root.
            kind = cursor.secondRootAhead ? .rootCount : .syntax
        case XML_ERR_TAG_NOT_FINISHED, XML_ERR_LTSLASH_REQUIRED, XML_ERR_GT_REQUIRED:
            kind = cursor.atEndOfInput ? .truncated : .syntax
        case XML_ERR_ENTITY_LOOP, XML_ERR_ENTITY_PE_INTERNAL, XML_ERR_EXT_ENTITY_STANDALONE:
            kind = .forbiddenConstruct
        default:
            if message.contains("Excessive depth") {
                kind = .depthLimit
            } else if cursor.atEndOfInput {
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

    enum Tag: UInt8 {
        case plist, array, dict, key, string, integer, real, date, data, `true`, `false`

        var name: String {
            switch self {
            case .plist: return "plist"
            case .array: return "array"
            case .dict: return "dict"
            case .key: return "key"
            case .string: return "string"
            case .integer: return "integer"
            case .real: return "real"
            case .date: return "date"
            case .data: return "data"
            case .true: return "true"
            case .false: return "false"
            }
        }
    }

    /// An open `<plist>`, `<array>` or `<dict>`.
    struct Frame {
        var tag: Tag
        /// Complete children so far (values, not keys).
        var values: Int
        /// A `<dict>` has a key waiting for its value (`pendingKeys` holds it, for key paths).
        var hasPendingKey: Bool
        /// Byte offset (in libxml2's buffer) at the end of the start tag.
        var offset: Int
    }

    let sink: XMLEventTarget
    /// The element names interned in this parser's dictionary, so a tag is identified by one pointer comparison.
    @exclusivity(unchecked) private var names: [(UnsafePointer<xmlChar>, Tag)] = []
    @exclusivity(unchecked) private var frames = MoveStack<Frame>(capacity: 16)
    /// The pending key of the frame at each depth, valid where the frame says so: kept apart so a `Frame` holds no
    /// reference and copying one (every element) retains nothing. A `MoveStack`: storing a key then checks no
    /// uniqueness (measured with callgrind on the shared harness's XML config-M file: 2% of the parse's instructions).
    @exclusivity(unchecked) private var pendingKeys = MoveStack<String>(capacity: 16)
    /// Values outside any container (a document has exactly one).
    @exclusivity(unchecked) private var topLevelValues = 0

    /// The open scalar element (`<string>`, `<key>`, …), its text so far, and where it started.
    @exclusivity(unchecked) private var scalar: Tag? = nil
    /// The open scalar's text, in a buffer of our own: appending and clearing it happen once per element, and an
    /// `Array` would add a uniqueness check and a retain to each.
    @exclusivity(unchecked) private var text: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var textCount = 0
    @exclusivity(unchecked) private var textCapacity = 256
    @exclusivity(unchecked) private var scalarOffset = 0

    /// Whether element text may hold stand-ins for control characters (see `XMLReaderControlCharacters`).
    let restoresControlCharacters: Bool

    init(ctxt: xmlParserCtxtPtr, input: UnsafeRawBufferPointer, restoresControlCharacters: Bool, sink: XMLEventTarget) {
        self.ctxt = ctxt
        cursor = XMLCursor(ctxt: ctxt)
        self.input = input
        self.sink = sink
        self.restoresControlCharacters = restoresControlCharacters
        text = .allocate(capacity: textCapacity)
        if let dict = ctxt.pointee.dict {
            let all: [Tag] = [.key, .string, .integer, .dict, .array, .real, .date, .data, .true, .false, .plist]
            for tag in all {
                if let p = xmlDictLookup(dict, tag.name, Int32(tag.name.utf8.count)) { names.append((p, tag)) }
            }
        }
    }

    deinit {
        text.deallocate()
        pendingKeys.release()
        frames.release()
    }

    // MARK: State

    /// Whether an element is open (the document would be truncated if it ended here).
    var isInsideElement: Bool { !frames.isEmpty || scalar != nil }
    /// Whether the root value is complete.
    var hasRoot: Bool { topLevelValues > 0 }

    /// The key path of the value being read.
    var keyPath: KeyPath {
        var components: [String] = []
        for depth in 0..<frames.count {
            let frame = frames[depth]
            switch frame.tag {
            case .array: components.append(String(frame.values))
            case .dict: if frame.hasPendingKey { components.append(pendingKeys[depth]) }
            default: break
            }
        }
        return KeyPath(components: components)
    }

    /// The source range of an element that started at `start` (the cursor after its start tag) and ends at the
    /// cursor: exact only for a sink that asks.
    @inline(__always)
    private func range(from start: Int) -> Range<Int> {
        guard sink.wantsExactRanges else { return Range(uncheckedBounds: (start, start)) }
        return tagStart(start - 1)..<max(cursor.offset, start)
    }

    /// The source range of the start tag the parser is reading (libxml2 calls back before its `>`): exact only for
    /// a sink that asks.
    @inline(__always)
    private func openingRange(_ offset: Int) -> Range<Int> {
        guard sink.wantsExactRanges else { return Range(uncheckedBounds: (offset, offset)) }
        let start = tagStart(offset)
        return start..<tagEnd(from: start)
    }

    /// Just past the `>` that ends the tag starting at `start` (a `>` inside a quoted attribute value does not).
    private func tagEnd(from start: Int) -> Int {
        guard !cursor.isTranscoding else { return cursor.offset }
        var quote: UInt8 = 0
        var i = start
        while i < input.count {
            let c = input[i]
            if quote != 0 {
                if c == quote { quote = 0 }
            } else if c == 0x22 || c == 0x27 {
                quote = c
            } else if c == 0x3E {
                return i + 1
            }
            i += 1
        }
        return input.count
    }

    /// The source range of the end tag the parser has just read (of the whole element when it was written empty,
    /// as `<array/>`): exact only for a sink that asks.
    @inline(__always)
    private func closingRange() -> Range<Int> {
        let end = cursor.offset
        guard sink.wantsExactRanges else { return Range(uncheckedBounds: (end, end)) }
        return tagStart(end - 1)..<end
    }

    // MARK: Events

    @inline(__always)
    private func tag(_ localname: UnsafePointer<xmlChar>) -> Tag? {
        for (p, t) in names where p == localname { return t }
        return nil
    }

    func startElement(_ localname: UnsafePointer<xmlChar>, prefix: UnsafePointer<xmlChar>?) {
        guard !failed else { return }
        if let open = scalar {
            fail(.syntax, "unexpected element <\(String(cString: localname))> inside <\(open.name)>")
            return
        }
        guard prefix == nil, var t = tag(localname) else {
            let name = prefix.map { String(cString: $0) + ":" } ?? ""
            fail(.syntax, "unknown tag <\(name)\(String(cString: localname))>")
            return
        }
        let offset = cursor.offset
        // Where may this element appear? A <key> where a value belongs is a string, as CF reads it
        // (`CFPropertyList.c` parses the key tag as a string wherever an object is expected).
        if let parent = frames.last {
            switch parent.tag {
            case .dict:
                if parent.hasPendingKey {
                    if t == .key { t = .string }
                } else if t != .key {
                    fail(.syntax, "found <\(t.name)> inside <dict> where a <key> was expected")
                    return
                }
            case .plist:
                if parent.values > 0 {
                    fail(.rootCount, "<plist> can only include one object; found a second <\(t.name)>")
                    return
                }
                if t == .key { t = .string }
            default:
                if t == .key { t = .string }
            }
        } else if t == .key {
            t = .string
        }
        do {
            switch t {
            case .plist:
                // A <plist> nested as a value stands for the one object it holds, as CF, plistlib and libplist read
                // it; it counts towards the depth like the containers it could otherwise be used to stack.
                if !frames.isEmpty { try sink.enterWrapper(offset) }
            case .array:
                try sink.beginArray(openingRange(offset))
            case .dict:
                try sink.beginDictionary(openingRange(offset))
            default:
                scalar = t
                textCount = 0
                scalarOffset = offset
                return
            }
        } catch {
            return fail(sinkError: error)
        }
        frames.append(Frame(tag: t, values: 0, hasPendingKey: false, offset: offset))
    }

    func endElement() {
        guard !failed else { return }
        if let t = scalar {
            scalar = nil
            finishScalar(t)
            return
        }
        guard let frame = frames.last else { return }
        do {
            switch frame.tag {
            case .plist:
                if frame.values == 0 {
                    // A nested one is pointed at by its start tag; the root's end tag is where its object is missing.
                    _ = frames.popLast()
                    fail(.rootCount, "<plist> holds no object", offset: frames.isEmpty ? nil : frame.offset)
                    return
                }
                _ = frames.popLast()
                if !frames.isEmpty { sink.exitWrapper() }
                // It stands for the object it held, in its parent (or as the document's value).
            case .array:
                _ = frames.popLast()
                try sink.endArray(closingRange())
            default:
                if frame.hasPendingKey {
                    fail(.syntax, "value missing for key inside <dict>")  // the key path names the key
                    return
                }
                _ = frames.popLast()
                try sink.endDictionary(closingRange())
            }
        } catch {
            return fail(sinkError: error)
        }
        valueEnded()
    }

    /// A value is complete: count it in its container.
    @inline(__always)
    private func valueEnded() {
        guard !frames.isEmpty else {
            topLevelValues += 1
            return
        }
        frames[frames.count - 1].values += 1
        frames[frames.count - 1].hasPendingKey = false
    }

    func characters(_ bytes: UnsafePointer<xmlChar>, _ count: Int) {
        guard !failed, count > 0 else { return }
        if let t = scalar {
            if t == .true || t == .false {
                fail(.invalidValue, "encountered non-empty <\(t.name)>")
                return
            }
            if textCount + count > textCapacity {
                // Bounded by the input: libxml2 caps a text node at 10 MB.
                textCapacity = max(2 * textCapacity, textCount + count)
                let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: textCapacity)
                bigger.initialize(from: text, count: textCount)
                text.deallocate()
                text = bigger
            }
            (text + textCount).initialize(from: bytes, count: count)
            textCount += count
            return
        }
        // Between elements only white space may appear (a stand-in for CR counts: see XMLReaderControlCharacters).
        // Indentation comes between every two elements: plain white space is passed over in a loop of its own, one
        // test a byte (measured with callgrind on the shared harness's XML config-M file: 6% of the parse's
        // instructions went to this function, with the stand-in's static read on every byte).
        var i = 0
        while i < count, Self.isWhiteSpace(bytes[i]) { i += 1 }
        while i < count {
            let c = bytes[i]
            let cr = XMLReaderControlCharacters.carriageReturnStandIn
            if restoresControlCharacters, c == cr.0, i + 3 < count, bytes[i + 1] == cr.1, bytes[i + 2] == cr.2,
               bytes[i + 3] == cr.3 {
                i += 4
                continue
            }
            i += 1
            if !(c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D) {
                fail(.syntax, "unexpected text \(frames.last.map { "inside <\($0.tag.name)>" } ?? "outside the root element")",
                     offset: cursor.textOffset(bytes, i - 1), exact: true)
                return
            }
        }
    }

    /// Space, tab, LF or CR: XML's white space (`S` in the XML specification, production 3).
    @inline(__always)
    private static func isWhiteSpace(_ c: UInt8) -> Bool {
        c <= 0x20 && (UInt64(0x1_0000_2600) &>> UInt64(c)) & 1 != 0
    }

    private func finishScalar(_ t: Tag) {
        let value: PlistValue
        do {
            let bytes = UnsafeRawBufferPointer(start: text, count: textCount)
            if restoresControlCharacters {
                var restored = Array(bytes)
                XMLReaderControlCharacters.restore(&restored)
                value = try restored.withUnsafeBytes { try Self.scalarValue(t, $0) }
            } else {
                value = try Self.scalarValue(t, bytes)
            }
        } catch let e as PlistError {
            fail(e.kind, e.message, offset: scalarOffset)
            return
        } catch {
            fail(.invalidValue, "\(error)", offset: scalarOffset)
            return
        }
        do {
            if t == .key {
                guard case .string(let key) = value else { return }
                try sink.key(key, range(from: scalarOffset))
                let depth = frames.count - 1
                frames[depth].hasPendingKey = true
                if depth < pendingKeys.count {
                    pendingKeys[depth] = key
                } else {
                    while pendingKeys.count < depth { pendingKeys.append("") }
                    pendingKeys.append(key)
                }
                return
            }
            try sink.value(value, range(from: scalarOffset))
        } catch {
            return fail(sinkError: error)
        }
        valueEnded()
    }

    @inline(__always)
    private static func scalarValue(_ t: Tag, _ b: UnsafeRawBufferPointer) throws -> PlistValue {
        switch t {
        case .string, .key: return .string(String(readerUTF8: b))
        case .integer: return .integer(try XMLScalarParsing.integer(b))
        case .real: return .real(PlistReal(try XMLScalarParsing.real(b)))
        case .date: return .date(try XMLScalarParsing.date(b))
        case .data: return .data(try XMLScalarParsing.data(b))
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .plist, .array, .dict: return .bool(false)  // not scalars; never reached
        }
    }
}

/// The sink as the XML source sees it: closures made where the sink's type is known, so each runs the sink's
/// specialised code. (The source is a class that libxml2's C callbacks reach; a generic class's methods would run
/// unspecialised, looking up generic metadata on every call — measured: 2.4 times the instructions of a parse.)
struct XMLEventTarget {
    let wantsExactRanges: Bool
    let beginArray: (Range<Int>) throws -> Void
    let endArray: (Range<Int>) throws -> Void
    let beginDictionary: (Range<Int>) throws -> Void
    let endDictionary: (Range<Int>) throws -> Void
    let key: (String, Range<Int>) throws -> Void
    let value: (PlistValue, Range<Int>) throws -> Void
    /// A `<plist>` nested as a value opens and closes: a level of nesting, though not a container.
    let enterWrapper: (Int) throws -> Void
    let exitWrapper: () -> Void

    /// Closures over `box`, which holds the sink for the parse.
    init<Sink: PlistEventSink & NestingLimited>(_ box: XMLSinkBox<Sink>) {
        wantsExactRanges = Sink.wantsExactRanges
        beginArray = { try box.sink.beginArray(count: nil, at: $0) }
        endArray = { try box.sink.endArray(at: $0) }
        beginDictionary = { try box.sink.beginDictionary(count: nil, at: $0) }
        endDictionary = { try box.sink.endDictionary(at: $0) }
        key = { try box.sink.key($0, at: $1) }
        value = { try box.sink.value($0, at: $1) }
        enterWrapper = { try box.sink.enterWrapper(at: $0) }
        exitWrapper = { box.sink.exitWrapper() }
    }
}

/// Where the sink lives while libxml2 parses.
final class XMLSinkBox<Sink: PlistEventSink> {
    @exclusivity(unchecked) var sink: Sink
    init(_ sink: Sink) { self.sink = sink }
}

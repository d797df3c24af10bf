internal import CLibXML2
import FoundationEssentials

/// Turns libxml2's SAX2 events into a `PlistValue`, applying the property-list grammar (which elements may appear
/// where) and Core Foundation's scalar rules. One instance per parse; it lives on the caller's thread only.
final class XMLReaderBuilder {
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
        /// Where this container's children start in `values` (and, for a dict, its keys in `keys`).
        var valueStart: Int
        var keyStart: Int
        /// Byte offset (in libxml2's UTF-8 buffer) at the end of the start tag.
        var offset: Int
    }

    let ctxt: xmlParserCtxtPtr
    let options: PlistReadOptions
    /// The caller's bytes (valid for the duration of the parse), for precise error offsets.
    let input: UnsafeRawBufferPointer
    /// The element names interned in this parser's dictionary, so a tag is identified by one pointer comparison.
    @exclusivity(unchecked) private var names: [(UnsafePointer<xmlChar>, Tag)] = []

    @exclusivity(unchecked) private var frames: [Frame] = []
    /// The children (and dictionary keys) of the open containers, moved into each container when it closes.
    @exclusivity(unchecked) private var values = MoveStack<PlistValue>(capacity: 64)
    @exclusivity(unchecked) private var keys = MoveStack<String>(capacity: 64)
    @exclusivity(unchecked) private var containerDepth = 0
    @exclusivity(unchecked) private var objectCount = 0

    /// The open scalar element (`<string>`, `<key>`, …), its text so far, and where it started.
    @exclusivity(unchecked) private var scalar: Tag? = nil
    /// The open scalar's text, in a buffer of our own: appending and clearing it happen once per element, and an
    /// `Array` would add a uniqueness check and a retain to each.
    @exclusivity(unchecked) private var text: UnsafeMutablePointer<UInt8>
    @exclusivity(unchecked) private var textCount = 0
    @exclusivity(unchecked) private var textCapacity = 256
    @exclusivity(unchecked) private var scalarOffset = 0

    /// Whether element text may hold stand-ins for control characters (see `XMLReaderControlCharacters`).
    var restoresControlCharacters = false

    /// The first failure, from either the plist grammar or libxml2; later ones are ignored.
    @exclusivity(unchecked) private(set) var error: PlistError? = nil
    /// `error != nil`, as a plain flag for the hot paths.
    @exclusivity(unchecked) private(set) var failed = false
    /// The finished root value.
    @exclusivity(unchecked) private(set) var root: PlistValue? = nil

    init(ctxt: xmlParserCtxtPtr, options: PlistReadOptions, input: UnsafeRawBufferPointer) {
        self.ctxt = ctxt
        self.input = input
        self.options = options
        text = .allocate(capacity: textCapacity)
        frames.reserveCapacity(16)
        if let dict = ctxt.pointee.dict {
            let all: [Tag] = [.key, .string, .integer, .dict, .array, .real, .date, .data, .true, .false, .plist]
            for tag in all {
                if let p = xmlDictLookup(dict, tag.name, Int32(tag.name.utf8.count)) { names.append((p, tag)) }
            }
        }
    }

    deinit {
        text.deallocate()
        values.release()
        keys.release()
    }

    // MARK: Positions

    /// The parser's current byte offset in its UTF-8 buffer (the input itself when the input is UTF-8).
    var currentOffset: Int {
        guard let input = ctxt.pointee.input, let cur = input.pointee.cur, let base = input.pointee.base else { return 0 }
        return Int(input.pointee.consumed) + (cur - base)
    }

    /// The key path of the value being read: array indexes and dictionary keys of the open containers.
    var keyPath: KeyPath {
        var components: [String] = []
        for (i, frame) in frames.enumerated() {
            let childValues = (i + 1 < frames.count ? frames[i + 1].valueStart : values.count) - frame.valueStart
            switch frame.tag {
            case .array:
                components.append(String(childValues))
            case .dict:
                let childKeys = (i + 1 < frames.count ? frames[i + 1].keyStart : keys.count) - frame.keyStart
                if childKeys > childValues, childKeys > 0 { components.append(keys[frame.keyStart + childKeys - 1]) }
            default:
                break
            }
        }
        return KeyPath(components: components)
    }

    /// Records the first error and stops libxml2. The position is the start (`<`) of the tag the parser is at, or of
    /// the element that began at `offset`; `appendingKey` (a key of the innermost dictionary) ends the key path.
    func fail(_ kind: PlistError.Kind, _ message: String, offset: Int? = nil, exact: Bool = false, appendingKey: String? = nil) {
        guard !failed else { return }
        failed = true
        let at = offset ?? currentOffset
        var path = keyPath
        if let appendingKey { path = KeyPath(components: path.components + [appendingKey]) }
        error = PlistError(kind, message, format: .xml, offset: exact ? at : tagStart(at), keyPath: path)
        stopParser()
    }

    /// Ends the parse from inside a callback: no more events, and the push parser's loop stops at its next check.
    /// (`xmlStopParser` would also free the input buffer, which libxml2 2.9's push parser may still touch when the
    /// callback returns.)
    private func stopParser() {
        ctxt.pointee.disableSAX = 1
        ctxt.pointee.instate = XML_PARSER_EOF
    }

    /// Walks back from `offset` (inside or just after a tag) to that tag's `<`; attribute values cannot contain `<`.
    private func tagStart(_ offset: Int) -> Int {
        guard let input = ctxt.pointee.input, let base = input.pointee.base, let end = input.pointee.end else { return offset }
        let local = offset - Int(input.pointee.consumed)
        guard end > base, local >= 0, local <= end - base else { return offset }
        var p = base + min(local, end - base - 1)
        while p > base, p.pointee != 0x3C { p -= 1 }
        return p.pointee == 0x3C ? Int(input.pointee.consumed) + (p - base) : offset
    }

    /// Records an error reported by libxml2 (already positioned by the caller) and stops the parse, even where
    /// libxml2 itself would recover.
    func record(_ e: PlistError) {
        guard !failed else { return }
        failed = true
        var e = e
        if e.keyPath == nil { e.keyPath = keyPath }
        error = e
        stopParser()
    }

    /// Whether an element is open (the document would be truncated if it ended here).
    var isInsideElement: Bool { !frames.isEmpty || scalar != nil }

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
        guard prefix == nil, let t = tag(localname) else {
            let name = prefix.map { String(cString: $0) + ":" } ?? ""
            fail(.syntax, "unknown tag <\(name)\(String(cString: localname))>")
            return
        }
        let offset = currentOffset
        // Where may this element appear?
        if let parent = frames.last {
            switch parent.tag {
            case .dict:
                let expectingKey = keys.count - parent.keyStart == values.count - parent.valueStart
                if t == .key {
                    if !expectingKey { fail(.syntax, "value missing for key inside <dict>"); return }
                } else if expectingKey {
                    fail(.syntax, "found <\(t.name)> inside <dict> where a <key> was expected")
                    return
                }
            case .plist:
                if values.count > parent.valueStart {
                    fail(.rootCount, "<plist> can only include one object; found a second <\(t.name)>")
                    return
                }
                if t == .key { fail(.syntax, "<key> outside <dict>"); return }
            default:
                if t == .key { fail(.syntax, "<key> outside <dict>"); return }
            }
        } else if t == .key {
            fail(.syntax, "<key> outside <dict>")
            return
        }
        switch t {
        case .plist, .array, .dict:
            // A <plist> nested as a value stands for the one object it holds, as CF, plistlib and libplist read it;
            // it counts towards the depth like the containers it could otherwise be used to stack without limit.
            if t != .plist || !frames.isEmpty {
                containerDepth += 1
                if containerDepth > options.maxDepth {
                    fail(.depthLimit, "too many nested arrays or dictionaries (the limit is \(options.maxDepth))")
                    return
                }
            }
            frames.append(Frame(tag: t, valueStart: values.count, keyStart: keys.count, offset: offset))
        default:
            scalar = t
            textCount = 0
            scalarOffset = offset
        }
    }

    func endElement() {
        guard !failed else { return }
        if let t = scalar {
            scalar = nil
            finishScalar(t)
            return
        }
        guard let frame = frames.popLast() else { return }
        switch frame.tag {
        case .plist:
            if values.count == frame.valueStart {
                // A nested one is pointed at by its start tag; the root's end tag is where its object is missing.
                fail(.rootCount, "<plist> holds no object", offset: frames.isEmpty ? nil : frame.offset)
                return
            }
            if !frames.isEmpty { containerDepth -= 1 }
        case .array:
            containerDepth -= 1
            push(.array(values.moveOut(from: frame.valueStart)))
        default:
            containerDepth -= 1
            let count = values.count - frame.valueStart
            if keys.count - frame.keyStart != count {
                frames.append(frame)  // so the key path names the key without a value
                fail(.syntax, "value missing for key inside <dict>")
                return
            }
            guard let dictionary = makeDictionary(frame) else { return }
            push(dictionary)
        }
        if frames.isEmpty, let last = values.last { root = last }
    }

    /// Pops the frame's keys and values into a dictionary (nil after a duplicate key the options reject).
    private func makeDictionary(_ frame: Frame) -> PlistValue? {
        let count = keys.count - frame.keyStart
        let (index, duplicate) = PlistKeyIndex.forDictionary(
            KeyColumn(UnsafeBufferPointer(start: keys.base + frame.keyStart, count: count)))
        var d: PlistDictionary
        if let duplicate {
            defer {
                keys.pop(from: frame.keyStart)
                values.pop(from: frame.valueStart)
            }
            d = PlistDictionary(minimumCapacity: count)
            for j in 0..<count {
                let key = keys[frame.keyStart + j]
                let value = values[frame.valueStart + j]
                if j < duplicate {
                    d.appendNew(key, value)
                    continue
                }
                switch options.duplicateKeys {
                case .lastWins:
                    d.updateValue(value, forKey: key)
                case .firstWins:
                    d.insertIfAbsent(value, forKey: key)
                case .reject:
                    if !d.insertIfAbsent(value, forKey: key) {
                        frames.append(frame)
                        fail(.duplicateKey, "duplicate key \"\(key)\" in <dict>", offset: frame.offset, appendingKey: key)
                        return nil
                    }
                }
            }
        } else {
            // Without a repeated key (exact scalars) the stacks' tops are moved into the dictionary as they are.
            d = keys.popMoved(from: frame.keyStart) { k, _ in
                values.popMoved(from: frame.valueStart) { v, _ in
                    PlistDictionary(movingUniqueKeys: k, values: v, count: count, index: index)
                }
            }
        }
        // A one-entry dictionary `CF$UID` → non-negative integer is a keyed-archiver UID (as Core Foundation reads it).
        if d.count == 1, d[0].key == "CF$UID", case .integer(let i) = d[0].value, let u = i.uint64Value {
            return .uid(UID(u))
        }
        return .dictionary(d)
    }

    @inline(__always)
    private func push(_ value: PlistValue) {
        objectCount += 1
        if objectCount > options.maxObjectCount {
            fail(.countLimit, "more than \(options.maxObjectCount) objects")
            return
        }
        values.append(value)
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
        var i = 0
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
                let where_ = frames.last.map { "inside <\($0.tag.name)>" } ?? "outside the root element"
                fail(.syntax, "unexpected text \(where_)", offset: textOffset(bytes, i - 1), exact: true)
                return
            }
        }
    }

    /// The offset of `bytes[i]` when libxml2 hands us text straight from its input buffer, else the cursor.
    private func textOffset(_ bytes: UnsafePointer<xmlChar>, _ i: Int) -> Int {
        guard let input = ctxt.pointee.input, let base = input.pointee.base, let end = input.pointee.end,
              bytes >= base, bytes < end else { return currentOffset }
        return Int(input.pointee.consumed) + (bytes - base) + i
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
        if t == .key {
            if case .string(let s) = value { keys.append(s) }
            return
        }
        push(value)
        if frames.isEmpty { root = value }
    }

    @inline(__always)
    private static func scalarValue(_ t: Tag, _ b: UnsafeRawBufferPointer) throws -> PlistValue {
        switch t {
        case .string, .key: return .string(String(decoding: b, as: UTF8.self))
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

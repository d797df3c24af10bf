/// Edits by key path: each works out the new tree with `PlistValue`'s editing (its errors are `plutil`'s), then the
/// few byte ranges of the text to replace, then reads the new text back and checks it gives that tree.
extension PlistTextDocument {
    /// One replacement of source bytes.
    struct Splice {
        var range: Range<Int>
        var text: [UInt8]
    }

    /// Sets `newValue` at `path` (`plutil -replace`): an existing value's text is replaced, a new key or an index
    /// one past the end is inserted. Setting a value to what it already is leaves the text unchanged.
    public mutating func replace(_ newValue: PlistValue, at path: KeyPath) throws {
        if let old = value[path: path], old == newValue, !path.components.isEmpty { return }
        let expected = try value.replacing(newValue, at: path)
        if path.components.isEmpty {
            try commit([Splice(range: Int(nodes[0].start)..<Int(nodes[0].end), text: try fragment(newValue, for: 0, path: path))],
                       expected: expected, path: path)
            return
        }
        let (parent, last) = try parentNode(of: path)
        var splices: [Splice]
        switch nodes[parent].kind {
        case .dictionary:
            if let child = entry(of: parent, key: last) {
                splices = try setSplices(child, newValue, path: path, expected: expected)
            } else {
                splices = try insertSplices(into: parent, key: last, newValue, at: nil, path: path, expected: expected)
            }
        case .array:
            let kids = children(of: parent)
            guard let index = KeyPath.arrayIndex(last), index <= kids.count else { throw Self.notInPlace(path, "no such element") }
            splices = index < kids.count
                ? try setSplices(kids[index], newValue, path: path, expected: expected)
                : try insertSplices(into: parent, key: nil, newValue, at: index, path: path, expected: expected)
        case .scalar:
            throw Self.notInPlace(path, "a scalar is in the way")
        }
        try commit(splices, expected: expected, path: path)
    }

    /// Inserts `newValue` at `path` (`plutil -insert`): a new dictionary key, or an array element at an index
    /// (shifting the later ones); with `appending`, appends to the array at `path`.
    public mutating func insert(_ newValue: PlistValue, at path: KeyPath, appending: Bool = false) throws {
        let expected = try value.inserting(newValue, at: path, appending: appending)
        let (parent, last) = try parentNode(of: path)
        var splices: [Splice]
        switch nodes[parent].kind {
        case .dictionary:
            if appending, let target = entry(of: parent, key: last) {
                guard nodes[target].kind == .array else { throw Self.notInPlace(path, "not an array") }
                splices = try insertSplices(into: target, key: nil, newValue, at: children(of: target).count,
                                            path: path.appending(children(of: target).count), expected: expected)
            } else {
                splices = try insertSplices(into: parent, key: last, newValue, at: nil, path: path, expected: expected)
            }
        case .array:
            let kids = children(of: parent)
            guard let index = KeyPath.arrayIndex(last), index <= kids.count else { throw Self.notInPlace(path, "no such element") }
            if appending {
                guard index < kids.count, nodes[kids[index]].kind == .array else { throw Self.notInPlace(path, "not an array") }
                let target = kids[index]
                let n = children(of: target).count
                splices = try insertSplices(into: target, key: nil, newValue, at: n, path: path.appending(n), expected: expected)
            } else {
                splices = try insertSplices(into: parent, key: nil, newValue, at: index, path: path, expected: expected)
            }
        case .scalar:
            throw Self.notInPlace(path, "a scalar is in the way")
        }
        try commit(splices, expected: expected, path: path)
    }

    /// Removes the value at `path` (`plutil -remove`) with its key and separator; a line left empty goes with it.
    @discardableResult
    public mutating func remove(at path: KeyPath) throws -> PlistValue {
        let expected = try value.removing(at: path)
        let removed = value[path: path] ?? .bool(false)
        let (parent, last) = try parentNode(of: path)
        let targets: [Int]
        switch nodes[parent].kind {
        case .dictionary:
            targets = entries(of: parent, key: last)
        case .array:
            let kids = children(of: parent)
            guard let index = KeyPath.arrayIndex(last), index < kids.count else { throw Self.notInPlace(path, "no such element") }
            targets = [kids[index]]
        case .scalar:
            throw Self.notInPlace(path, "a scalar is in the way")
        }
        guard !targets.isEmpty else { throw Self.notInPlace(path, "no such entry") }
        var splices: [Splice] = []
        if layout == .xcodeProject, let flat = try xcodeFlatObjectSplice(containing: targets[0], path: path, expected: expected),
           path.components.count > 2 {
            splices = [flat]
        } else {
            for t in targets { splices += removeSplices(t, parent: parent) }
        }
        try commit(splices, expected: expected, path: path)
        return removed
    }

    /// Renames the dictionary key at `path` to `newKey`, in place (its value and position are kept).
    /// - Throws: `.keyPath` when there is no such key, `.duplicateKey` when `newKey` exists already.
    public mutating func renameKey(at path: KeyPath, to newKey: String) throws {
        guard let last = path.components.last else {
            throw PlistError(.keyPath, "Key path not found \(path)", keyPath: path)
        }
        let parentPath = KeyPath(components: Array(path.components.dropLast()))
        guard case .dictionary(let d)? = value[path: parentPath], let index = d.index(forKey: last) else {
            throw PlistError(.keyPath, "Key path not found \(path)", keyPath: path)
        }
        if newKey.unicodeScalars.elementsEqual(last.unicodeScalars) { return }
        if d.index(forKey: newKey) != nil {
            throw PlistError(.duplicateKey, "Value already exists at key path \(parentPath.appending(newKey))", keyPath: path)
        }
        var renamed = PlistDictionary(minimumCapacity: d.count)
        for (i, entry) in d.enumerated() { renamed.insert(entry.value, forKey: i == index ? newKey : entry.key, at: i) }
        let expected = parentPath.components.isEmpty ? PlistValue.dictionary(renamed) : try value.replacing(.dictionary(renamed), at: parentPath)
        let (parent, _) = try parentNode(of: path)
        let targets = entries(of: parent, key: last)
        guard !targets.isEmpty else { throw Self.notInPlace(path, "no such entry") }
        let keyText = self.keyText(newKey)
        // A key renamed to one that feeds reference comments (a `name`) is checked for comments as that key.
        let checkedPath = layout == .xcodeProject && Self.commentInputs.contains(newKey) ? parentPath.appending(newKey) : path
        var splices: [Splice] = []
        for t in targets {
            let n = nodes[t]
            let keyRange = Int(n.keyStart)..<Int(n.keyEnd)
            if n.keyStart == n.start {
                // `key;` stands for `key = key;`: keep the value.
                splices.append(Splice(range: keyRange, text: keyText + Array(" = ".utf8) + Array(bytes[keyRange])))
            } else {
                splices.append(Splice(range: keyRange, text: keyText))
            }
        }
        try commit(splices, expected: expected, path: checkedPath)
    }

    // MARK: Locating

    /// The container node holding the last component of `path`, and that component.
    func parentNode(of path: KeyPath) throws -> (Int, String) {
        guard let last = path.components.last else {
            throw PlistError(.keyPath, "Key path not found \(path)", keyPath: path)
        }
        guard let parent = node(at: path.components.dropLast()), nodes[parent].isContainer else {
            throw Self.notInPlace(path, "its container is not in the text as a container")
        }
        return (parent, last)
    }

    /// An entry's whole text: key (or value) start to past its `;` or `,` (when there is one).
    struct Span {
        var start: Int
        var end: Int
        var valueEnd: Int
        var hasSeparator: Bool
    }

    func span(_ i: Int, in t: TextBytes) -> Span {
        let n = nodes[i]
        var start = n.keyStart >= 0 ? Int(n.keyStart) : Int(n.start)
        var valueEnd = Int(n.end)
        if t.isXML {
            if n.parent >= 0 {
                let wrapped = xmlPlistWrapper(Int(n.start)..<valueEnd, t: t)
                if n.keyStart < 0 { start = wrapped.lowerBound }
                valueEnd = wrapped.upperBound
            }
            return Span(start: start, end: valueEnd, valueEnd: valueEnd, hasSeparator: false)
        }
        let p = t.skipTrivia(valueEnd)
        if p < t.count, bytes[p] == (n.keyStart >= 0 ? 0x3B : 0x2C) {
            return Span(start: start, end: p + 1, valueEnd: valueEnd, hasSeparator: true)
        }
        return Span(start: start, end: valueEnd, valueEnd: valueEnd, hasSeparator: false)
    }

    /// `range` widened over the `<plist>` … `</plist>` elements it is nested in (a nested `<plist>` stands for the
    /// value it holds).
    func xmlPlistWrapper(_ range: Range<Int>, t: TextBytes) -> Range<Int> {
        var r = range
        while true {
            var b = r.lowerBound
            while b > 0, bytes[b - 1] == 0x20 || (bytes[b - 1] >= 0x09 && bytes[b - 1] <= 0x0D) { b -= 1 }
            guard b > 0, bytes[b - 1] == 0x3E else { return r }
            var open = b - 1
            while open > 0, bytes[open] != 0x3C { open -= 1 }
            guard bytes[open...].starts(with: Array("<plist".utf8)) else { return r }
            let after = t.skipTrivia(r.upperBound)
            let close = Array("</plist>".utf8)
            guard bytes[after...].starts(with: close) else { return r }
            r = open..<(after + close.count)
        }
    }

    func withText<R>(_ body: (TextBytes) throws -> R) rethrows -> R {
        try bytes.withUnsafeBufferPointer { try body(TextBytes(bytes: $0, isXML: format == .xml)) }
    }

    // MARK: Setting

    func setSplices(_ i: Int, _ newValue: PlistValue, path: KeyPath, expected: PlistValue) throws -> [Splice] {
        if layout == .xcodeProject, let flat = try xcodeFlatObjectSplice(containing: i, path: path, expected: expected) { return [flat] }
        let n = nodes[i]
        var text = try fragment(newValue, for: i, path: path)
        var range = Int(n.start)..<Int(n.end)
        if n.keyStart == n.start {
            text = Array(bytes[Int(n.keyStart)..<Int(n.keyEnd)]) + Array(" = ".utf8) + text
        } else if layout == .xcodeProject, n.kind == .scalar {
            // The reference comment after the old value goes; the new one (if any) is part of `text`.
            if let comment = withText({ $0.trailingComment(after: Int(n.end)) }) { range = range.lowerBound..<comment.upperBound }
        }
        return [Splice(range: range, text: text)]
    }

    // MARK: Inserting

    /// The splices that put a new entry (`key` non-nil) or element (at `index`) into container `c`.
    func insertSplices(into c: Int, key: String?, _ newValue: PlistValue, at index: Int?, path: KeyPath, expected: PlistValue) throws -> [Splice] {
        if layout == .xcodeProject, let flat = try xcodeFlatObjectSplice(containing: c, path: path, expected: expected) { return [flat] }
        if layout == .xcodeProject, let key, let objects = try xcodeObjectInsertion(into: c, id: key, newValue, path: path, expected: expected) {
            return objects
        }
        return try withText { t in
            let container = nodes[c]
            let kids = children(of: c)
            let spans = kids.map { span($0, in: t) }
            let newline = t.lineBreak
            let isArray = container.kind == .array
            // Where among the children.
            let j: Int
            if let index { j = index } else { j = sortedPosition(in: c, kids: kids, key: key ?? "") }
            let multiLine: Bool
            if let first = spans.first {
                multiLine = t.isFirstOnLine(first.start) && (j < spans.count ? t.isFirstOnLine(spans[j].start) : t.isLastOnLine(spans[spans.count - 1].end))
            } else {
                multiLine = container.openEnd < container.closeStart
                    && t.hasLineBreak(Int(container.openEnd)..<Int(container.closeStart)) && t.isFirstOnLine(Int(container.closeStart))
            }
            let closeIndent = t.indent(of: Int(container.closeStart))
            let childIndent: [UInt8]
            if let first = spans.first, t.isFirstOnLine(first.start) {
                childIndent = t.indent(of: first.start)
            } else {
                childIndent = (container.start == container.end && container.keyStart < 0 && c == 0 ? [] : t.indent(of: Int(container.start))) + unit(t)
            }
            let valueText = try fragment(newValue, indent: multiLine ? childIndent : t.indent(of: Int(container.start)),
                                         flat: !multiLine && !t.isXML, path: path, t: t)
            let lastHasComma = spans.last?.hasSeparator ?? (layout == .xcodeProject)
            var body: [UInt8]
            if let key {
                if t.isXML {
                    body = xmlKey(key) + (multiLine ? newline + childIndent : []) + valueText
                } else {
                    body = keyText(key) + Array(" = ".utf8) + valueText + [0x3B]
                }
            } else {
                body = valueText
            }
            var out: [Splice] = []
            if multiLine {
                let element = isArray && !t.isXML ? body + ((j < spans.count || lastHasComma) ? [0x2C] : []) : body
                if j < spans.count {
                    out.append(Splice(range: t.lineStart(spans[j].start)..<t.lineStart(spans[j].start), text: childIndent + element + newline))
                } else if let last = spans.last {
                    let e = t.lineEnd(last.end)
                    if e == t.count {
                        out.append(Splice(range: e..<e, text: newline + childIndent + element))
                    } else {
                        let at = t.afterLineBreak(e)
                        out.append(Splice(range: at..<at, text: childIndent + element + newline))
                    }
                    if isArray, !t.isXML, !last.hasSeparator {
                        out.append(Splice(range: last.valueEnd..<last.valueEnd, text: [0x2C]))
                    }
                } else {
                    let at = t.lineStart(Int(container.closeStart))
                    out.append(Splice(range: at..<at, text: closeIndent + unit(t) + element + newline))
                }
                return out
            }
            // On one line.
            if spans.isEmpty {
                if t.isXML {
                    let tag = isArray ? "array" : "dict"
                    let indent = t.indent(of: Int(container.start))
                    let inner = newline + indent + unit(t) + body + newline + indent
                    if container.openEnd == container.end {
                        // `<dict/>`
                        return [Splice(range: Int(container.start)..<Int(container.end),
                                       text: Array("<\(tag)>".utf8) + inner + Array("</\(tag)>".utf8))]
                    }
                    return [Splice(range: Int(container.openEnd)..<Int(container.closeStart), text: inner)]
                }
                if container.start == container.end {
                    // The implicit dictionary of an empty strings file.
                    return [Splice(range: t.count..<t.count, text: body + newline)]
                }
                let text = isArray ? body + (layout == .xcodeProject ? Array(", ".utf8) : []) : body + [0x20]
                return [Splice(range: Int(container.openEnd)..<Int(container.closeStart), text: text)]
            }
            if j < spans.count {
                let sep: [UInt8] = t.isXML ? [] : (isArray ? [0x2C, 0x20] : [0x20])
                return [Splice(range: spans[j].start..<spans[j].start, text: body + sep)]
            }
            let last = spans[spans.count - 1]
            if t.isXML { return [Splice(range: last.end..<last.end, text: body)] }
            if isArray {
                return last.hasSeparator
                    ? [Splice(range: last.end..<last.end, text: [0x20] + body + [0x2C])]
                    : [Splice(range: last.end..<last.end, text: [0x2C, 0x20] + body)]
            }
            return [Splice(range: last.end..<last.end, text: [0x20] + body)]
        }
    }

    /// Where a new key goes: at its sorted place when the keys are sorted (CF's UTF-16 order; Xcode's `isa` first,
    /// then bytes), else at the end.
    func sortedPosition(in c: Int, kids: [Int], key: String) -> Int {
        let keys = kids.map { self.key(of: $0) }
        let xcode = layout == .xcodeProject
        func less(_ a: String, _ b: String) -> Bool { xcode ? XcodeKeyOrder.less(a, b) : KeySorting.utf16Less(a, b) }
        for k in 1..<max(1, keys.count) where less(keys[k], keys[k - 1]) { return keys.count }
        return keys.firstIndex { less(key, $0) } ?? keys.count
    }

    func unit(_ t: TextBytes) -> [UInt8] { layout == .xcodeProject || t.isXML ? [0x09] : t.indentUnit }

    // MARK: Removing

    func removeSplices(_ i: Int, parent: Int) -> [Splice] {
        withText { t in
            let kids = children(of: parent)
            let spans = kids.map { span($0, in: t) }
            guard let k = kids.firstIndex(of: i) else { return [] }
            let s = spans[k]
            if t.isFirstOnLine(s.start), t.isLastOnLine(s.end) {
                var range = t.lineStart(s.start)..<t.afterLineBreak(t.lineEnd(s.end))
                if layout == .xcodeProject { range = xcodeWidenedRemoval(range, t: t) }
                return [Splice(range: range, text: [])]
            }
            if k + 1 < spans.count { return [Splice(range: s.start..<spans[k + 1].start, text: [])] }
            if k > 0 {
                let p = spans[k - 1]
                if nodes[parent].kind == .array, !s.hasSeparator, p.hasSeparator {
                    return [Splice(range: p.valueEnd..<s.end, text: [])]
                }
                return [Splice(range: p.end..<s.end, text: [])]
            }
            let container = nodes[parent]
            if container.openEnd < container.closeStart, !t.hasLineBreak(Int(container.openEnd)..<Int(container.closeStart)) {
                return [Splice(range: Int(container.openEnd)..<Int(container.closeStart), text: [])]
            }
            return [Splice(range: s.start..<s.end, text: [])]
        }
    }

    // MARK: Committing

    /// Applies `splices`, reads the result back, and keeps it when it gives `expected`.
    mutating func commit(_ splices: [Splice], expected: PlistValue, path: KeyPath) throws {
        guard isUTF8 else {
            throw Self.notInPlace(path, "the text is not UTF-8 (edits keep UTF-8 text only)")
        }
        var out = Self.applying(splices, to: bytes)
        if layout == .xcodeProject { out = try xcodeRefreshComments(out, oldValue: value, newValue: expected, path: path) }
        let parsed: Parsed
        do {
            parsed = try out.withUnsafeBytes { try Self.parse($0, options: options) }
        } catch let error as PlistError {
            throw Self.notInPlace(path, "the new text does not read back (\(error))")
        }
        guard parsed.value == expected else { throw Self.notInPlace(path, "the new text reads back to another value") }
        bytes = out
        value = parsed.value
        nodes = parsed.nodes
        format = parsed.format == .strings && format != .strings ? format : parsed.format
    }

    static func applying(_ splices: [Splice], to bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + splices.reduce(0) { $0 + $1.text.count })
        var at = 0
        for s in splices.sorted(by: { $0.range.lowerBound < $1.range.lowerBound || ($0.range.lowerBound == $1.range.lowerBound && $0.range.upperBound < $1.range.upperBound) }) {
            let lower = max(at, s.range.lowerBound)
            out.append(contentsOf: bytes[at..<lower])
            out.append(contentsOf: s.text)
            at = max(lower, s.range.upperBound)
        }
        out.append(contentsOf: bytes[at...])
        return out
    }

    // MARK: New text

    /// The text of `newValue` to stand in for node `i`'s value, laid out at that value's line.
    func fragment(_ newValue: PlistValue, for i: Int, path: KeyPath) throws -> [UInt8] {
        try withText { t in
            let n = nodes[i]
            let lineOf = n.keyStart >= 0 ? Int(n.keyStart) : Int(n.start)
            var flat = false
            if n.parent >= 0 {
                let p = nodes[Int(n.parent)]
                flat = !t.isXML && !t.hasLineBreak(Int(p.openEnd)..<max(Int(p.openEnd), Int(p.closeStart))) && p.openEnd < p.closeStart
            }
            return try fragment(newValue, indent: t.indent(of: lineOf), flat: flat, path: path, t: t)
        }
    }

    /// `newValue` as text whose first line follows what precedes it and whose other lines start with `indent`.
    func fragment(_ newValue: PlistValue, indent: [UInt8], flat: Bool, path: KeyPath, t: TextBytes) throws -> [UInt8] {
        if layout == .xcodeProject {
            return try xcodeFragment(newValue, indent: indent, flat: flat, path: path, newline: t.lineBreak)
        }
        if t.isXML { return try xmlFragment(newValue, indent: indent, unit: unit(t), newline: t.lineBreak) }
        if flat, newValue.arrayValue != nil || newValue.dictionaryValue != nil {
            // Representable? The plain writer says (and gives its error).
            _ = try openStepText(newValue)
            var w = XcodeValueWriter(style: .openStep)
            w.appendFlat(newValue)
            return w.out
        }
        return reindent(try openStepText(newValue), levelWidth: 4, space: 0x20, indent: indent, unit: unit(t), newline: t.lineBreak)
    }

    private func openStepText(_ v: PlistValue) throws -> [UInt8] {
        var o = PlistWriteOptions()
        o.sortKeys = false
        var text = try OpenStepWriter.write(v, format: format == .gnustep ? .gnustep : .openStep, options: o)
        if text.last == 0x0A { text.removeLast() }
        return text
    }

    private func xmlFragment(_ v: PlistValue, indent: [UInt8], unit: [UInt8], newline: [UInt8]) throws -> [UInt8] {
        // Keys sorted, as Core Foundation's XML writer sorts them (and as a whole-file rewrite would give).
        let o = PlistWriteOptions()
        if unit == [0x09], newline == [0x0A], indent.allSatisfy({ $0 == 0x09 }) {
            // Written at its depth (inside as many arrays), so that data lines wrap as Core Foundation wraps them there.
            var wrapped = v
            for _ in 0..<indent.count { wrapped = .array([wrapped]) }
            let doc = try XMLWriter.write(wrapped, options: o)
            var lines = doc.split(separator: 0x0A, omittingEmptySubsequences: false)
            // Prolog (3 lines) and openers before the value; closers, `</plist>` and the final empty line after it.
            let head = 3 + indent.count, tail = indent.count + 2
            if lines.count > head + tail {
                lines = Array(lines[head..<(lines.count - tail)])
                lines[0] = lines[0].dropFirst(indent.count)
                return Array(lines.joined(separator: [0x0A]))
            }
        }
        let doc = try XMLWriter.write(v, options: o)
        let head = Array("<plist version=\"1.0\">\n".utf8)
        let tail = Array("\n</plist>\n".utf8)
        guard let h = TextBytes.find(head, in: doc), doc.count >= tail.count, Array(doc.suffix(tail.count)) == tail else { return doc }
        let body = Array(doc[h.upperBound..<(doc.count - tail.count)])
        return reindentXML(body, indent: indent, unit: unit, newline: newline)
    }

    /// Lines after the first get `indent` plus `unit` per leading tab, except line breaks inside an element's text
    /// (a string holding a newline), which are kept as they are.
    private func reindentXML(_ text: [UInt8], indent: [UInt8], unit: [UInt8], newline: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.count + 16)
        var inText = false
        var i = 0
        while i < text.count {
            let c = text[i]
            if c == 0x3C {
                if i + 1 < text.count, text[i + 1] == 0x2F {
                    inText = false
                } else {
                    var j = i + 1
                    while j < text.count, text[j] != 0x3E { j += 1 }
                    let name = text[(i + 1)..<j]
                    inText = !(name.last == 0x2F) && name != Array("array".utf8)[...] && name != Array("dict".utf8)[...]
                }
                out.append(c)
                i += 1
                continue
            }
            if c == 0x0A, !inText {
                out += newline
                i += 1
                var tabs = 0
                while i < text.count, text[i] == 0x09 { tabs += 1; i += 1 }
                out += indent
                for _ in 0..<tabs { out += unit }
                continue
            }
            out.append(c)
            i += 1
        }
        return out
    }

    /// Lines after the first get `indent` plus `unit` per level (a level is `levelWidth` leading `space` bytes).
    private func reindent(_ text: [UInt8], levelWidth: Int, space: UInt8, indent: [UInt8], unit: [UInt8], newline: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.count + 16)
        var first = true
        for line in text.split(separator: 0x0A, omittingEmptySubsequences: false) {
            if !first {
                out += newline
                var lead = 0
                while lead < line.count, line[line.startIndex + lead] == space { lead += 1 }
                out += indent
                for _ in 0..<(lead / levelWidth) { out += unit }
                out += line.dropFirst(lead - lead % levelWidth)
            } else {
                out += line
            }
            first = false
        }
        return out
    }

    /// A key as the document writes keys.
    func keyText(_ key: String) -> [UInt8] {
        if format == .xml { return xmlKey(key) }
        if layout == .xcodeProject { return XcodeQuoting.quoted(key) }
        var w = XcodeValueWriter(style: .openStep)
        w.appendString(key)
        return w.out
    }

    func xmlKey(_ key: String) -> [UInt8] {
        var out = Array("<key>".utf8)
        for c in key.utf8 {
            switch c {
            case 0x26: out += Array("&amp;".utf8)
            case 0x3C: out += Array("&lt;".utf8)
            case 0x3E: out += Array("&gt;".utf8)
            default: out.append(c)
            }
        }
        return out + Array("</key>".utf8)
    }
}

/// Xcode's rules for edits in a `project.pbxproj` document (`PlistTextDocument.Layout.xcodeProject`): new text as
/// `XcodeProjectWriter` writes it, a flat object rewritten whole on its one line, a new object put into its section at
/// its ID's place (the section made when missing, dropped when emptied), and every reference comment whose text the
/// edit changed brought up to date wherever it is written.
extension PlistTextDocument {
    /// Whether references at `path` get comments.
    static func xcodeReferences(at path: KeyPath) -> Bool {
        let c = path.components
        if c == ["rootObject"] { return true }
        guard c.count >= 2, c[0] == "objects" else { return false }
        return !c.contains("attributes") && !c.contains("remoteGlobalIDString")
    }

    func xcodeComments(_ root: PlistValue) -> XcodeComments { XcodeComments(root, projectName: projectName) }

    /// The keys of an object whose values feed reference comments (`XcodeComments`).
    static let commentInputs: Set<String> = [
        "isa", "name", "path", "fileRef", "productRef", "productName", "files", "buildConfigurationList", "exceptions",
        "target", "buildPhase", "repositoryURL", "relativePath",
        // An exception set names its phase's target; from Xcode 27 a configuration names its list's owner.
        "buildPhases", "buildConfigurations", "attributes",
    ]

    /// Whether an edit at `path` can change any object's reference comment.
    static func xcodeEditMayChangeComments(_ path: KeyPath) -> Bool {
        let c = path.components
        guard let first = c.first else { return true }
        if first == "rootObject" || first == "objectVersion" { return true }
        guard first == "objects" else { return false }
        return c.count <= 2 || commentInputs.contains(c[2])
    }

    /// Whether `v` holds a string that is the ID of one of `objects` (only then does its text need comments).
    static func mentionsObject(_ v: PlistValue, _ objects: PlistDictionary?) -> Bool {
        guard let objects else { return false }
        switch v {
        case .string(let s): return objects[s] != nil
        case .array(let a): return a.contains { mentionsObject($0, objects) }
        case .dictionary(let d): return d.values.contains { mentionsObject($0, objects) }
        default: return false
        }
    }

    func xcodeFragment(_ newValue: PlistValue, indent: [UInt8], flat: Bool, path: KeyPath, newline: [UInt8]) throws -> [UInt8] {
        try XcodeProjectWriter.checkRepresentable(newValue, path: path.components)
        let references = Self.xcodeReferences(at: path)
        let comments = references && Self.mentionsObject(newValue, XcodeComments.objects(of: value)) ? xcodeComments(value) : nil
        var w = XcodeValueWriter(style: .xcode, comments: comments, flatIsas: XcodeProjectWriter.flatIsas(of: value))
        w.newline = newline
        if flat { w.appendFlat(newValue, references: references) } else { w.appendValue(newValue, indent: indent, references: references) }
        return w.out
    }

    /// When `path` lies inside an object written on one line, the splice that rewrites that whole object from
    /// `expected`.
    func xcodeFlatObjectSplice(containing i: Int, path: KeyPath, expected: PlistValue) throws -> Splice? {
        let c = path.components
        guard c.count >= 3, c[0] == "objects", let object = node(at: c.prefix(2)), nodes[object].kind == .dictionary,
              i >= object, i < Int(nodes[object].subtreeEnd) else { return nil }
        let range = Int(nodes[object].start)..<Int(nodes[object].end)
        guard !withText({ $0.hasLineBreak(range) }), let newObject = expected[path: KeyPath(components: Array(c.prefix(2)))] else {
            return nil
        }
        try XcodeProjectWriter.checkRepresentable(newObject, path: Array(c.prefix(2)))
        var w = XcodeValueWriter(style: .xcode, comments: xcodeComments(value))
        w.appendFlat(newObject, references: true)
        return Splice(range: range, text: w.out)
    }

    /// A new object (`objects.<id>` holding a dictionary with an `isa`) at its place: among its isa's objects by ID,
    /// or in a new section at the isa's place. Nil when `c` is not the objects dictionary or it has no sections.
    func xcodeObjectInsertion(into c: Int, id: String, _ newValue: PlistValue, path: KeyPath, expected: PlistValue) throws -> [Splice]? {
        guard path.components.count == 2, path.components[0] == "objects", c == node(at: ["objects"]),
              let isa = newValue["isa"]?.stringValue, let objects = value["objects"]?.dictionaryValue else { return nil }
        try XcodeProjectWriter.checkRepresentable(newValue, path: path.components)
        return withText { t -> [Splice]? in
            let container = nodes[c]
            var w = XcodeValueWriter(style: .xcode, comments: xcodeComments(expected), flatIsas: XcodeProjectWriter.flatIsas(of: expected))
            w.newline = t.lineBreak
            w.appendObject(id, newValue)
            let objectText = w.out
            // Objects of the same isa: before the first with a greater ID, else after the last.
            let same = children(of: c).filter { objects[key(of: $0)]?["isa"]?.stringValue == isa }
            if !same.isEmpty {
                if let next = same.first(where: { id.utf8.lexicographicallyPrecedes(key(of: $0).utf8) }),
                   t.isFirstOnLine(span(next, in: t).start) {
                    let at = t.lineStart(span(next, in: t).start)
                    return [Splice(range: at..<at, text: objectText)]
                }
                let last = span(same[same.count - 1], in: t)
                guard t.isLastOnLine(last.end) else { return nil }
                let at = t.afterLineBreak(t.lineEnd(last.end))
                return [Splice(range: at..<at, text: objectText)]
            }
            // A new section, before the first section of a greater isa.
            let sections = sectionLines(in: Int(container.openEnd)..<Int(container.closeStart), t: t)
            guard !sections.isEmpty else { return nil }
            let nl = t.lineBreak
            let block = nl + Array("/* Begin \(isa) section */".utf8) + nl + objectText + Array("/* End \(isa) section */".utf8) + nl
            if let later = sections.first(where: { isa.utf8.lexicographicallyPrecedes($0.isa.utf8) }) {
                let begin = later.start
                // Before the empty line that precedes the later section's Begin line.
                if begin > 0 {
                    let blank = t.lineStart(begin - 1)
                    if t.lineEnd(blank) == blank { return [Splice(range: blank..<blank, text: block)] }
                }
                return [Splice(range: begin..<begin, text: Array(block.dropFirst(nl.count)) + nl)]
            }
            let at = t.lineStart(Int(container.closeStart))
            return [Splice(range: at..<at, text: block)]
        }
    }

    /// The `/* Begin <isa> section */` lines in `range`: their isa and line start.
    func sectionLines(in range: Range<Int>, t: TextBytes) -> [(isa: String, start: Int)] {
        var out: [(String, Int)] = []
        let begin = Array("/* Begin ".utf8), end = Array(" section */".utf8)
        var i = range.lowerBound
        while i < range.upperBound {
            let s = i
            let e = t.lineEnd(s)
            let line = bytes[s..<e]
            if line.starts(with: begin), line.count > begin.count + end.count, Array(line.suffix(end.count)) == end {
                out.append((String(decoding: line.dropFirst(begin.count).dropLast(end.count), as: UTF8.self), s))
            }
            i = t.afterLineBreak(e)
            if i == s { break }
        }
        return out
    }

    /// A removed object's lines, widened to its section's `Begin`/`End` lines and the empty line before them when the
    /// section is left empty.
    func xcodeWidenedRemoval(_ range: Range<Int>, t: TextBytes) -> Range<Int> {
        guard range.lowerBound > 0, range.upperBound < t.count else { return range }
        let previous = t.lineStart(range.lowerBound - 1)
        let previousLine = bytes[previous..<t.lineEnd(previous)]
        let nextEnd = t.lineEnd(range.upperBound)
        let nextLine = bytes[range.upperBound..<nextEnd]
        guard previousLine.starts(with: Array("/* Begin ".utf8)), previousLine.hasSuffix(Array(" section */".utf8)),
              nextLine.starts(with: Array("/* End ".utf8)), nextLine.hasSuffix(Array(" section */".utf8)) else { return range }
        var lower = previous
        if previous > 0 {
            let blank = t.lineStart(previous - 1)
            if t.lineEnd(blank) == blank { lower = blank }
        }
        return lower..<t.afterLineBreak(nextEnd)
    }

    /// `text` with every reference comment whose object's comment the edit changed rewritten (or dropped when the
    /// object no longer has one): at the object's key and after every reference to it.
    func xcodeRefreshComments(_ text: [UInt8], oldValue: PlistValue, newValue: PlistValue, path: KeyPath) throws -> [UInt8] {
        guard Self.xcodeEditMayChangeComments(path) else { return text }
        let old = xcodeComments(oldValue), new = xcodeComments(newValue)
        var changed: [String: String?] = [:]
        // Objects the edit removed keep their comments where they are still referred to (removing references is
        // the caller's decision, not a layout rule).
        let surviving = XcodeComments.objects(of: newValue)
        for (id, comment) in old.byID where new[id] != comment && surviving?[id] != nil { changed[id] = new[id] }
        guard !changed.isEmpty else { return text }
        guard let parsed = try? text.withUnsafeBytes({ try Self.parse($0, options: options) }) else { return text }
        var shadow = self
        shadow.bytes = text
        shadow.nodes = parsed.nodes
        shadow.value = parsed.value
        return shadow.withText { t in
            var splices: [Splice] = []
            func patch(after p: Int, _ id: String) {
                guard let replacement = changed[id], let range = t.trailingComment(after: p) else { return }
                var out: [UInt8] = []
                if let replacement { out = Array(" /* \(replacement) */".utf8) }
                splices.append(Splice(range: range, text: out))
            }
            let objects = shadow.node(at: ["objects"])
            for i in 0..<shadow.nodes.count {
                let n = shadow.nodes[i]
                if n.keyStart >= 0, Int(n.parent) == objects { patch(after: Int(n.keyEnd), shadow.key(of: i)) }
                if n.kind == .scalar, n.end > n.start {
                    let token = shadow.tokenString(Int(n.start), Int(n.end))
                    if changed[token] != nil { patch(after: Int(n.end), token) }
                }
            }
            return Self.applying(splices, to: text)
        }
    }

    /// An OpenStep string token's text (bare or quoted).
    func tokenString(_ s: Int, _ e: Int) -> String {
        bytes.withUnsafeBufferPointer { b in
            let q = b[s]
            guard q == 0x22 || q == 0x27 else { return String(decoding: UnsafeBufferPointer(rebasing: b[s..<e]), as: UTF8.self) }
            guard e - s >= 2 else { return "" }
            let inner = UnsafeBufferPointer(rebasing: b[(s + 1)..<(e - 1)])
            if !inner.contains(0x5C) { return String(decoding: inner, as: UTF8.self) }
            guard let base = b.baseAddress else { return "" }
            var source = OpenStepEventSource(base: base, count: e, start: s, format: .openStep, sink: PlistEventRecorder())
            return (try? source.parseQuoted()) ?? ""
        }
    }
}

extension ArraySlice where Element == UInt8 {
    func hasSuffix(_ suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self.suffix(suffix.count)) == suffix }
}

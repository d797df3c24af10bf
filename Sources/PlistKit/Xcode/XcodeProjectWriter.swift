/// Writes a value exactly as Xcode writes `project.pbxproj`: the `// !$*UTF8*$!` header, one tab per level, `isa`
/// first and the other keys by their bytes, the `objects` dictionary in `/* Begin <isa> section */` blocks ordered by
/// isa with the objects sorted by ID, `PBXBuildFile` and `PBXFileReference` (and, from objectVersion 70 to 76,
/// `PBXFileSystemSynchronizedRootGroup`) on one line, Xcode's quoting (`XcodeQuoting`), and the reference comments
/// derived from the object graph (`XcodeComments`).
///
/// A value that is not a project (no `objects` dictionary) is laid out by the same rules, without sections or
/// comments. Property lists of Xcode projects hold only strings; other scalars are `.unrepresentable` unless `lossy`
/// is set (then spelled as `PlistWriteOptions.lossy` spells them for OpenStep).
public enum XcodeProjectWriter {
    /// Xcode's text of `value`; `projectName` names the project in `Build configuration list for PBXProject "…"`.
    public static func write(_ value: PlistValue, projectName: String?, lossy: Bool = false) throws -> [UInt8] {
        if !lossy { try checkRepresentable(value, path: []) }
        let comments = XcodeComments(value, projectName: projectName)
        var w = XcodeValueWriter(style: .xcode, comments: comments, flatIsas: flatIsas(of: value))
        w.out.reserveCapacity(1 << 16)
        w.out += Array("// !$*UTF8*$!\n".utf8)
        guard case .dictionary(let root) = value else {
            w.appendValue(value, indent: [], references: false)
            w.out.append(0x0A)
            return w.out
        }
        w.out += Array("{\n".utf8)
        for (key, child) in XcodeValueWriter.sorted(root) {
            w.out.append(0x09)
            XcodeQuoting.append(key, to: &w.out)
            w.out += Array(" = ".utf8)
            if key == "objects", case .dictionary(let objects) = child, objects.values.allSatisfy({ $0.dictionaryValue != nil }) {
                w.appendObjects(objects)
            } else {
                w.appendValue(child, indent: [0x09], references: key == "rootObject")
            }
            w.out += Array(";\n".utf8)
        }
        w.out += Array("}\n".utf8)
        return w.out
    }

    /// The isas written on one line for this project.
    static func flatIsas(of value: PlistValue) -> Set<String> {
        var flat: Set<String> = ["PBXBuildFile", "PBXFileReference"]
        let version = value["objectVersion"]?.stringValue.flatMap { Int($0) } ?? 0
        if version >= 70 && version < 77 { flat.insert("PBXFileSystemSynchronizedRootGroup") }
        return flat
    }

    static func checkRepresentable(_ value: PlistValue, path: [String]) throws {
        switch value {
        case .string: return
        case .array(let a): for (i, v) in a.enumerated() { try checkRepresentable(v, path: path + [String(i)]) }
        case .dictionary(let d): for (k, v) in d { try checkRepresentable(v, path: path + [k]) }
        default:
            throw PlistError(.unrepresentable, "Xcode project text holds only strings, arrays and dictionaries, not \(value.typeNameWithArticle)",
                             format: .openStep, keyPath: KeyPath(components: path))
        }
    }
}

/// The layout engine of `XcodeProjectWriter`, also used for the text of values an edit puts into a document (then
/// with `style: .openStep` for Core Foundation's quoting, and no comments).
struct XcodeValueWriter {
    enum Style { case xcode, openStep }
    let style: Style
    var comments: XcodeComments?
    var flatIsas: Set<String> = []
    var out: [UInt8] = []
    var newline: [UInt8] = [0x0A]

    init(style: Style, comments: XcodeComments? = nil, flatIsas: Set<String> = []) {
        self.style = style
        self.comments = comments
        self.flatIsas = flatIsas
    }

    /// The dictionary's entries in Xcode's key order.
    static func sorted(_ d: PlistDictionary) -> [(String, PlistValue)] {
        d.map { ($0.key, $0.value) }.sorted { XcodeKeyOrder.less($0.0, $1.0) }
    }

    mutating func appendString(_ s: String) {
        switch style {
        case .xcode:
            XcodeQuoting.append(s, to: &out)
        case .openStep:
            var o = OpenStepTextOutput(capacity: s.utf8.count * 2 + 8)
            OpenStepStringQuoting.append(s, to: &o, alwaysQuote: false)
            out += o.finish()
        }
    }

    /// A string that may be an object's ID, with its ` /* comment */` when `references` allows one.
    mutating func appendReference(_ s: String, references: Bool) {
        appendString(s)
        if references, let text = comments?[s] { appendComment(text) }
    }

    mutating func appendComment(_ text: String) {
        out += Array(" /* ".utf8)
        out += Array(text.utf8)
        out += Array(" */".utf8)
    }

    mutating func appendScalar(_ v: PlistValue, references: Bool) {
        switch v {
        case .string(let s): appendReference(s, references: references)
        case .data(let d):
            out.append(0x3C)
            let hex = Array("0123456789abcdef".utf8)
            for (i, b) in d.enumerated() {
                if i > 0 && i % 4 == 0 { out.append(0x20) }
                out += [hex[Int(b >> 4)], hex[Int(b & 15)]]
            }
            out.append(0x3E)
        default: appendString(LossySpelling.text(v))
        }
    }

    /// Whether references below `key` get comments (not in `attributes`, not `remoteGlobalIDString`).
    static func childReferences(_ key: String, _ references: Bool) -> Bool {
        references && key != "attributes" && key != "remoteGlobalIDString"
    }

    /// `v` in flat form: `{k = v; }`, `(a, b, )`, `{}`, `()`.
    mutating func appendFlat(_ v: PlistValue, references: Bool = false) {
        switch v {
        case .dictionary(let d):
            out.append(0x7B)
            for (k, child) in style == .xcode ? Self.sorted(d) : d.map({ ($0.key, $0.value) }) {
                appendString(k)
                out += Array(" = ".utf8)
                appendFlat(child, references: Self.childReferences(k, references))
                out += Array("; ".utf8)
            }
            out.append(0x7D)
        case .array(let a):
            out.append(0x28)
            for child in a {
                appendFlat(child, references: references)
                out += Array(", ".utf8)
            }
            out.append(0x29)
        default:
            appendScalar(v, references: references)
        }
    }

    /// `v` in multi-line form, its opener on the current line and its closer at `indent`.
    mutating func appendValue(_ v: PlistValue, indent: [UInt8], references: Bool) {
        switch v {
        case .dictionary(let d):
            if let isa = d["isa"]?.stringValue, flatIsas.contains(isa) {
                appendFlat(v, references: references)
                return
            }
            out.append(0x7B)
            out += newline
            let inner = indent + [0x09]
            for (k, child) in style == .xcode ? Self.sorted(d) : d.map({ ($0.key, $0.value) }) {
                out += inner
                appendString(k)
                out += Array(" = ".utf8)
                appendValue(child, indent: inner, references: Self.childReferences(k, references))
                out.append(0x3B)
                out += newline
            }
            out += indent
            out.append(0x7D)
        case .array(let a):
            out.append(0x28)
            out += newline
            let inner = indent + [0x09]
            for child in a {
                out += inner
                appendValue(child, indent: inner, references: references)
                out.append(0x2C)
                out += newline
            }
            out += indent
            out.append(0x29)
        default:
            appendScalar(v, references: references)
        }
    }

    /// The `objects` dictionary: sections by isa, objects by ID.
    mutating func appendObjects(_ objects: PlistDictionary) {
        out += Array("{\n".utf8)
        var byIsa: [String: [(String, PlistValue)]] = [:]
        for (id, object) in objects { byIsa[object["isa"]?.stringValue ?? "", default: []].append((id, object)) }
        for isa in byIsa.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            out += Array("\n/* Begin \(isa) section */\n".utf8)
            for (id, object) in byIsa[isa, default: []].sorted(by: { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }) {
                appendObject(id, object)
            }
            out += Array("/* End \(isa) section */\n".utf8)
        }
        out += Array("\t}".utf8)
    }

    /// One object's line(s) in `objects`: `⇥⇥ID /* c */ = {…};⏎`.
    mutating func appendObject(_ id: String, _ object: PlistValue) {
        out += [0x09, 0x09]
        appendReference(id, references: true)
        out += Array(" = ".utf8)
        appendValue(object, indent: [0x09, 0x09], references: true)
        out.append(0x3B)
        out += newline
    }
}

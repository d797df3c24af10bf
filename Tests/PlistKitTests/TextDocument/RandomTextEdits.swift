import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// Seeded random edits of a text document, each checked against the plain tree edit (`PlistValue+Editing`) and for
/// locality: the lines that change lie within the edited entry (set, remove, rename) or its container (insert),
/// except in a project where the edit changed a reference comment (those lines are the comment's own).
struct RandomTextEdits {
    var rng: SeededGenerator
    let xmlScalars: Bool
    var commentEdits = 0
    var applied = 0

    init(seed: UInt64, xmlScalars: Bool) {
        rng = SeededGenerator(seed: seed)
        self.xmlScalars = xmlScalars
    }

    static let strings: [String] = [
        "X", "new value", "a-b", "", "$(inherited)", "tab\tand\nnewline", "quote \" and \\", "é ü 😀", "___x", "a//b",
        "ID_00", "1.0", "YES",
    ]

    mutating func pick<T>(_ a: [T]) -> T { a[Int.random(in: 0..<a.count, using: &rng)] }

    mutating func newValue() -> PlistValue {
        switch Int.random(in: 0..<10, using: &rng) {
        case 0: return ["k": "v", "list": ["a", "b"]]
        case 1: return []
        case 2: return [:]
        case 3: return ["one", "two"]
        case 4 where xmlScalars: return .integer(PlistInteger(Int64.random(in: -5...500, using: &rng)))
        case 5 where xmlScalars: return .bool(true)
        default: return .string(pick(Self.strings))
        }
    }

    /// Paths of `value` (at most `limit`), with whether each is a container.
    static func paths(_ value: PlistValue, limit: Int = 3000) -> [(KeyPath, PlistValue)] {
        var out: [(KeyPath, PlistValue)] = []
        func walk(_ v: PlistValue, _ p: [String]) {
            guard out.count < limit else { return }
            out.append((KeyPath(components: p), v))
            switch v {
            case .dictionary(let d): for (k, c) in d { walk(c, p + [k]) }
            case .array(let a): for (i, c) in a.enumerated() { walk(c, p + [String(i)]) }
            default: break
            }
        }
        walk(value, [])
        return out
    }

    /// The bytes of the whole lines that hold the entries at `nodes` (all entries of a repeated key).
    static func lines(of nodes: [Int], in doc: PlistTextDocument) -> Range<Int> {
        doc.withText { t in
            let spans = nodes.map { doc.span($0, in: t) }
            let start = spans.map(\.start).min() ?? 0, end = spans.map(\.end).max() ?? 0
            return t.lineStart(start)..<t.afterLineBreak(t.lineEnd(max(start, end - 1)))
        }
    }

    /// An object's lines widened over its section's Begin and End lines and the empty line before them, which go
    /// when the object is the section's last (`xcode-projects.md` §7 rule 8).
    static func widenedOverSection(_ r: Range<Int>, in doc: PlistTextDocument) -> Range<Int> {
        let lines = TextDiff.lines(doc.bytes)
        let first = TextDiff.line(of: r.lowerBound, in: doc.bytes) - 1, last = TextDiff.line(of: r.upperBound - 1, in: doc.bytes) - 1
        guard first >= 2, last + 1 < lines.count, lines[first - 1].hasPrefix("/* Begin "), lines[last + 1].hasPrefix("/* End "),
              lines[first - 2].isEmpty else { return r }
        let lower = r.lowerBound - lines[first - 1].utf8.count - 2
        return lower..<(r.upperBound + lines[last + 1].utf8.count + 1)
    }

    /// The entries that stand where `path` names one: every entry of a repeated key.
    static func entries(_ path: KeyPath, _ node: Int, in doc: PlistTextDocument) -> [Int] {
        guard let last = path.components.last, doc.nodes[node].keyStart >= 0 else { return [node] }
        return doc.entries(of: Int(doc.nodes[node].parent), key: last)
    }

    /// One random edit; returns false when the chosen edit does not apply to the tree (and was not made).
    mutating func step(_ doc: inout PlistTextDocument, label: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let all = Self.paths(doc.value).filter { !$0.0.components.isEmpty }
        let containers = Self.paths(doc.value).filter { $0.1.arrayValue != nil || $0.1.dictionaryValue != nil }
        guard !all.isEmpty || !containers.isEmpty else { return }
        let before = doc
        var expected: PlistValue = .bool(false)
        var region: Range<Int> = 0..<0
        let op = Int.random(in: 0..<5, using: &rng)
        var description = ""
        do {
            switch op {
            case 0, 1:  // set an existing value
                guard !all.isEmpty else { return }
                let (path, _) = pick(all)
                guard let node = doc.node(at: path.components[...]) else { return }
                let v = op == 0 ? PlistValue.string(pick(Self.strings)) : newValue()
                description = "replace \(path) with \(v)"
                expected = try doc.value.replacing(v, at: path)
                region = Self.lines(of: Self.entries(path, node, in: doc), in: doc)
                try doc.replace(v, at: path)
            case 2:  // insert a key or an element
                let (path, container) = pick(containers)
                guard let node = doc.node(at: path.components[...]) else { return }
                let v = newValue()
                let child: KeyPath
                if let a = container.arrayValue {
                    child = path.appending(Int.random(in: 0...a.count, using: &rng))
                } else {
                    child = path.appending("NEW_\(Int.random(in: 0..<1000, using: &rng))")
                    if container[child.components.last ?? ""] != nil { return }
                }
                description = "insert \(v) at \(child)"
                expected = try doc.value.inserting(v, at: child)
                region = doc.withText { t in t.lineStart(Int(doc.nodes[node].start))..<t.afterLineBreak(t.lineEnd(Int(doc.nodes[node].end))) }
                try doc.insert(v, at: child)
            case 3:  // remove
                guard !all.isEmpty else { return }
                let (path, _) = pick(all)
                guard let node = doc.node(at: path.components[...]) else { return }
                description = "remove \(path)"
                expected = try doc.value.removing(at: path)
                region = Self.lines(of: Self.entries(path, node, in: doc), in: doc)
                if doc.layout == .xcodeProject, path.components.count == 2, path.components[0] == "objects" {
                    region = Self.widenedOverSection(region, in: doc)
                }
                try doc.remove(at: path)
            default:  // rename a key
                let dicts = containers.filter { ($0.1.dictionaryValue?.count ?? 0) > 0 }
                guard !dicts.isEmpty else { return }
                let (path, container) = pick(dicts)
                let d = container.dictionaryValue ?? [:]
                let key = d.keys[Int.random(in: 0..<d.count, using: &rng)]
                let newKey = "RENAMED_\(Int.random(in: 0..<1000, using: &rng))"
                guard d[newKey] == nil, let node = doc.node(at: path.appending(key).components[...]) else { return }
                description = "rename \(path.appending(key)) to \(newKey)"
                var renamed = PlistDictionary()
                for (i, e) in d.enumerated() { renamed.insert(e.value, forKey: e.key.unicodeScalars.elementsEqual(key.unicodeScalars) ? newKey : e.key, at: i) }
                expected = path.components.isEmpty ? .dictionary(renamed) : try doc.value.replacing(.dictionary(renamed), at: path)
                region = Self.lines(of: Self.entries(path.appending(key), node, in: doc), in: doc)
                try doc.renameKey(at: path.appending(key), to: newKey)
            }
        } catch let error as PlistError where error.kind == .keyPath || error.kind == .duplicateKey {
            return
        } catch {
            #expect(doc.bytes == before.bytes, "\(label): \(description): a failed edit changed the text", sourceLocation: sourceLocation)
            // A refusal is right only when the format cannot hold the edited tree (a dictionary left with just
            // `CF$UID` reads as a UID): the tree written whole does not read back to itself either.
            let format: PlistFormat = doc.format == .xml ? .xml : .openStep
            let holds = (try? PropertyList.read(try PropertyList.writeBytes(expected, format: format)).value) == expected
            if holds { Issue.record("\(label): \(description): \(error)", sourceLocation: sourceLocation) }
            doc = before
            return
        }
        applied += 1
        #expect(doc.value == expected, "\(label): \(description)", sourceLocation: sourceLocation)
        #expect((try? PropertyList.read(doc.bytes).value) == expected, "\(label): \(description)", sourceLocation: sourceLocation)
        if doc.layout == .xcodeProject {
            let old = XcodeComments(before.value, projectName: before.projectName)
            let new = XcodeComments(doc.value, projectName: doc.projectName)
            if old.byID != new.byID {
                commentEdits += 1
                // Every object whose comment the edit changed has the new one at its key.
                let objects = doc.value["objects"]?.dictionaryValue
                for (id, comment) in old.byID where new[id] != comment && objects?[id] != nil {
                    let quoted = String(decoding: XcodeQuoting.quoted(id), as: UTF8.self)
                    guard TextBytes.find(Array("\t\t\(quoted) /* \(comment) */ = ".utf8), in: before.bytes) != nil else { continue }
                    let now = new[id].map { "\t\t\(quoted) /* \($0) */ = " } ?? "\t\t\(quoted) = "
                    #expect(TextBytes.find(Array(now.utf8), in: doc.bytes) != nil,
                            "\(label): \(description): \(id)'s comment is not \(new[id] ?? "gone")", sourceLocation: sourceLocation)
                }
                return
            }
        }
        // Every byte outside the lines of the entry (or container) is unchanged.
        let old = before.bytes, new = doc.bytes
        let kept = new.count >= region.lowerBound + (old.count - region.upperBound)
            && new.starts(with: old[..<region.lowerBound]) && new.suffix(old.count - region.upperBound).elementsEqual(old[region.upperBound...])
        #expect(kept, "\(label): \(description): bytes outside \(region) changed", sourceLocation: sourceLocation)
    }
}

import Foundation
import Testing
@testable import PlistKit

/// Insert, replace, remove and lookup at key paths. Expected results come from Apple's `plutil` (the Swift
/// toolchain's), run on the same document and edit; where that tool is wrong (replacing an array element inserts
/// instead) the expectation is stated from its documentation instead.
@Suite struct PlistValueEditingTests {
    static let document: PlistValue = [
        "a": 1,
        "s": "str",
        "arr": [1, 2, ["x"]],
        "d": ["k": "v", "n": ["deep": true]],
        "e": [] as PlistValue,
    ]

    enum Operation: CustomStringConvertible, Sendable {
        case insert(String, append: Bool)
        case replace(String)
        case remove(String)

        var description: String {
            switch self {
            case .insert(let p, let a): return "-insert \(p)\(a ? " -append" : "")"
            case .replace(let p): return "-replace \(p)"
            case .remove(let p): return "-remove \(p)"
            }
        }
        var arguments: [String] {
            switch self {
            case .insert(let p, let a): return ["-insert", p, "-string", "new"] + (a ? ["-append"] : [])
            case .replace(let p): return ["-replace", p, "-string", "new"]
            case .remove(let p): return ["-remove", p]
            }
        }
        func apply(to value: inout PlistValue) throws {
            switch self {
            case .insert(let p, let a): try value.insert("new", at: KeyPath(p), appending: a)
            case .replace(let p): try value.replace("new", at: KeyPath(p))
            case .remove(let p): try value.remove(at: KeyPath(p))
            }
        }
    }

    static let operations: [Operation] = [
        .insert("n", append: false), .insert("a", append: false), .insert("arr.0", append: false),
        .insert("arr.1", append: false), .insert("arr.3", append: false), .insert("arr.5", append: false),
        .insert("arr", append: true), .insert("e", append: true), .insert("d", append: true),
        .insert("x.y", append: false), .insert("a.b", append: false), .insert("arr.q", append: false),
        .insert("arr.0.x", append: false), .insert("d.n.new", append: false), .insert("d.n.deep", append: false),
        .insert("arr.2.1", append: false), .insert("arr.2.0", append: false), .insert("arr.2", append: true),
        .insert("arr.0", append: true), .insert("d.k", append: true), .insert("nope", append: true),
        .insert("arr.2.5", append: false), .insert("d.n.deep.x", append: false),
        .replace("a"), .replace("d.k"), .replace("d.new"), .replace("x.y"), .replace("d.n.deep"), .replace("arr.3"),
        .replace("arr.9"), .replace("arr.q"), .replace("s.x"),
        .remove("arr.1"), .remove("nope"), .remove("a.b"), .remove("arr.7"), .remove("d.n.deep"), .remove("d.n"),
        .remove("arr.2.0"), .remove("arr.x"), .remove("x.y.z"), .remove("s"),
    ]

    @Test(.enabled(if: ApplePlutil.path != nil, ApplePlutil.missingReason), arguments: operations)
    func matchesApplePlutil(_ operation: Operation) throws {
        let dir = try ApplePlutil.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try ApplePlutil.writeTemporary(Self.document, in: dir)
        let apple = try ApplePlutil.run(operation.arguments + ["-o", "-", file])

        var ours = Self.document
        do {
            try operation.apply(to: &ours)
            #expect(apple.status == 0, "Apple failed: \(apple.err)")
            if apple.status == 0 { #expect(try ApplePlutil.parse(apple.out) == ours) }
        } catch let error as PlistError {
            #expect(apple.status == 1)
            #expect(apple.err == "\(file): \(error.message)\n")
            #expect(error.keyPath == KeyPath(operation.arguments[1]))
        }
    }

    /// Apple's Linux tool inserts when asked to replace an array element (`-replace arr.0` on `[1,2]` gives
    /// `["new",1,2]`); its help says -replace "will overwrite an existing value", which is what PlistKit does.
    @Test func replaceOverwritesAnArrayElement() throws {
        var value: PlistValue = ["arr": [1, 2]]
        try value.replace("new", at: "arr.0")
        #expect(value == ["arr": ["new", 2]])
        try value.replace("end", at: "arr.2")
        #expect(value == ["arr": ["new", 2, "end"]])
        #expect(throws: PlistError.self) { try value.replace("x", at: "arr.4") }
    }

    @Test func appendingPastTheEndIsAnErrorNotACrash() {
        // Apple's tool indexes the array unchecked here and traps.
        var value: PlistValue = ["arr": [[1]]]
        #expect { try value.insert(2, at: "arr.3", appending: true) } throws: { error in
            (error as? PlistError)?.message == "Index 3 out of bounds in array at key path arr.3"
        }
        #expect(value == ["arr": [[1]]])
    }

    @Test func editsAtTheRootAreRefused() {
        var value: PlistValue = ["a": 1]
        #expect(throws: PlistError.self) { try value.insert(1, at: KeyPath("")) }
        #expect(throws: PlistError.self) { try value.replace(1, at: KeyPath("")) }
        #expect(throws: PlistError.self) { try value.remove(at: KeyPath("")) }
        #expect(value == ["a": 1])
    }

    @Test func lookupAndEscapedDots() throws {
        var value: PlistValue = ["a.b": ["c": 1], "a": ["b": 2]]
        #expect(try value.value(at: #"a\.b.c"#) == 1)
        #expect(try value.value(at: "a.b") == 2)
        #expect(try value.value(at: KeyPath("")) == value)
        #expect { try value.value(at: "a.c") } throws: { error in
            let e = error as? PlistError
            return e?.kind == .keyPath && e?.message == "No value at that key path or invalid key path: a.c"
        }
        try value.insert("x", at: #"a\.b.d"#)
        #expect(value[path: KeyPath(components: ["a.b", "d"])] == "x")
    }

    @Test func failedEditsLeaveTheValueUnchanged() {
        var value = Self.document
        for operation in Self.operations {
            var copy = value
            if (try? operation.apply(to: &copy)) == nil { #expect(copy == value, "\(operation)") }
        }
        _ = try? value.remove(at: "nope")
        #expect(value == Self.document)
    }

    @Test func dictionaryKeysKeepTheirOrderAndNewOnesGoLast() throws {
        var value: PlistValue = ["z": 1, "a": 2]
        try value.insert(3, at: "m")
        try value.replace(4, at: "z")
        #expect(value.dictionaryValue?.keys == ["z", "a", "m"])
        try value.remove(at: "a")
        #expect(value.dictionaryValue?.keys == ["z", "m"])
    }

    @Test func nonCopyingFormsReturnEditedCopies() throws {
        let value: PlistValue = ["arr": [1]]
        #expect(try value.inserting(0, at: "arr.0") == ["arr": [0, 1]])
        #expect(try value.replacing(5, at: "arr.0") == ["arr": [5]])
        #expect(try value.removing(at: "arr.0") == ["arr": []])
        #expect(value == ["arr": [1]])
    }
}

/// A path into a property list, in Apple `plutil`'s syntax: components separated by `.`; a numeric component
/// indexes an array (and is an ordinary key in a dictionary).
///
/// Extension: a backslash escapes the next character, so `a\.b` is the single key `a.b` and `a\\b` is `a\b`.
public struct KeyPath: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The components, unescaped.
    public var components: [String]

    /// A path from already-split components.
    public init(components: [String]) { self.components = components }

    /// Parses `plutil` syntax (see the type's documentation for escapes). The empty string is the root.
    public init(_ text: String) {
        var components: [String] = []
        var current = ""
        var escaping = false
        for scalar in text.unicodeScalars {
            if escaping {
                current.unicodeScalars.append(scalar)
                escaping = false
            } else if scalar == "\\" {
                escaping = true
            } else if scalar == "." {
                components.append(current)
                current = ""
            } else {
                current.unicodeScalars.append(scalar)
            }
        }
        if escaping { current.unicodeScalars.append("\\") }
        if !text.isEmpty { components.append(current) }
        self.components = components
    }

    public init(stringLiteral value: String) { self.init(value) }

    /// The path in `plutil` syntax, with `.` and `\` inside components escaped.
    public var description: String {
        components.map { c in
            var out = ""
            for s in c.unicodeScalars {
                if s == "." || s == "\\" { out.unicodeScalars.append("\\") }
                out.unicodeScalars.append(s)
            }
            return out
        }.joined(separator: ".")
    }

    /// This path with one more component.
    public func appending(_ component: String) -> KeyPath { KeyPath(components: components + [component]) }
    /// This path with an array index appended.
    public func appending(_ index: Int) -> KeyPath { appending(String(index)) }

    /// A component as an array index: decimal digits with an optional `+` (Apple's tool reads `arr.+1` as 1).
    static func arrayIndex(_ component: String) -> Int? {
        guard let n = signedIndex(component), n >= 0 else { return nil }
        return n
    }

    /// A component as a signed decimal number (`-1` is a number, though no index), or nil for anything else: `Int`'s
    /// own parsing, which takes an optional sign and digits only.
    static func signedIndex(_ component: String) -> Int? { Int(component) }
}

extension PlistValue {
    /// The value at `path`, or `nil` when a component is missing, an index is out of range, or a scalar is in the way.
    public subscript(path path: KeyPath) -> PlistValue? {
        var current = self
        for c in path.components {
            switch current {
            case .dictionary(let d):
                guard let next = d[c] else { return nil }
                current = next
            case .array(let a):
                guard let i = KeyPath.arrayIndex(c), a.indices.contains(i) else { return nil }
                current = a[i]
            default:
                return nil
            }
        }
        return current
    }
}

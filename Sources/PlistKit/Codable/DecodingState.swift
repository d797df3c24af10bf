import FoundationEssentials

/// The `Decoder` behind `PlistDecoder`: one instance per `decode` call, reused for every nested value. It reads
/// straight from the `PlistValue` tree; `current` is the value the type being decoded now gets.
final class PlistDecodingState: Decoder {
    var current: PlistValue
    var path = CodingPathStack()
    let userInfo: [CodingUserInfoKey: Any]
    /// Scalars may be strings that spell a number, Boolean or date (OpenStep and `.strings` have only strings).
    let scalarsFromStrings: Bool
    /// Where the next key lookup in the innermost keyed container starts: fields are usually read in the order they
    /// were written, so this usually finds the key at the first probe.
    var keyHint = 0

    init(value: PlistValue, userInfo: [CodingUserInfoKey: Any], scalarsFromStrings: Bool, path: [any CodingKey] = []) {
        current = value
        self.userInfo = userInfo
        self.scalarsFromStrings = scalarsFromStrings
        if !path.isEmpty { _ = self.path.replace(with: path) }
    }

    var codingPath: [any CodingKey] { path.codingPath(depth: path.depth) }

    // MARK: Decoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .dictionary(let d) = current else {
            throw mismatch(expected: [String: Any].self, expectedName: "a dictionary", found: current, at: nil)
        }
        keyHint = 0
        return KeyedDecodingContainer(PlistKeyedDecodingContainer<Key>(state: self, dictionary: d, depth: path.depth, detachedPath: nil))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let a) = current else {
            throw mismatch(expected: [Any].self, expectedName: "an array", found: current, at: nil)
        }
        return PlistUnkeyedDecodingContainer(state: self, elements: a, depth: path.depth, detachedPath: nil)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        PlistSingleValueDecodingContainer(state: self, value: current, depth: path.depth, detachedPath: nil)
    }

    // MARK: Levels

    /// Decodes a `T` from `value`, found at `element` below a container at `depth` (or with `detachedPath`).
    @inline(__always) func decodeNested<T: Decodable>(
        _ type: T.Type, from value: PlistValue, at element: CodingPathElement?, depth: Int, detachedPath: [any CodingKey]?
    ) throws -> T {
        if let detachedPath {
            let saved = path.replace(with: detachedPath)
            defer { path.elements = saved }
            return try decodeLevel(type, from: value, at: element)
        }
        if path.depth != depth, depth <= path.depth {
            // A container used after the decoder moved on: decode at the container's own path.
            let saved = path.elements
            path.elements.removeSubrange(depth...)
            defer { path.elements = saved }
            return try decodeLevel(type, from: value, at: element)
        }
        return try decodeLevel(type, from: value, at: element)
    }

    /// Decodes a `T` from `value`; `element` (if any) is pushed on the path for the duration.
    func decodeLevel<T: Decodable>(_ type: T.Type, from value: PlistValue, at element: CodingPathElement?) throws -> T {
        if let v = try specialDecode(type, from: value, at: element) { return v }
        let savedValue = current
        let savedHint = keyHint
        current = value
        if let element { path.push(element) }
        defer {
            if element != nil { path.pop() }
            current = savedValue
            keyHint = savedHint
        }
        return try T(from: self)
    }

    /// The coding path with `element` appended, for errors.
    func codingPath(appending element: CodingPathElement?) -> [any CodingKey] {
        var p = codingPath
        if let element { p.append(element.codingKey) }
        return p
    }
}

import FoundationEssentials

// The containers hold the plist value they read from (a reference-counted copy, no parsing) and where they sit on
// the decoder's path: `depth` into its stack, or a `detachedPath` of their own for `nestedContainer` results.

/// Runs `body` with the decoder's path set to `detachedPath` when there is one, so errors name the right path.
@inline(__always) private func atPath<R>(
    _ state: PlistDecodingState, _ detachedPath: [any CodingKey]?, _ body: () throws -> R
) throws -> R {
    guard let detachedPath else { return try body() }
    let saved = state.path.replace(with: detachedPath)
    defer { state.path.elements = saved }
    return try body()
}

struct PlistKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    // Only one reference-counted field: the standard library's box copies this struct on every call.
    let state: PlistDecodingState
    let frame: Int32
    let id: UInt32
    let depth: Int32

    private var detachedPath: [any CodingKey]? { state.keyedFrame(frame, id)?.detachedPath }
    private var dictionary: PlistDictionary { state.keyedFrame(frame, id)?.dictionary ?? PlistDictionary() }

    var codingPath: [any CodingKey] {
        detachedPath ?? state.path.codingPath(depth: min(max(0, Int(depth)), state.path.depth))
    }

    var allKeys: [Key] { dictionary.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { dictionary.index(forKey: key.stringValue) != nil }

    /// The value for `key`, or nil when it is absent.
    @inline(__always) private func find(_ key: Key) throws -> PlistValue? {
        try state.lookup(key.stringValue, frame: frame, id: id)
    }

    @inline(__always) private func require(_ key: Key) throws -> PlistValue {
        if let v = try find(key) { return v }
        throw keyNotFound(key)
    }

    /// The value for `key`, or nil when it is absent or Foundation's `$null`.
    @inline(__always) private func present(_ key: Key) throws -> PlistValue? {
        guard let v = try find(key) else { return nil }
        if case .string(let s) = v, s == plistNullString { return nil }
        return v
    }

    private func keyNotFound(_ key: Key) -> DecodingError { PlistKit.keyNotFound(key, at: codingPath, keys: dictionary.keys) }

    /// `body` gets the value and how to make its path element, which only an error needs (see `decodeLevel`).
    @inline(__always) private func scalar<R>(_ key: Key, _ body: (PlistValue, () -> CodingPathElement) throws -> R) throws -> R {
        let v = try require(key)
        if depth < 0 { return try atPath(state, detachedPath) { try body(v, { .key(key) }) } }
        return try body(v, { .key(key) })
    }

    @inline(__always) private func scalarIfPresent<R>(_ key: Key, _ body: (PlistValue, () -> CodingPathElement) throws -> R) throws -> R? {
        guard let v = try present(key) else { return nil }
        if depth < 0 { return try atPath(state, detachedPath) { try body(v, { .key(key) }) } }
        return try body(v, { .key(key) })
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .string(let s) = try require(key), s == plistNullString { return true }
        return false
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try scalar(key) { try state.unboxBool($0, at: $1()) } }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try scalar(key) { try state.unboxString($0, at: $1()) } }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try scalar(key) { try state.unboxFloat($0, type, at: $1()) } }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try scalar(key) { try state.unboxFloat($0, type, at: $1()) } }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try scalar(key) { try state.unboxInteger($0, type, at: $1()) } }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try scalar(key) { try state.unboxInteger($0, type, at: $1()) } }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try scalar(key) { try state.unboxInteger($0, type, at: $1()) } }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try scalar(key) { try state.unboxInteger($0, type, at: $1()) } }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try scalar(key) { try state.unboxInteger($0, type, at: $1()) } }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try scalar(key) { try state.unboxInteger($0, type, at: $1()) } }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try scalar(key) { try state.unboxInteger($0, type, at: $1()) } }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try scalar(key) { try state.unboxInteger($0, type, at: $1()) } }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try scalar(key) { try state.unboxInteger($0, type, at: $1()) } }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try scalar(key) { try state.unboxInteger($0, type, at: $1()) } }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let v = try require(key)
        return try state.decodeNested(type, from: v, at: .key(key), depth: Int(depth), detachedPath: depth < 0 ? detachedPath : nil)
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try scalarIfPresent(key) { try state.unboxBool($0, at: $1()) } }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try scalarIfPresent(key) { try state.unboxString($0, at: $1()) } }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try scalarIfPresent(key) { try state.unboxFloat($0, type, at: $1()) } }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try scalarIfPresent(key) { try state.unboxFloat($0, type, at: $1()) } }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try scalarIfPresent(key) { try state.unboxInteger($0, type, at: $1()) } }
    func decodeIfPresent(_ type: Int8.Type, forKey key: Key) throws -> Int8? { try scalarIfPresent(key) { try state.unboxInteger($0, type, at: $1()) } }
    func decodeIfPresent(_ type: Int16.Type, forKey key: Key) throws -> Int16? { try scalarIfPresent(key) { try state.unboxInteger($0, type, at: $1()) } }
    func decodeIfPresent(_ type: Int32.Type, forKey key: Key) throws -> Int32? { try scalarIfPresent(key) { try state.unboxInteger($0, type, at: $1()) } }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try scalarIfPresent(key) { try state.unboxInteger($0, type, at: $1()) } }
    func decodeIfPresent(_ type: UInt.Type, forKey key: Key) throws -> UInt? { try scalarIfPresent(key) { try state.unboxInteger($0, type, at: $1()) } }
    func decodeIfPresent(_ type: UInt8.Type, forKey key: Key) throws -> UInt8? { try scalarIfPresent(key) { try state.unboxInteger($0, type, at: $1()) } }
    func decodeIfPresent(_ type: UInt16.Type, forKey key: Key) throws -> UInt16? { try scalarIfPresent(key) { try state.unboxInteger($0, type, at: $1()) } }
    func decodeIfPresent(_ type: UInt32.Type, forKey key: Key) throws -> UInt32? { try scalarIfPresent(key) { try state.unboxInteger($0, type, at: $1()) } }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try scalarIfPresent(key) { try state.unboxInteger($0, type, at: $1()) } }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let v = try present(key) else { return nil }
        return try state.decodeNested(type, from: v, at: .key(key), depth: Int(depth), detachedPath: depth < 0 ? detachedPath : nil)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let v = try require(key)
        let path = codingPath + [key]
        guard case .dictionary(let d) = v else {
            throw try atPath(state, path) { state.mismatch(expected: [String: Any].self, expectedName: "a dictionary", found: v, at: nil) }
        }
        return state.keyedContainer(NestedKey.self, d, detachedPath: path)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let v = try require(key)
        let path = codingPath + [key]
        guard case .array(let a) = v else {
            throw try atPath(state, path) { state.mismatch(expected: [Any].self, expectedName: "an array", found: v, at: nil) }
        }
        return PlistUnkeyedDecodingContainer(state: state, elements: a, depth: -1, detachedPath: path)
    }

    func superDecoder() throws -> any Decoder { makeSuperDecoder(PlistCodingKey.superKey.stringValue, PlistCodingKey.superKey) }

    func superDecoder(forKey key: Key) throws -> any Decoder { makeSuperDecoder(key.stringValue, key) }

    private func makeSuperDecoder(_ name: String, _ key: any CodingKey) -> any Decoder {
        // An absent key gives an empty dictionary, so a superclass with only optional fields still decodes.
        let v = dictionary[name] ?? .dictionary(PlistDictionary())
        return PlistDecodingState(
            value: v, userInfo: state.userInfo, scalarsFromStrings: state.scalarsFromStrings, path: codingPath + [key])
    }
}

struct PlistUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let state: PlistDecodingState
    let elements: [PlistValue]
    let depth: Int
    let detachedPath: [any CodingKey]?
    private(set) var currentIndex = 0

    init(state: PlistDecodingState, elements: [PlistValue], depth: Int, detachedPath: [any CodingKey]?) {
        self.state = state
        self.elements = elements
        self.depth = depth
        self.detachedPath = detachedPath
    }

    var codingPath: [any CodingKey] { detachedPath ?? state.path.codingPath(depth: min(depth, state.path.depth)) }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    @inline(__always) private func next(_ type: Any.Type) throws -> PlistValue {
        guard currentIndex < elements.count else {
            throw pastTheEnd(type, at: codingPath + [PlistCodingKey(index: currentIndex)], count: elements.count)
        }
        return elements[currentIndex]
    }

    @inline(__always) private mutating func scalar<R>(
        _ type: R.Type, _ body: (PlistDecodingState, PlistValue, CodingPathElement) throws -> R
    ) throws -> R {
        let v = try next(type)
        let i = currentIndex
        let st = state
        let r = try atPath(st, detachedPath) { try body(st, v, .index(i)) }
        currentIndex += 1
        return r
    }

    mutating func decodeNil() throws -> Bool {
        if case .string(let s) = try next(Never.self), s == plistNullString {
            currentIndex += 1
            return true
        }
        return false
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try scalar(type) { s, v, e in try s.unboxBool(v, at: e) } }
    mutating func decode(_ type: String.Type) throws -> String { try scalar(type) { s, v, e in try s.unboxString(v, at: e) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try scalar(type) { s, v, e in try s.unboxFloat(v, type, at: e) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try scalar(type) { s, v, e in try s.unboxFloat(v, type, at: e) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try scalar(type) { s, v, e in try s.unboxInteger(v, type, at: e) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try scalar(type) { s, v, e in try s.unboxInteger(v, type, at: e) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try scalar(type) { s, v, e in try s.unboxInteger(v, type, at: e) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try scalar(type) { s, v, e in try s.unboxInteger(v, type, at: e) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try scalar(type) { s, v, e in try s.unboxInteger(v, type, at: e) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try scalar(type) { s, v, e in try s.unboxInteger(v, type, at: e) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try scalar(type) { s, v, e in try s.unboxInteger(v, type, at: e) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try scalar(type) { s, v, e in try s.unboxInteger(v, type, at: e) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try scalar(type) { s, v, e in try s.unboxInteger(v, type, at: e) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try scalar(type) { s, v, e in try s.unboxInteger(v, type, at: e) } }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let v = try next(type)
        let r = try state.decodeNested(type, from: v, at: .index(currentIndex), depth: depth, detachedPath: detachedPath)
        currentIndex += 1
        return r
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let v = try next([String: Any].self)
        let path = codingPath + [PlistCodingKey(index: currentIndex)]
        guard case .dictionary(let d) = v else {
            throw try atPath(state, path) { state.mismatch(expected: [String: Any].self, expectedName: "a dictionary", found: v, at: nil) }
        }
        currentIndex += 1
        return state.keyedContainer(NestedKey.self, d, detachedPath: path)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let v = try next([Any].self)
        let path = codingPath + [PlistCodingKey(index: currentIndex)]
        guard case .array(let a) = v else {
            throw try atPath(state, path) { state.mismatch(expected: [Any].self, expectedName: "an array", found: v, at: nil) }
        }
        currentIndex += 1
        return PlistUnkeyedDecodingContainer(state: state, elements: a, depth: -1, detachedPath: path)
    }

    mutating func superDecoder() throws -> any Decoder {
        let v = try next((any Decoder).self)
        let path = codingPath + [PlistCodingKey(index: currentIndex)]
        currentIndex += 1
        return PlistDecodingState(value: v, userInfo: state.userInfo, scalarsFromStrings: state.scalarsFromStrings, path: path)
    }
}

struct PlistSingleValueDecodingContainer: SingleValueDecodingContainer {
    let state: PlistDecodingState
    let value: PlistValue
    let depth: Int
    let detachedPath: [any CodingKey]?

    var codingPath: [any CodingKey] { detachedPath ?? state.path.codingPath(depth: min(depth, state.path.depth)) }

    func decodeNil() -> Bool {
        if case .string(let s) = value, s == plistNullString { return true }
        return false
    }

    func decode(_ type: Bool.Type) throws -> Bool { try state.unboxBool(value, at: nil) }
    func decode(_ type: String.Type) throws -> String { try state.unboxString(value, at: nil) }
    func decode(_ type: Double.Type) throws -> Double { try state.unboxFloat(value, type, at: nil) }
    func decode(_ type: Float.Type) throws -> Float { try state.unboxFloat(value, type, at: nil) }
    func decode(_ type: Int.Type) throws -> Int { try state.unboxInteger(value, type, at: nil) }
    func decode(_ type: Int8.Type) throws -> Int8 { try state.unboxInteger(value, type, at: nil) }
    func decode(_ type: Int16.Type) throws -> Int16 { try state.unboxInteger(value, type, at: nil) }
    func decode(_ type: Int32.Type) throws -> Int32 { try state.unboxInteger(value, type, at: nil) }
    func decode(_ type: Int64.Type) throws -> Int64 { try state.unboxInteger(value, type, at: nil) }
    func decode(_ type: UInt.Type) throws -> UInt { try state.unboxInteger(value, type, at: nil) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try state.unboxInteger(value, type, at: nil) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try state.unboxInteger(value, type, at: nil) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try state.unboxInteger(value, type, at: nil) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try state.unboxInteger(value, type, at: nil) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try state.decodeNested(type, from: value, at: nil, depth: depth, detachedPath: detachedPath)
    }
}

/// A keyed container's error for a missing key: the dictionary's first keys name what is there.
func keyNotFound(_ key: any CodingKey, at path: [any CodingKey], keys: [String]) -> DecodingError {
    let available = keys.prefix(12).map { "\"\($0)\"" }.joined(separator: ", ") + (keys.count > 12 ? ", …" : "")
    return .keyNotFound(key, DecodingError.Context(
        codingPath: path,
        debugDescription: "No value for key \"\(key.stringValue)\" in the dictionary at \(path.dottedDescription)"
            + (keys.isEmpty ? " (it is empty)." : " (its keys: \(available)).")))
}

/// An unkeyed container's error for a value asked for past its last element (`path` ends with that index).
func pastTheEnd(_ type: Any.Type, at path: [any CodingKey], count: Int) -> DecodingError {
    .valueNotFound(type, DecodingError.Context(
        codingPath: path,
        debugDescription: "Expected to decode \(type) at \(path.dottedDescription) but the array has only \(count) element\(count == 1 ? "" : "s")."))
}

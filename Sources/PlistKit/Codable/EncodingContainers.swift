import FoundationEssentials

// The containers are small structs pointing at a frame of the shared `PlistEncodingState`. `depth` is the length of
// the encoder's path stack when the container was made, or -1 for a container with a detached path of its own.

/// Foundation's marker for `nil` inside a property list, which has no null.
let plistNullString = "$null"

struct PlistKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let state: PlistEncodingState
    let frame: Int32
    let id: UInt32
    let depth: Int32

    var codingPath: [any CodingKey] { state.containerPath(frame: frame, depth: depth) }

    @inline(__always) private func put(_ v: PlistValue, _ key: Key) throws {
        try state.append(v, key: key.stringValue, frame: frame, id: id)
    }

    mutating func encodeNil(forKey key: Key) throws { try put(.string(plistNullString), key) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try put(.bool(value), key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try put(.string(value), key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try put(.real(PlistReal(value)), key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try put(.real(PlistReal(value)), key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try put(.integer(PlistInteger(value)), key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try put(.integer(PlistInteger(Int64(value))), key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try put(.integer(PlistInteger(Int64(value))), key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try put(.integer(PlistInteger(Int64(value))), key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try put(.integer(PlistInteger(value)), key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try put(.integer(PlistInteger(UInt64(value))), key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try put(.integer(PlistInteger(UInt64(value))), key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try put(.integer(PlistInteger(UInt64(value))), key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try put(.integer(PlistInteger(UInt64(value))), key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try put(.integer(PlistInteger(value)), key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        let v = try state.encodeNested(value, at: .key(key), frame: frame, depth: depth)
        try put(v, key)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        let child = state.makeChild(.dictionary, in: frame, id: id, key: key.stringValue, path: codingPath + [key])
        return KeyedEncodingContainer(
            PlistKeyedEncodingContainer<NestedKey>(state: state, frame: child.frame, id: child.id, depth: -1))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = state.makeChild(.array, in: frame, id: id, key: key.stringValue, path: codingPath + [key])
        return PlistUnkeyedEncodingContainer(state: state, frame: child.frame, id: child.id, depth: -1)
    }

    mutating func superEncoder() -> any Encoder {
        let child = state.makeChild(
            .unset, in: frame, id: id, key: PlistCodingKey.superKey.stringValue, path: codingPath + [PlistCodingKey.superKey])
        return PlistSuperEncoder(state: state, frame: child.frame, id: child.id)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let child = state.makeChild(.unset, in: frame, id: id, key: key.stringValue, path: codingPath + [key])
        return PlistSuperEncoder(state: state, frame: child.frame, id: child.id)
    }
}

struct PlistUnkeyedEncodingContainer: UnkeyedEncodingContainer, PlistPrimitiveEncoding {
    let state: PlistEncodingState
    let frame: Int32
    let id: UInt32
    let depth: Int32

    var codingPath: [any CodingKey] { state.containerPath(frame: frame, depth: depth) }

    var count: Int {
        let f = Int(frame)
        return f < state.frames.count && state.frames[f].id == id ? state.frames[f].values.count : 0
    }

    @inline(__always) func put(_ v: PlistValue) throws { try state.append(v, frame: frame, id: id) }


    mutating func encode<T: Encodable>(_ value: T) throws {
        let v = try state.encodeNested(value, at: .index(count), frame: frame, depth: depth)
        try put(v)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let child = state.makeChild(.dictionary, in: frame, id: id, key: nil, path: codingPath + [PlistCodingKey(index: count)])
        return KeyedEncodingContainer(
            PlistKeyedEncodingContainer<NestedKey>(state: state, frame: child.frame, id: child.id, depth: -1))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = state.makeChild(.array, in: frame, id: id, key: nil, path: codingPath + [PlistCodingKey(index: count)])
        return PlistUnkeyedEncodingContainer(state: state, frame: child.frame, id: child.id, depth: -1)
    }

    mutating func superEncoder() -> any Encoder {
        let child = state.makeChild(.unset, in: frame, id: id, key: nil, path: codingPath + [PlistCodingKey(index: count)])
        return PlistSuperEncoder(state: state, frame: child.frame, id: child.id)
    }
}

struct PlistSingleValueEncodingContainer: SingleValueEncodingContainer, PlistPrimitiveEncoding {
    let state: PlistEncodingState
    let frame: Int32
    let id: UInt32
    let depth: Int32

    var codingPath: [any CodingKey] { state.containerPath(frame: frame, depth: depth) }

    @inline(__always) func put(_ v: PlistValue) throws {
        try state.checkFrame(frame, id, v)
        state.frames[Int(frame)].kind = .single
        state.frames[Int(frame)].single = v
    }


    mutating func encode<T: Encodable>(_ value: T) throws {
        // The value replaces this level's container, so it is encoded at the same path (no element pushed).
        let v: PlistValue
        if let special = PlistEncodingState.specialValue(value) {
            v = special
        } else if depth < 0 {
            let saved = state.path.replace(with: codingPath)
            defer { state.path.elements = saved }
            v = try state.encodeLevel(value)
        } else {
            v = try state.encodeLevel(value)
        }
        try put(v)
    }
}

/// The encoder `superEncoder()` returns: whatever is encoded into it becomes the value of one slot of its parent.
final class PlistSuperEncoder: Encoder {
    let state: PlistEncodingState
    let frame: Int32
    let id: UInt32

    init(state: PlistEncodingState, frame: Int32, id: UInt32) {
        self.state = state
        self.frame = frame
        self.id = id
    }

    var codingPath: [any CodingKey] { state.containerPath(frame: frame, depth: -1) }
    var userInfo: [CodingUserInfoKey: Any] { state.userInfo }

    /// Gives the frame `kind` if nothing has been encoded into it yet.
    private func claim(_ kind: EncodingFrame.Kind) {
        let f = Int(frame)
        guard f < state.frames.count, state.frames[f].id == id else { return }
        if state.frames[f].kind == .unset || (state.frames[f].kind == .single && kind != .single) {
            state.frames[f].kind = kind
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        claim(.dictionary)
        return KeyedEncodingContainer(PlistKeyedEncodingContainer<Key>(state: state, frame: frame, id: id, depth: -1))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        claim(.array)
        return PlistUnkeyedEncodingContainer(state: state, frame: frame, id: id, depth: -1)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        PlistSingleValueEncodingContainer(state: state, frame: frame, id: id, depth: -1)
    }
}

/// The primitive `encode(_:)` overloads shared by the unkeyed and single-value containers: each differs only in
/// where `put` stores the value.
protocol PlistPrimitiveEncoding {
    func put(_ v: PlistValue) throws
}

extension PlistPrimitiveEncoding {
    @inline(__always) func encodeNil() throws { try put(.string(plistNullString)) }
    @inline(__always) func encode(_ value: Bool) throws { try put(.bool(value)) }
    @inline(__always) func encode(_ value: String) throws { try put(.string(value)) }
    @inline(__always) func encode(_ value: Double) throws { try put(.real(PlistReal(value))) }
    @inline(__always) func encode(_ value: Float) throws { try put(.real(PlistReal(value))) }
    @inline(__always) func encode(_ value: Int) throws { try put(.integer(PlistInteger(value))) }
    @inline(__always) func encode(_ value: Int8) throws { try put(.integer(PlistInteger(Int64(value)))) }
    @inline(__always) func encode(_ value: Int16) throws { try put(.integer(PlistInteger(Int64(value)))) }
    @inline(__always) func encode(_ value: Int32) throws { try put(.integer(PlistInteger(Int64(value)))) }
    @inline(__always) func encode(_ value: Int64) throws { try put(.integer(PlistInteger(value))) }
    @inline(__always) func encode(_ value: UInt) throws { try put(.integer(PlistInteger(UInt64(value)))) }
    @inline(__always) func encode(_ value: UInt8) throws { try put(.integer(PlistInteger(UInt64(value)))) }
    @inline(__always) func encode(_ value: UInt16) throws { try put(.integer(PlistInteger(UInt64(value)))) }
    @inline(__always) func encode(_ value: UInt32) throws { try put(.integer(PlistInteger(UInt64(value)))) }
    @inline(__always) func encode(_ value: UInt64) throws { try put(.integer(PlistInteger(value))) }
}

import FoundationEssentials

/// One container being filled. Frames live in one array owned by the encoder, so a container costs no object of
/// its own: the container structs the `Encoder` hands out are an index into it.
struct EncodingFrame {
    enum Kind: UInt8 { case unset, dictionary, array, single }

    var kind: Kind
    /// Distinguishes this frame from a later one that reuses its index, so a stale container is caught.
    var id: UInt32
    /// The frame this one's finished value goes into, or -1 for a level's own result.
    var parent: Int32
    /// The position in the parent's `values` (ignored for a `.single` parent).
    var slot: Int32
    var keys: [String] = []
    var values: [PlistValue] = []
    var single: PlistValue?
    /// The coding path of a container made by `nestedContainer`/`superEncoder`, which is not the encoder's current
    /// path; nil for ordinary containers, whose path is a prefix of the encoder's stack.
    var detachedPath: [any CodingKey]?
    /// The `CodingKeys` type of a keyed container (its metadata address), so its keys can be shared with the next.
    var keyType: UInt = 0
    /// The keys the previous container of `keyType` ended with. While the keys encoded match it, `keys` stays empty
    /// and `matched` counts them; the finished dictionary then shares the template's arrays (no allocation, no
    /// duplicate check). -1: the keys diverged (or there is no template) and `keys` holds them.
    var template = KeyTemplate()
    var matched: Int32 = -1

    init(kind: Kind, id: UInt32, parent: Int32 = -1, slot: Int32 = -1) {
        self.kind = kind
        self.id = id
        self.parent = parent
        self.slot = slot
    }
}

/// The `Encoder` behind `PlistEncoder`: one instance per `encode` call, reused for every nested value.
///
/// Encoding a value is a *level*: the frames it creates sit above a mark in `frames`, and when its `encode(to:)`
/// returns they are folded into one `PlistValue` (children have higher indices than their parents).
final class PlistEncodingState: Encoder {
    // Unchecked: every access is a short, non-overlapping read or write; the dynamic checks cost ~10% of encoding.
    @exclusivity(unchecked) var frames: [EncodingFrame] = []
    /// The frame holding the current level's own container, or -1 when the level has not asked for one.
    var levelFrame = -1
    var nextID: UInt32 = 0
    @exclusivity(unchecked) var path = CodingPathStack()
    let userInfo: [CodingUserInfoKey: Any]
    /// A small direct-mapped cache from a `CodingKeys` type to how many keys its last container held: reserving that
    /// much up front saves the arrays' repeated growth (most types encode the same keys every time).
    private var sizeCacheTypes = [UInt](repeating: 0, count: 64)
    private var sizeCacheTemplates = [KeyTemplate](repeating: KeyTemplate(), count: 64)

    init(userInfo: [CodingUserInfoKey: Any]) {
        self.userInfo = userInfo
        frames.reserveCapacity(16)
    }

    @inline(__always) private static func sizeSlot(_ type: UInt) -> Int { Int(truncatingIfNeeded: (type >> 4) & 63) }

    var codingPath: [any CodingKey] { path.codingPath(depth: path.depth) }

    // MARK: Encoder

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        let f = levelContainer(.dictionary)
        if frames[f].keyType == 0 && frames[f].values.isEmpty {
            let t = UInt(bitPattern: ObjectIdentifier(Key.self))
            frames[f].keyType = t
            let slot = Self.sizeSlot(t)
            if sizeCacheTypes[slot] == t {
                let template = sizeCacheTemplates[slot]
                frames[f].values.reserveCapacity(template.keys.count)
                frames[f].template = template
                frames[f].matched = 0
            }
        }
        return KeyedEncodingContainer(
            PlistKeyedEncodingContainer<Key>(state: self, frame: Int32(f), id: frames[f].id, depth: Int32(path.depth)))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        let f = levelContainer(.array)
        return PlistUnkeyedEncodingContainer(state: self, frame: Int32(f), id: frames[f].id, depth: Int32(path.depth))
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        let f = levelContainer(.single)
        return PlistSingleValueEncodingContainer(state: self, frame: Int32(f), id: frames[f].id, depth: Int32(path.depth))
    }

    /// The current level's container frame of `kind`, created on first use. Asking again returns the same frame
    /// (as Foundation does); asking for a different kind starts over with the new kind.
    private func levelContainer(_ kind: EncodingFrame.Kind) -> Int {
        if levelFrame >= 0, levelFrame < frames.count {
            if frames[levelFrame].kind == kind { return levelFrame }
            if frames[levelFrame].kind == .unset {
                frames[levelFrame].kind = kind
                return levelFrame
            }
        }
        levelFrame = newFrame(kind)
        return levelFrame
    }

    @inline(__always) func newFrame(_ kind: EncodingFrame.Kind, parent: Int32 = -1, slot: Int32 = -1) -> Int {
        nextID &+= 1
        frames.append(EncodingFrame(kind: kind, id: nextID, parent: parent, slot: slot))
        return frames.count - 1
    }

    // MARK: Levels

    /// Encodes `value` to a plist value: standard types directly, everything else through its `encode(to:)`.
    func encodeLevel<T: Encodable>(_ value: T) throws -> PlistValue {
        if let v = Self.specialValue(value) { return v }
        let savedLevel = levelFrame
        let mark = frames.count
        levelFrame = -1
        defer {
            levelFrame = savedLevel
            if frames.count > mark { frames.removeSubrange(mark...) }
        }
        try value.encode(to: self)
        guard levelFrame >= mark else { return .dictionary(PlistDictionary()) }
        return finishLevel(mark: mark, root: levelFrame)
    }

    /// Encodes the top-level value; unlike a nested value it must encode something.
    func encodeTop<T: Encodable>(_ value: T) throws -> PlistValue {
        if let v = Self.specialValue(value) { return v }
        let mark = frames.count
        levelFrame = -1
        try value.encode(to: self)
        guard levelFrame >= mark else {
            throw EncodingError.invalidValue(
                value, EncodingError.Context(codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
        }
        return finishLevel(mark: mark, root: levelFrame)
    }

    /// Folds the frames above `mark` into their parents, top down, and returns the value of `root`.
    private func finishLevel(mark: Int, root: Int) -> PlistValue {
        var i = frames.count - 1
        var result: PlistValue = .dictionary(PlistDictionary())
        while i >= mark {
            let v = takeValue(i)
            if i == root {
                result = v
            } else {
                let p = Int(frames[i].parent)
                if p >= 0 && p < i { place(v, into: p, slot: Int(frames[i].slot)) }
            }
            i -= 1
        }
        frames.removeSubrange(mark...)
        return result
    }

    /// The finished value of frame `i`, moving its storage out so no copy is made.
    private func takeValue(_ i: Int) -> PlistValue {
        switch frames[i].kind {
        case .array:
            var values: [PlistValue] = []
            swap(&values, &frames[i].values)
            return .array(values)
        case .dictionary:
            var values: [PlistValue] = []
            swap(&values, &frames[i].values)
            let matched = Int(frames[i].matched)
            if matched >= 0 {
                let template = frames[i].template
                if matched == template.keys.count {
                    return .dictionary(PlistDictionary(uniqueKeys: template.keys, values: values, sharing: template.index))
                }
                // A prefix of unique keys is unique.
                return .dictionary(PlistDictionary(uniqueKeys: Array(template.keys[..<matched]), values: values, sharing: nil))
            }
            var keys: [String] = []
            swap(&keys, &frames[i].keys)
            let d = PlistDictionary(encodedKeys: keys, values: values)
            let t = frames[i].keyType
            if t != 0 && d.count == keys.count {
                // No duplicates: these keys are the template for the next container of this type.
                let slot = Self.sizeSlot(t)
                sizeCacheTypes[slot] = t
                sizeCacheTemplates[slot] = KeyTemplate(keys: keys, index: d.sharedIndex)
            }
            return .dictionary(d)
        case .single:
            return frames[i].single ?? .dictionary(PlistDictionary())
        case .unset:
            // A super encoder nobody encoded into: an empty dictionary, as Foundation writes.
            return .dictionary(PlistDictionary())
        }
    }

    private func place(_ v: PlistValue, into p: Int, slot: Int) {
        switch frames[p].kind {
        case .array, .dictionary:
            if slot >= 0 && slot < frames[p].values.count { frames[p].values[slot] = v }
        case .single, .unset:
            frames[p].kind = .single
            frames[p].single = v
        }
    }

    // MARK: Container support

    /// Checks that a container's frame is still live.
    @inline(__always) func checkFrame(_ frame: Int32, _ id: UInt32, _ value: Any) throws {
        let f = Int(frame)
        guard f < frames.count, frames[f].id == id else {
            throw EncodingError.invalidValue(
                value, EncodingError.Context(
                    codingPath: [],
                    debugDescription: "An encoding container was used after the value it belongs to was finished."))
        }
    }

    @inline(__always) func append(_ v: PlistValue, key: String, frame: Int32, id: UInt32) throws {
        try checkFrame(frame, id, v)
        let f = Int(frame)
        appendKey(key, f)
        frames[f].values.append(v)
    }

    /// Records `key` for frame `f`: as one more match of its template, or in its own key array.
    @inline(__always) private func appendKey(_ key: String, _ f: Int) {
        let m = Int(frames[f].matched)
        if m >= 0 {
            if m < frames[f].template.keys.count && exactKeyBytesEqual(frames[f].template.keys[m], key) {
                frames[f].matched = Int32(m + 1)
                return
            }
            frames[f].keys = Array(frames[f].template.keys[..<m])
            frames[f].matched = -1
        }
        frames[f].keys.append(key)
    }

    @inline(__always) func append(_ v: PlistValue, frame: Int32, id: UInt32) throws {
        try checkFrame(frame, id, v)
        frames[Int(frame)].values.append(v)
    }

    /// The coding path of a container: its detached path, or the first `depth` elements of the stack.
    func containerPath(frame: Int32, depth: Int32) -> [any CodingKey] {
        let f = Int(frame)
        if depth < 0, f < frames.count, let p = frames[f].detachedPath { return p }
        return path.codingPath(depth: max(0, min(Int(depth), path.depth)))
    }

    /// Encodes a nested value found at `element` of the container `frame`.
    @inline(__always) func encodeNested<T: Encodable>(
        _ value: T, at element: CodingPathElement, frame: Int32, depth: Int32
    ) throws -> PlistValue {
        if let v = Self.specialValue(value) { return v }
        if depth < 0 {
            let saved = path.replace(with: containerPath(frame: frame, depth: depth))
            defer { path.elements = saved }
            path.push(element)
            return try encodeLevel(value)
        }
        path.push(element)
        defer { path.pop() }
        return try encodeLevel(value)
    }

    /// Reserves a slot (with `key`, in a dictionary) in `frame` and makes a frame of `kind` that will fill it.
    func makeChild(
        _ kind: EncodingFrame.Kind, in frame: Int32, id: UInt32, key: String?, path childPath: [any CodingKey]
    ) -> (frame: Int32, id: UInt32) {
        let f = Int(frame)
        guard f < frames.count, frames[f].id == id else {
            // The parent is gone: give the child a frame of its own that nothing reads, rather than crash.
            let c = newFrame(kind)
            frames[c].detachedPath = childPath
            return (Int32(c), frames[c].id)
        }
        if let key { appendKey(key, f) }
        frames[f].values.append(.bool(false))
        let c = newFrame(kind, parent: frame, slot: Int32(frames[f].values.count - 1))
        frames[c].detachedPath = childPath
        return (Int32(c), frames[c].id)
    }

    // MARK: Standard types

    /// The plist value of the types the format has a native form for (and `PlistValue`/`UID` themselves), or nil.
    @inline(__always) static func specialValue<T: Encodable>(_ value: T) -> PlistValue? {
        let kind = NativeType.of(T.self)
        if kind == .none { return nil }
        return nativeValue(value, kind)
    }

    private static func nativeValue<T>(_ value: T, _ kind: NativeType) -> PlistValue {
        switch kind {
        case .string: return .string(reinterpret(value, as: String.self))
        case .int: return .integer(PlistInteger(reinterpret(value, as: Int.self)))
        case .double: return .real(PlistReal(reinterpret(value, as: Double.self)))
        case .bool: return .bool(reinterpret(value, as: Bool.self))
        case .date: return .date(PlistDate(reinterpret(value, as: Date.self)))
        case .data: return .data(reinterpret(value, as: Data.self))
        case .plistValue: return reinterpret(value, as: PlistValue.self)
        case .int64: return .integer(PlistInteger(reinterpret(value, as: Int64.self)))
        case .uint64: return .integer(PlistInteger(reinterpret(value, as: UInt64.self)))
        case .float: return .real(PlistReal(reinterpret(value, as: Float.self)))
        case .url: return urlValue(reinterpret(value, as: URL.self))
        case .uid: return .uid(reinterpret(value, as: UID.self))
        case .int32: return .integer(PlistInteger(Int64(reinterpret(value, as: Int32.self))))
        case .uint32: return .integer(PlistInteger(UInt64(reinterpret(value, as: UInt32.self))))
        case .uint: return .integer(PlistInteger(UInt64(reinterpret(value, as: UInt.self))))
        case .int16: return .integer(PlistInteger(Int64(reinterpret(value, as: Int16.self))))
        case .uint16: return .integer(PlistInteger(UInt64(reinterpret(value, as: UInt16.self))))
        case .int8: return .integer(PlistInteger(Int64(reinterpret(value, as: Int8.self))))
        case .uint8: return .integer(PlistInteger(UInt64(reinterpret(value, as: UInt8.self))))
        case .plistDictionary: return .dictionary(reinterpret(value, as: PlistDictionary.self))
        case .stringArray: return .array(reinterpret(value, as: [String].self).map { .string($0) })
        case .intArray: return .array(reinterpret(value, as: [Int].self).map { .integer(PlistInteger($0)) })
        case .doubleArray: return .array(reinterpret(value, as: [Double].self).map { .real(PlistReal($0)) })
        case .boolArray: return .array(reinterpret(value, as: [Bool].self).map { .bool($0) })
        case .none: return .dictionary(PlistDictionary())
        }
    }

    /// A URL in the form its own `encode(to:)` gives and Apple's `PropertyListDecoder` expects: `relative` (the
    /// relative string), then `base` (the base URL, the same way) when there is one.
    private static func urlValue(_ url: URL) -> PlistValue {
        var form: PlistDictionary = ["relative": .string(url.relativeString)]
        if let base = url.baseURL { form["base"] = urlValue(base) }
        return .dictionary(form)
    }
}

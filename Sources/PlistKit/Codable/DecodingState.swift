import FoundationEssentials

/// The `Decoder` behind `PlistDecoder`: one instance per `decode` call, reused for every nested value. It reads
/// straight from the `PlistValue` tree; `current` is the value the type being decoded now gets.
final class PlistDecodingState: Decoder {
    // Unchecked: every access is a short, non-overlapping read or write (the dynamic checks are a measurable cost).
    @exclusivity(unchecked) var current: PlistValue
    @exclusivity(unchecked) var path = CodingPathStack()
    let userInfo: [CodingUserInfoKey: Any]
    /// Scalars may be strings that spell a number, Boolean or date (OpenStep and `.strings` have only strings).
    let scalarsFromStrings: Bool
    /// The dictionaries of the live keyed containers; the containers themselves are an index into this.
    @exclusivity(unchecked) var keyedFrames: [KeyedReadFrame] = []
    var nextFrameID: UInt32 = 0
    /// A direct-mapped cache from a `CodingKeys` type to where its containers found their keys, by lookup order.
    @exclusivity(unchecked) private var positionCacheTypes = [UInt](repeating: 0, count: 64)
    @exclusivity(unchecked) private var positionCache = [[Int32]](repeating: [], count: 64)

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
        return keyedContainer(Key.self, d, detachedPath: nil)
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
        _ type: T.Type, from value: PlistValue, at element: @autoclosure () -> CodingPathElement?, depth: Int,
        detachedPath: [any CodingKey]?
    ) throws -> T {
        if let detachedPath {
            let saved = path.replace(with: detachedPath)
            defer { path.elements = saved }
            return try decodeLevel(type, from: value, at: element())
        }
        if path.depth != depth, depth <= path.depth {
            // A container used after the decoder moved on: decode at the container's own path.
            let saved = path.elements
            path.elements.removeSubrange(depth...)
            defer { path.elements = saved }
            return try decodeLevel(type, from: value, at: element())
        }
        return try decodeLevel(type, from: value, at: element())
    }

    /// Decodes a `T` from `value`; `element` (if any) is pushed on the path for the duration.
    ///
    /// The element is made only when it is needed (pushed for a nested value, or named by an error): a key is an
    /// existential, and making and destroying one for every scalar went through the runtime's value witnesses
    /// (measured with callgrind on `plistbench codable`'s records: 2 % of an XML decode, 7 % of a binary one).
    func decodeLevel<T: Decodable>(_ type: T.Type, from value: PlistValue, at element: @autoclosure () -> CodingPathElement?) throws -> T {
        let kind = NativeType.of(T.self)
        if kind != .none { return try decodeNative(kind, from: value, at: element()) }
        var saved = value
        swap(&current, &saved)
        let mark = keyedFrames.count
        let pushed = element()
        if let pushed { path.push(pushed) }
        defer {
            if pushed != nil { path.pop() }
            swap(&current, &saved)
            // The containers this value's init(from:) made are finished with it.
            if keyedFrames.count > mark { keyedFrames.removeSubrange(mark...) }
        }
        return try T(from: self)
    }

    // MARK: Keyed containers

    /// A keyed container over `d`, registered as a frame of this level.
    func keyedContainer<Key: CodingKey>(_ type: Key.Type, _ d: PlistDictionary, detachedPath: [any CodingKey]?) -> KeyedDecodingContainer<Key> {
        nextFrameID &+= 1
        let t = UInt(bitPattern: ObjectIdentifier(Key.self))
        let slot = Int(truncatingIfNeeded: (t >> 4) & 63)
        if positionCacheTypes[slot] != t {
            positionCacheTypes[slot] = t
            positionCache[slot] = []
        }
        keyedFrames.append(KeyedReadFrame(dictionary: d, detachedPath: detachedPath, hint: 0, id: nextFrameID, cacheSlot: Int16(slot)))
        return KeyedDecodingContainer(PlistKeyedDecodingContainer<Key>(
            state: self, frame: Int32(keyedFrames.count - 1), id: nextFrameID, depth: detachedPath == nil ? Int32(path.depth) : -1))
    }

    /// The frame of a keyed container, or nil once the value it belongs to is finished.
    @inline(__always) func keyedFrame(_ frame: Int32, _ id: UInt32) -> KeyedReadFrame? {
        let f = Int(frame)
        guard f < keyedFrames.count, keyedFrames[f].id == id else { return nil }
        return keyedFrames[f]
    }

    /// The value for `key` in a keyed container's dictionary, probing the position after the previous hit first:
    /// fields are usually read in the order they were written.
    @inline(__always) func lookup(_ key: String, frame: Int32, id: UInt32) throws -> PlistValue? {
        let f = Int(frame)
        guard f < keyedFrames.count, keyedFrames[f].id == id else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: codingPath,
                debugDescription: "A keyed decoding container was used after the value it belongs to was decoded."))
        }
        // The k-th lookup of a container usually asks for the same key, at the same position, as the k-th lookup
        // of the previous container of its type (records of one type share their layout); else try after the last hit.
        let k = Int(keyedFrames[f].lookups)
        keyedFrames[f].lookups += 1
        let slot = Int(keyedFrames[f].cacheSlot)
        var h = keyedFrames[f].hint
        let cached = k < positionCache[slot].count
        if cached { h = Int(positionCache[slot][k]) }
        let i: Int
        if h >= 0, h < keyedFrames[f].dictionary.count, exactKeyBytesEqual(keyedFrames[f].dictionary.key(at: h), key) {
            i = h
        } else {
            i = findKey(key, in: f, from: h)
            if cached { positionCache[slot][k] = Int32(i) }
        }
        // Recorded on a hit too: a cache that grew only on misses stopped at the first lookup the hint answered, and
        // every later lookup of every record searched (measured with `plistbench codable`'s XML records, whose keys
        // are sorted, not declared: nine searches a record).
        if !cached, k == positionCache[slot].count, k < 1024 { positionCache[slot].append(Int32(i)) }
        guard i >= 0 else { return nil }
        keyedFrames[f].hint = i + 1
        return keyedFrames[f].dictionary.value(at: i)
    }

    /// The position of `key` in keyed frame `f` (-1 when absent), scanning short dictionaries from `start`.
    private func findKey(_ key: String, in f: Int, from start: Int) -> Int {
        let h = max(start, 0)
        if keyedFrames[f].dictionary.count <= 2 * PlistDictionary.indexThreshold {
            // Short dictionary: scan from the hint, wrapping around (keys are often sorted rather than declared);
            // a large one's index is built by its first lookup.
            // Start one before the miss: a key shifted by one either way (an optional key present in one record
            // and absent in the next) is then found within two probes.
            return keyedFrames[f].dictionary.withKeyColumn { keys in
                let n = keys.count
                var j = h > 0 && h <= n ? h - 1 : 0
                var probes = 0
                while probes < n {
                    if j >= n { j = 0 }
                    if exactKeyBytesEqual(keys[j], key) { return j }
                    j += 1
                    probes += 1
                }
                return -1
            }
        }
        return keyedFrames[f].dictionary.index(forKey: key) ?? -1
    }

    /// The coding path with `element` appended, for errors.
    func codingPath(appending element: CodingPathElement?) -> [any CodingKey] {
        var p = codingPath
        if let element { p.append(element.codingKey) }
        return p
    }
}

/// A live keyed decoding container's data.
struct KeyedReadFrame {
    var dictionary: PlistDictionary
    var detachedPath: [any CodingKey]?
    /// Where the next lookup starts.
    var hint: Int
    let id: UInt32
    /// This container's entry in the decoder's position cache, and how many lookups it has made.
    let cacheSlot: Int16
    var lookups: Int32 = 0
}

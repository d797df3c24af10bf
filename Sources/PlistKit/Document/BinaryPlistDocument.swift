import FoundationEssentials

/// A binary property list opened without being read: the trailer and the offset table are checked when it opens,
/// and nothing else is decoded, or allocated, until a caller asks for it. A key path is followed by comparing raw
/// key bytes in each dictionary on the way, as CoreFoundation's `CFBinaryPList.c` looks keys up; any object can then
/// be materialised as a `PlistValue`, or sent as events to a sink.
///
/// Every rule of `PropertyList.read` holds on the objects a call touches: bounds, encodings, non-string keys, the
/// duplicate-key policy, and — for a materialised subtree — cycles, depth and the decoding budget. Objects a call does
/// not touch are not checked, so a lookup can succeed in a file that `read` refuses elsewhere.
public final class BinaryPlistDocument: @unchecked Sendable {
    private enum Storage {
        case data(Data)
        case bytes([UInt8])
        case mapped(MappedInput)
    }

    private let storage: Storage
    private let trailer: BinaryTrailer
    /// The read options the document was opened with (limits and policies for every call).
    public let options: PlistReadOptions

    /// An object of the document, as a lookup finds it: a position in the offset table and what kind it is.
    public struct Object: Sendable, Hashable {
        /// The object's index in the offset table.
        public let index: Int
        /// What the object's marker says it is (`PlistValue.typeName` spelling: `dictionary`, `array`, `string`, …).
        public let typeName: String
        /// For an array or dictionary, how many elements or entries it has as written (a key written twice counts
        /// twice; the tree holds it once).
        public let count: Int?
    }

    /// Opens `data` (it is kept, not copied).
    public convenience init(_ data: Data, options: PlistReadOptions = PlistReadOptions()) throws {
        try self.init(storage: .data(data), options: options)
    }

    /// Opens `bytes` (they are kept, not copied).
    public convenience init(_ bytes: [UInt8], options: PlistReadOptions = PlistReadOptions()) throws {
        try self.init(storage: .bytes(bytes), options: options)
    }

    /// Opens the file at `path`, mapped into memory (`MappedInput`): only the pages that calls touch are read.
    public convenience init(contentsOfFile path: String, options: PlistReadOptions = PlistReadOptions()) throws {
        let input: MappedInput
        do {
            input = try MappedInput(path: path, limit: options.maxInputSize)
        } catch {
            throw PlistError(.io, "cannot read \(path): \(error)", format: .binary)
        }
        try self.init(storage: .mapped(input), options: options)
    }

    /// Opens mapped (or read) input.
    public convenience init(_ input: MappedInput, options: PlistReadOptions = PlistReadOptions()) throws {
        try self.init(storage: .mapped(input), options: options)
    }

    private init(storage: Storage, options: PlistReadOptions) throws {
        self.storage = storage
        self.options = options
        trailer = try Self.withBytes(storage) { bytes in
            guard bytes.count <= options.maxInputSize else {
                throw PlistError(.sizeLimit, "input is \(bytes.count) bytes, more than the limit of \(options.maxInputSize)",
                                 format: .binary)
            }
            let trailer = try BinaryTrailer(bytes, options: options)
            // Every offset entry must point into the object area: checked once, here, without allocating.
            let table = BinaryObjectTable(base: bytes.baseAddress.unsafelyUnwrapped, trailer: trailer, strictDates: options.strictDates)
            for index in 0..<trailer.objectCount { _ = try table.objectOffset(index) }
            return trailer
        }
    }

    private static func withBytes<R>(_ storage: Storage, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        switch storage {
        case .data(let data): return try data.withUnsafeBytes(body)
        case .bytes(let bytes): return try bytes.withUnsafeBytes(body)
        case .mapped(let input): return try input.withUnsafeBytes(body)
        }
    }

    /// Calls `body` with the bytes and an object table over them (valid only inside `body`).
    private func withTable<R>(_ body: (UnsafeRawBufferPointer, BinaryObjectTable) throws -> R) rethrows -> R {
        try Self.withBytes(storage) { bytes in
            try body(bytes, BinaryObjectTable(base: bytes.baseAddress.unsafelyUnwrapped, trailer: trailer, strictDates: options.strictDates))
        }
    }

    /// The root object.
    public var root: Object {
        get throws { try withTable { _, table in try Self.describe(trailer.topObject, in: table) } }
    }

    // MARK: Lookups

    /// The object at `path` (the empty path is the root), or nil when a key is missing, an index is out of range or
    /// not a number, or a scalar is in the way — as `PlistValue[path:]` answers on the tree `read` builds.
    public func object(at path: KeyPath) throws -> Object? {
        try withTable { _, table in
            guard let index = try Self.find(path, from: trailer.topObject, in: table, duplicateKeys: options.duplicateKeys) else {
                return nil
            }
            return try Self.describe(index, in: table)
        }
    }

    /// The value at `path`, materialised (`PlistValue.value(at:)`'s error when there is none).
    public func value(at path: KeyPath) throws -> PlistValue {
        guard let object = try object(at: path) else {
            throw PlistError(.keyPath, "No value at that key path or invalid key path: \(path)", keyPath: path)
        }
        return try value(of: object)
    }

    /// The whole value of `object` (and everything inside it), checked as `PropertyList.read` checks a document.
    public func value(of object: Object) throws -> PlistValue {
        try withTable { bytes, _ in try BinaryReader.read(bytes, trailer: trailer, options: options, from: object.index) }
    }

    /// The whole document's value: `PropertyList.read` of its bytes.
    public func value() throws -> PlistValue {
        try withTable { bytes, _ in try BinaryReader.read(bytes, trailer: trailer, options: options) }
    }

    /// Sends `object`'s events to `sink` (a tree builder stands in for shared subtrees; a sink that cannot is
    /// refused past the decoding budget, as `PropertyList.parse(_:into:)` is).
    public func send<Sink: PlistEventSink>(_ object: Object, to sink: inout Sink) throws {
        try withTable { bytes, _ in
            var limited = LimitingSink(sink, limits: ReadLimits(options, format: .binary))
            defer { sink = limited.inner }
            do {
                try BinaryEventSource<_, AsWrittenKeyOrder>.run(bytes, trailer: trailer, options: options, byOffset: false, from: object.index, into: &limited)
            } catch let exhausted as BinaryBudgetExhausted {
                throw exhausted.error
            }
        }
    }

    /// What object `index` is, after checking its header (a container's length must fit the object area; a scalar
    /// is decoded, so its encoding is checked).
    private static func describe(_ index: Int, in table: BinaryObjectTable) throws -> Object {
        let offset = try table.objectOffset(index)
        let marker = table.marker(at: offset)
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0xA:
            let (_, count) = try table.payload(low, unit: table.trailer.refSize, at: offset)
            return Object(index: index, typeName: "array", count: count)
        case 0xD:
            let (_, count) = try table.payload(low, unit: 2 * table.trailer.refSize, at: offset)
            return Object(index: index, typeName: "dictionary", count: count)
        default:
            return Object(index: index, typeName: try table.leaf(at: offset).value.typeName, count: nil)
        }
    }

    /// The index of the object at `path` from object `start`, or nil.
    private static func find(
        _ path: KeyPath, from start: Int, in table: BinaryObjectTable, duplicateKeys: DuplicateKeyPolicy
    ) throws -> Int? {
        var index = start
        for (depth, component) in path.components.enumerated() {
            let offset = try table.objectOffset(index)
            let marker = table.marker(at: offset)
            let low = Int(marker & 0x0F)
            do {
                switch marker >> 4 {
                case 0xD:
                    guard let found = try entry(component, ofDictionaryAt: offset, low: low, in: table, duplicateKeys: duplicateKeys)
                    else { return nil }
                    index = found
                case 0xA:
                    let (refs, count) = try table.payload(low, unit: table.trailer.refSize, at: offset)
                    guard let i = KeyPath.arrayIndex(component), i < count else { return nil }
                    index = try table.reference(at: refs + i * table.trailer.refSize)
                default:
                    return nil
                }
            } catch let e as PlistError {
                // A failure inside the container is reported at its key path, as the tree reader reports it.
                var e = e
                e.keyPath = KeyPath(components: Array(path.components.prefix(depth)) + (e.keyPath?.components ?? []))
                throw e
            }
        }
        return index
    }

    /// The value reference of key `key` in the dictionary at `offset`, comparing raw key bytes; every key of the
    /// dictionary is checked (a string, validly encoded), and the duplicate-key policy decides between equal keys.
    private static func entry(
        _ key: String, ofDictionaryAt offset: Int, low: Int, in table: BinaryObjectTable, duplicateKeys: DuplicateKeyPolicy
    ) throws -> Int? {
        let refSize = table.trailer.refSize
        let (keyRefs, count) = try table.payload(low, unit: 2 * refSize, at: offset)
        var utf8 = key
        return try utf8.withUTF8 { wanted -> Int? in
            var utf16: [UInt16]?
            var found: Int?
            var seen: Set<ExactKey>?
            for i in 0..<count {
                let keyRef = try table.reference(at: keyRefs + i * refSize)
                let keyOffset = try table.objectOffset(keyRef)
                let matches: Bool
                switch table.marker(at: keyOffset) >> 4 {
                case 0x5:
                    matches = try table.asciiKey(at: keyOffset, equals: wanted)
                case 0x6:
                    if utf16 == nil { utf16 = Array(key.utf16) }
                    matches = try table.utf16Key(at: keyOffset, equals: utf16.unsafelyUnwrapped)
                default:
                    throw PlistError(.nonStringKey, "dictionary key (object \(keyRef)) is not a string", format: .binary,
                                     offset: keyOffset)
                }
                if duplicateKeys == .reject {
                    // Any repeated key refuses the dictionary, as the tree reader refuses it.
                    if seen == nil { seen = [] }
                    if case .string(let k) = try table.leaf(at: keyOffset).value, !seen!.insert(ExactKey(k)).inserted {
                        throw PlistError(.duplicateKey, "duplicate key \"\(k)\" in a dictionary", format: .binary,
                                         offset: keyOffset, keyPath: KeyPath(components: [k]))
                    }
                }
                guard matches else { continue }
                if found != nil, duplicateKeys == .firstWins { continue }
                found = try table.reference(at: keyRefs + (count + i) * refSize)
            }
            return found
        }
    }
}

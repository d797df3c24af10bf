import FoundationEssentials
import Synchronization

/// Decodes `Decodable` values from property lists in any PlistKit format, detected from the bytes.
///
/// Shaped like Foundation's `PropertyListDecoder`, so switching is a rename:
/// ```swift
/// let model = try PlistDecoder().decode(Model.self, from: data)
/// var format = PlistFormat.xml
/// let same = try PlistDecoder().decode(Model.self, from: data, format: &format)   // format is now what was read
/// ```
/// The bytes are read into a `PlistValue` tree (`PropertyList.read`) and the types read straight from it. Reading
/// errors are `DecodingError.dataCorrupted` with the `PlistError` (format, byte offset, line) as the underlying
/// error; type errors name the coding path, the expected type and what was found.
///
/// Numbers convert where no information is lost (an integral real to an integer, an integer to a real); a number
/// that does not fit the requested type is `dataCorrupted`, as in Foundation. A `URL` is read from Foundation's
/// `{relative = …; base = …}` form or from a string that is a valid URL as written. In OpenStep and `.strings` input, where every scalar is a
/// string, numbers, Booleans (`YES`/`NO`) and dates are also read from their text.
///
/// The decoder is safe to share between threads; each `decode` call uses its own state.
open class PlistDecoder: @unchecked Sendable {
    private struct Settings {
        var readOptions = PlistReadOptions()
        var userInfo: [CodingUserInfoKey: any Sendable] = [:]
    }

    private let settings = Mutex(Settings())

    /// Reader limits and policies (depth, sizes, duplicate keys, allowed formats).
    open var readOptions: PlistReadOptions {
        get { settings.withLock { $0.readOptions } }
        set { settings.withLock { $0.readOptions = newValue } }
    }

    /// Contextual information for `init(from:)` implementations, available as `decoder.userInfo`.
    open var userInfo: [CodingUserInfoKey: any Sendable] {
        get { settings.withLock { $0.userInfo } }
        set { settings.withLock { $0.userInfo = newValue } }
    }

    public init() {}

    /// Decodes a `T` from a property list in any format.
    open func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        var format = PlistFormat.binary
        return try decode(type, from: data, format: &format)
    }

    /// Decodes a `T` from a property list in any format and reports the format that was detected.
    open func decode<T: Decodable>(_ type: T.Type, from data: Data, format: inout PlistFormat) throws -> T {
        try data.withUnsafeBytes { try decode(type, fromBytes: $0, format: &format) }
    }

    /// Decodes a `T` from a property list in a byte array.
    open func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        var format = PlistFormat.binary
        return try bytes.withUnsafeBytes { try decode(type, fromBytes: $0, format: &format) }
    }

    /// Decodes a `T` from raw bytes and reports the detected format.
    public func decode<T: Decodable>(_ type: T.Type, fromBytes bytes: UnsafeRawBufferPointer, format: inout PlistFormat) throws -> T {
        let s = settings.withLock { $0 }
        let value: PlistValue
        do {
            (value, format) = try PropertyList.read(bytes, options: s.readOptions)
        } catch let error as PlistError {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: [],
                debugDescription: "The data is not a valid property list: \(error.description)",
                underlyingError: error))
        }
        return try decode(type, fromValue: value, format: format, userInfo: s.userInfo)
    }

    /// Decodes a `T` from an opened binary document, reading only the objects the type asks for: each keyed
    /// container's keys are looked up in the document's raw keys (`BinaryPlistDocument.object(at:)`'s lookup, one
    /// key at a time), and everything else — scalars, arrays, a dictionary taken whole (`PlistValue`,
    /// `PlistDictionary`, a URL) — is materialised where it is found and decoded as `decode(_:fromValue:)` decodes
    /// it, with the same conversions, errors and coding paths.
    ///
    /// So a type that reads a few fields of a large file costs those fields, not the file. The checks are the
    /// document's: everything read is checked as `PropertyList.read` checks it (encodings, the duplicate-key
    /// policy, cycles, nesting), but what is not read is not checked, so a file that `decode(_:from:)` of its bytes
    /// refuses for a broken object elsewhere can decode here. The document's read options apply, not
    /// `readOptions`; a document error is `DecodingError.dataCorrupted` with the `PlistError` as underlying error.
    /// A document whose objects are shared so much that the type would read more than four times its object area
    /// (the tree reader's own bound) is decoded from its bytes instead, whose tree holds each shared object once.
    open func decode<T: Decodable>(_ type: T.Type, from document: BinaryPlistDocument) throws -> T {
        let userInfo = self.userInfo
        var info: [CodingUserInfoKey: Any] = [:]
        for (k, v) in userInfo { info[k] = v }
        return try document.withObjectTable { bytes, table in
            let context = DocumentDecodingContext(document: document, bytes: bytes, table: table, userInfo: info)
            defer { context.finished = true }
            let result = Result { try context.decode(type, object: table.trailer.topObject, element: nil, in: context.place([], inside: [])) }
            if context.exhausted {
                // The document shares more than a decoding from it should read again (see `DocumentDecodingContext`):
                // the tree, which holds each shared object once.
                let value: PlistValue
                do {
                    value = try BinaryReader.read(bytes, options: document.options)
                } catch let error as PlistError {
                    throw DecodingError.dataCorrupted(DecodingError.Context(
                        codingPath: [], debugDescription: "The data is not a valid property list: \(error.description)",
                        underlyingError: error))
                }
                return try decode(type, fromValue: value, format: .binary, userInfo: userInfo)
            }
            if let deferred = context.deferredError { throw deferred }
            return try result.get()
        }
    }

    /// Decodes a `T` from an already-read property-list value.
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - value: the value, as ``PropertyList`` or ``PlistEncoder/encodeToValue(_:)`` gives it.
    ///   - format: the format the value came from; `.openStep` and `.strings` let numbers, Booleans and dates be read
    ///     from strings.
    open func decode<T: Decodable>(_ type: T.Type, fromValue value: PlistValue, format: PlistFormat = .binary) throws -> T {
        try decode(type, fromValue: value, format: format, userInfo: userInfo)
    }

    private func decode<T: Decodable>(
        _ type: T.Type, fromValue value: PlistValue, format: PlistFormat, userInfo: [CodingUserInfoKey: any Sendable]
    ) throws -> T {
        var info: [CodingUserInfoKey: Any] = [:]
        if !userInfo.isEmpty {
            info.reserveCapacity(userInfo.count)
            for (k, v) in userInfo { info[k] = v }
        }
        let state = PlistDecodingState(
            value: value, userInfo: info, scalarsFromStrings: format == .openStep || format == .strings)
        return try state.decodeLevel(type, from: value, at: nil)
    }
}

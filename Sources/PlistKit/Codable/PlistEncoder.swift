import FoundationEssentials
import Synchronization

/// Encodes `Encodable` values as property lists in any PlistKit format.
///
/// Shaped like Foundation's `PropertyListEncoder`, so switching is a rename:
/// ```swift
/// let encoder = PlistEncoder()
/// encoder.outputFormat = .binary
/// let data = try encoder.encode(model)
/// ```
/// Values become a `PlistValue` tree (`encodeToValue`) that the format's writer turns into bytes. Standard types
/// get their native plist form: integers of every width (`UInt64` above `Int64.max` included), `Float` as a 32-bit
/// real, `Date` as a date, `Data` as data, `UID` as a UID, and `PlistValue` as itself. A `URL` is written as Apple's
/// encoders write it, `{relative = …; base = …}` (`base` only for a relative URL), so Apple's `PropertyListDecoder`
/// reads it; `PlistDecoder` also reads a plain URL string.
/// `nil` inside arrays is written as the string `$null`, as Foundation does. Dictionary keys are sorted by default;
/// set `writeOptions.sortKeys = false` to keep declaration (encoding) order.
///
/// The encoder is safe to share between threads; each `encode` call uses its own state.
open class PlistEncoder: @unchecked Sendable {
    private struct Settings {
        var outputFormat: PlistFormat = .binary
        var writeOptions = PlistWriteOptions()
        var userInfo: [CodingUserInfoKey: any Sendable] = [:]
    }

    private let settings = Mutex(Settings())

    /// The format `encode(_:)` writes. Default `.binary`, as Foundation's. OpenStep output uses the writer's lossy
    /// rules (numbers, Booleans and dates become strings), since the format has only strings, data and containers.
    open var outputFormat: PlistFormat {
        get { settings.withLock { $0.outputFormat } }
        set { settings.withLock { $0.outputFormat = newValue } }
    }

    /// Writer options: key order (`sortKeys`, default true; false keeps declaration order), JSON layout, depth.
    open var writeOptions: PlistWriteOptions {
        get { settings.withLock { $0.writeOptions } }
        set { settings.withLock { $0.writeOptions = newValue } }
    }

    /// Contextual information for `encode(to:)` implementations, available as `encoder.userInfo`.
    open var userInfo: [CodingUserInfoKey: any Sendable] {
        get { settings.withLock { $0.userInfo } }
        set { settings.withLock { $0.userInfo = newValue } }
    }

    /// A binary encoder with sorted keys.
    public init() {}

    /// Encodes `value` in `outputFormat`.
    /// - Throws: `EncodingError.invalidValue` when the value encodes nothing or the format cannot hold it (the
    ///   writer's `PlistError` is the underlying error).
    open func encode<T: Encodable>(_ value: T) throws -> Data {
        Data(try encodeToBytes(value))
    }

    /// Encodes `value` in `outputFormat` into a byte array.
    open func encodeToBytes<T: Encodable>(_ value: T) throws -> [UInt8] {
        let s = settings.withLock { $0 }
        let tree = try makeTree(value, userInfo: s.userInfo)
        var options = s.writeOptions
        if s.outputFormat == .openStep || s.outputFormat == .strings { options.lossy = true }
        do {
            return try PropertyList.writeBytes(tree, format: s.outputFormat, options: options)
        } catch let error as PlistError {
            throw EncodingError.invalidValue(
                value, EncodingError.Context(
                    codingPath: error.keyPath.map { $0.components.map { PlistCodingKey(stringValue: $0) } } ?? [],
                    debugDescription: "\(T.self) cannot be written as \(s.outputFormat.displayName): \(error.description)",
                    underlyingError: error))
        }
    }

    /// Encodes `value` to a property-list value without writing bytes.
    open func encodeToValue<T: Encodable>(_ value: T) throws -> PlistValue {
        try makeTree(value, userInfo: userInfo)
    }

    private func makeTree<T: Encodable>(_ value: T, userInfo: [CodingUserInfoKey: any Sendable]) throws -> PlistValue {
        var info: [CodingUserInfoKey: Any] = [:]
        if !userInfo.isEmpty {
            info.reserveCapacity(userInfo.count)
            for (k, v) in userInfo { info[k] = v }
        }
        return try PlistEncodingState(userInfo: info).encodeTop(value)
    }
}

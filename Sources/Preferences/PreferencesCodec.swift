import PlistKit

/// Turns a domain's bytes into a value and back. The default uses PlistKit (reads every format it detects, writes
/// binary or XML); a different codec can be supplied, e.g. to test the store independently of the codecs.
public protocol PreferencesCodec: Sendable {
    /// Parses a whole domain file.
    func decode(_ bytes: [UInt8]) throws -> PlistValue
    /// Serialises a domain in `format` (`.binary` or `.xml`).
    func encode(_ value: PlistValue, format: PlistFormat) throws -> [UInt8]
}

/// The PlistKit codec: `PropertyList.read` (format detected) and `PropertyList.writeBytes`.
public struct PlistKitCodec: PreferencesCodec {
    /// Read limits for domain files.
    public var readOptions: PlistReadOptions

    public init(readOptions: PlistReadOptions = PlistReadOptions()) {
        self.readOptions = readOptions
    }

    public func decode(_ bytes: [UInt8]) throws -> PlistValue {
        try PropertyList.read(bytes, options: readOptions).value
    }

    public func encode(_ value: PlistValue, format: PlistFormat) throws -> [UInt8] {
        try PropertyList.writeBytes(value, format: format)
    }
}

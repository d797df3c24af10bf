import FoundationEssentials

/// The entry point: read any supported format, write any supported format.
public enum PropertyList {
    /// Reads a property list, detecting the format (and gzip compression) from the first bytes.
    ///
    /// Zero bytes are not a property list here, as for Core Foundation, Python, libplist and Go (whitespace alone
    /// is an empty OpenStep dictionary, as in CF); `read(_:as:)` with `.openStep` or `.strings` reads them as an
    /// empty dictionary, as an empty strings file is.
    /// - Returns: the value and the format it was read from.
    /// - Throws: `PlistError`.
    public static func read(
        _ bytes: UnsafeRawBufferPointer, options: PlistReadOptions = PlistReadOptions()
    ) throws -> (value: PlistValue, format: PlistFormat) {
        if options.allowGzip, Gzip.isGzip(bytes) {
            let inflated = try Gzip.inflate(bytes, limit: options.maxDecompressedSize)
            return try inflated.withUnsafeBytes { try readUncompressed($0, options: options) }
        }
        return try readUncompressed(bytes, options: options)
    }

    /// Reads a property list from `Data`.
    public static func read(
        _ data: Data, options: PlistReadOptions = PlistReadOptions()
    ) throws -> (value: PlistValue, format: PlistFormat) {
        try data.withUnsafeBytes { try read($0, options: options) }
    }

    /// Reads a property list from a byte array.
    public static func read(
        _ bytes: [UInt8], options: PlistReadOptions = PlistReadOptions()
    ) throws -> (value: PlistValue, format: PlistFormat) {
        try bytes.withUnsafeBytes { try read($0, options: options) }
    }

    /// Reads a document that must be in `format` (no detection; gzip is still undone).
    public static func read(
        _ bytes: UnsafeRawBufferPointer, as format: PlistFormat, options: PlistReadOptions = PlistReadOptions()
    ) throws -> PlistValue {
        if options.allowGzip, Gzip.isGzip(bytes) {
            let inflated = try Gzip.inflate(bytes, limit: options.maxDecompressedSize)
            return try inflated.withUnsafeBytes { try read($0, as: format, options: options) }
        }
        guard bytes.count <= options.maxInputSize else {
            throw PlistError(.sizeLimit, "input is \(bytes.count) bytes, more than the limit of \(options.maxInputSize)", format: format)
        }
        return try decode(bytes, format: format, options: options)
    }

    private static func readUncompressed(
        _ bytes: UnsafeRawBufferPointer, options: PlistReadOptions
    ) throws -> (value: PlistValue, format: PlistFormat) {
        guard bytes.count <= options.maxInputSize else {
            throw PlistError(.sizeLimit, "input is \(bytes.count) bytes, more than the limit of \(options.maxInputSize)")
        }
        guard !bytes.isEmpty else {
            throw PlistError(.truncated, "empty input: zero bytes are not a property list", offset: 0)
        }
        let format = PlistFormat.detect(bytes)
        guard options.allowedFormats.contains(format) else {
            throw PlistError(.unsupportedFormat, "\(format.displayName) input is not allowed by the read options", format: format)
        }
        if format == .openStep {
            // The OpenStep reader tells OpenStep, GNUstep and .strings apart while parsing.
            let (value, dialect) = try OpenStepReader.readDetectingFormat(bytes, options: options)
            guard options.allowedFormats.contains(dialect) else {
                throw PlistError(.unsupportedFormat, "\(dialect.displayName) input is not allowed by the read options", format: dialect)
            }
            return (value, dialect)
        }
        return (try decode(bytes, format: format, options: options), format)
    }

    private static func decode(
        _ bytes: UnsafeRawBufferPointer, format: PlistFormat, options: PlistReadOptions
    ) throws -> PlistValue {
        switch format {
        case .xml: return try XMLReader.read(bytes, options: options)
        case .binary: return try BinaryReader.read(bytes, options: options)
        case .json: return try JSONReader.read(bytes, options: options)
        case .openStep, .gnustep, .strings: return try OpenStepReader.read(bytes, format: format, options: options)
        }
    }

    /// Writes `value` in `format`.
    /// - Throws: `PlistError` (`.unrepresentable` when the format cannot hold a value, e.g. a date in JSON).
    public static func write(
        _ value: PlistValue, format: PlistFormat, options: PlistWriteOptions = PlistWriteOptions()
    ) throws -> Data {
        Data(try writeBytes(value, format: format, options: options))
    }

    /// Writes `value` in `format` into a byte array.
    public static func writeBytes(
        _ value: PlistValue, format: PlistFormat, options: PlistWriteOptions = PlistWriteOptions()
    ) throws -> [UInt8] {
        switch format {
        case .xml: return try XMLWriter.write(value, options: options)
        case .binary: return try BinaryWriter.write(value, options: options)
        case .json: return try JSONWriter.write(value, options: options)
        case .openStep, .gnustep, .strings: return try OpenStepWriter.write(value, format: format, options: options)
        }
    }
}

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
        let detection = PlistFormat.detection(of: bytes)
        guard let format = detection.format else {
            // The OpenStep reader tells OpenStep, GNUstep and .strings apart while parsing.
            guard options.allowedFormats.contains(.openStep) else {
                throw PlistError(.unsupportedFormat, "OpenStep input is not allowed by the read options", format: .openStep)
            }
            let (value, dialect) = try OpenStepReader.readDetectingFormat(bytes, options: options)
            guard options.allowedFormats.contains(dialect) else {
                throw PlistError(.unsupportedFormat, "\(dialect.displayName) input is not allowed by the read options", format: dialect)
            }
            return (value, dialect)
        }
        guard options.allowedFormats.contains(format) else {
            throw PlistError(.unsupportedFormat, "\(format.displayName) input is not allowed by the read options", format: format)
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

    /// Reads a document into `sink` instead of a tree: the events of its values, in document order, each with the
    /// byte range it came from (see `PlistEventSink`). Detection, gzip, limits and errors are those of `read`; the
    /// duplicate-key policy and the `CF$UID` dictionaries of text formats are the tree's business, so a sink sees
    /// keys and dictionaries as written.
    /// - Returns: the format the document was in.
    @discardableResult
    public static func parse<Sink: PlistEventSink>(
        _ bytes: UnsafeRawBufferPointer, options: PlistReadOptions = PlistReadOptions(), into sink: inout Sink
    ) throws -> PlistFormat {
        try checkedInput(bytes, options: options) { bytes, detected in
            var limited = LimitingSink(sink, limits: ReadLimits(options, format: detected))
            defer { sink = limited.inner }
            if detected == .binary {
                try BinaryReader.parse(bytes, options: options, into: &limited)
                return .binary
            }
            return try parseText(bytes, detected: detected, options: options, into: &limited)
        }
    }

    /// The checks every reading makes before a reader runs — gzip undone (capped), the input size, an empty input,
    /// the detected format allowed — then `body` with the bytes to read and their detected format.
    static func checkedInput<R>(
        _ bytes: UnsafeRawBufferPointer, options: PlistReadOptions,
        _ body: (UnsafeRawBufferPointer, PlistFormat) throws -> R
    ) throws -> R {
        if options.allowGzip, Gzip.isGzip(bytes) {
            let inflated = try Gzip.inflate(bytes, limit: options.maxDecompressedSize)
            return try inflated.withUnsafeBytes { try checkedInput($0, options: options, body) }
        }
        guard bytes.count <= options.maxInputSize else {
            throw PlistError(.sizeLimit, "input is \(bytes.count) bytes, more than the limit of \(options.maxInputSize)")
        }
        guard !bytes.isEmpty else {
            throw PlistError(.truncated, "empty input: zero bytes are not a property list", offset: 0)
        }
        let detected = PlistFormat.detection(of: bytes).format ?? .openStep
        guard options.allowedFormats.contains(detected) else {
            throw PlistError(.unsupportedFormat, "\(detected.displayName) input is not allowed by the read options", format: detected)
        }
        return try body(bytes, detected)
    }

    /// Runs the reader of a text format (`detected` is not binary) into `sink`; returns the format read (an
    /// old-style text's dialect is known only once it is read, and must be allowed too).
    static func parseText<Inner: PlistEventSink>(
        _ bytes: UnsafeRawBufferPointer, detected: PlistFormat, options: PlistReadOptions, pages: InputPages? = nil,
        into sink: inout LimitingSink<Inner>
    ) throws -> PlistFormat {
        switch detected {
        case .xml: try XMLReader.parse(bytes, options: options, pages: pages, into: &sink)
        case .json: try JSONReader.parse(bytes, pages: pages, into: &sink)
        case .binary: preconditionFailure("binary input has its own reader")
        case .openStep, .gnustep, .strings:
            let dialect = try OpenStepReader.parse(bytes, format: .openStep, pages: pages, into: &sink)
            guard options.allowedFormats.contains(dialect) else {
                throw PlistError(.unsupportedFormat, "\(dialect.displayName) input is not allowed by the read options", format: dialect)
            }
            return dialect
        }
        return detected
    }

    /// `parse(_:options:into:)` over `Data`.
    @discardableResult
    public static func parse<Sink: PlistEventSink>(
        _ data: Data, options: PlistReadOptions = PlistReadOptions(), into sink: inout Sink
    ) throws -> PlistFormat {
        try data.withUnsafeBytes { try parse($0, options: options, into: &sink) }
    }

    /// Sends `value`'s events to `sink` (dictionaries in insertion order; ranges are empty: a tree has no source
    /// text). What writers are driven by; a way to feed any sink from a value.
    public static func emit<Sink: PlistEventSink>(_ value: PlistValue, into sink: inout Sink) throws {
        try PlistValueEvents<Sink, InsertionKeyOrder>.send(value, to: &sink)
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

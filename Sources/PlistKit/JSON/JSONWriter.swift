/// Placeholder until the JSONWriter lands.
enum JSONWriter {
    static func write(_ value: PlistValue, options: PlistWriteOptions) throws -> [UInt8] {
        throw PlistError(.unsupportedFormat, "writing this format is not implemented yet")
    }
}

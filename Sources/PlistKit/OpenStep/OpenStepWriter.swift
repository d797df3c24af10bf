/// Placeholder until the OpenStep writer lands.
enum OpenStepWriter {
    static func write(_ value: PlistValue, format: PlistFormat, options: PlistWriteOptions) throws -> [UInt8] {
        throw PlistError(.unsupportedFormat, "writing \(format.displayName) is not supported yet", format: format)
    }
}

/// Placeholder until the OpenStep reader lands.
enum OpenStepReader {
    static func read(_ bytes: UnsafeRawBufferPointer, format: PlistFormat, options: PlistReadOptions) throws -> PlistValue {
        throw PlistError(.unsupportedFormat, "OpenStep, GNUstep and .strings input is not supported yet", format: format)
    }
}

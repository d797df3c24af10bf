/// Placeholder until the BinaryReader lands.
enum BinaryReader {
    static func read(_ bytes: UnsafeRawBufferPointer, options: PlistReadOptions) throws -> PlistValue {
        throw PlistError(.unsupportedFormat, "reading this format is not implemented yet")
    }
}

import FoundationEssentials

/// What the tool verbs over keyed archives do, as functions from bytes to bytes or text, so each verb is a few lines:
/// `plutil -unarchive FMT`, `plutil -archive FMT`, `plutil -p` of an archive, `defaults read-archived DOMAIN KEY`.
public enum KeyedArchiveTool {
    /// `plutil -unarchive FMT`: the plain decoding of the archive in `bytes`, written in `format`.
    /// - Throws: `PlistError` (reading, validating, decoding, or a value `format` cannot hold).
    public static func unarchive(_ bytes: [UInt8], to format: PlistFormat, options: KeyedArchiveOptions = KeyedArchiveOptions(),
                                 writeOptions: PlistWriteOptions = PlistWriteOptions()) throws -> [UInt8] {
        let plain = try KeyedArchive(bytes, options: options).plainValue(options: options)
        return try PropertyList.writeBytes(plain, format: format, options: writeOptions)
    }

    /// The plain decoding of a property list that is an archive (`plutil -unarchive` after reading a file): the
    /// document's root is the archive's dictionary, or data holding an archive (a preference value saved on its own).
    /// - Throws: `PlistError`: the archive reader's errors (`.unsupportedFormat` "not a keyed archive: …" for a
    ///   document that is none), then plain decoding's.
    public static func plainValue(ofDocument document: PlistValue, options: KeyedArchiveOptions = KeyedArchiveOptions()) throws -> PlistValue {
        let archive: KeyedArchive
        if case .data(let data) = document {
            archive = try KeyedArchive(data, options: options)
        } else {
            archive = try KeyedArchive(propertyList: document, options: options)
        }
        return try archive.plainValue(options: options)
    }

    /// `plutil -archive FMT`: the property list in `bytes` (any format) archived as its root object, as XML or binary.
    /// Only identical values share an entry by default (`.exact`), so the archive decodes to exactly what `bytes` held
    /// (with Foundation's sharing a `true` beside a `1` would come back as `1`).
    public static func archive(_ bytes: [UInt8], to format: PlistFormat, readOptions: PlistReadOptions = PlistReadOptions(),
                               options: KeyedArchiverOptions = KeyedArchiverOptions(uniquing: .exact)) throws -> [UInt8] {
        let value = try PropertyList.read(bytes, options: readOptions).value
        return try KeyedArchiver.archivedData(value, format: format, options: options)
    }

    /// `plutil -p` of an archive: a header line (`NSKeyedArchiver archive: N objects, root <class>`), then the plain
    /// decoding as `plutil -p` prints values, other classes showing as `"$class" => "Name"`. Nil when `value` is not
    /// an archive, so `-p` prints it as an ordinary property list.
    public static func humanReadable(_ value: PlistValue, options: KeyedArchiveOptions = KeyedArchiveOptions()) throws -> String? {
        guard KeyedArchive.looksLikeArchive(value) else { return nil }
        let archive = try KeyedArchive(propertyList: value, options: options)
        var header = "NSKeyedArchiver archive: \(archive.count) objects"
        if let root = archive.rootUID {
            header += ", root " + (archive.className(of: root) ?? (archive.entries[Int(root.value)].typeName))
        }
        return header + "\n" + PlistDescription.humanReadable(try archive.plainValue(options: options))
    }

    /// `defaults read-archived DOMAIN KEY`: the plain decoding of a preference value that holds an archive (data), or
    /// of an archive stored as a dictionary.
    /// - Throws: `PlistError.invalidValue` when the value is neither.
    public static func unarchivedValue(_ value: PlistValue, options: KeyedArchiveOptions = KeyedArchiveOptions()) throws -> PlistValue {
        switch value {
        case .data(let d): return try KeyedArchive(d, options: options).plainValue(options: options)
        case .dictionary where KeyedArchive.looksLikeArchive(value):
            return try KeyedArchive(propertyList: value, options: options).plainValue(options: options)
        default:
            throw PlistError(.invalidValue, "the value is \(value.typeNameWithArticle), not archived data")
        }
    }
}

import PlistKit

/// What a domain file's bytes hold, from one decode: the store decides from this what to load, report or move aside.
enum DomainFileContents {
    /// A dictionary root: the domain's values.
    case values(PlistDictionary)
    /// No bytes at all.
    case empty
    /// XML or binary (the formats domain files are written in) that the codec refused as a format it does not support
    /// in this build, rather than as damaged input: such a file is kept as it is and not written over.
    case unsupported(PlistError)
    /// Bytes no reader accepts, or a root that is not a dictionary, and why (moving them aside keeps them).
    case damaged(reason: String)

    /// Decodes `bytes` once with `codec` and says which case they are.
    init(_ bytes: [UInt8], codec: any PreferencesCodec) {
        guard !bytes.isEmpty else {
            self = .empty
            return
        }
        do {
            let value = try codec.decode(bytes)
            guard case .dictionary(let values) = value else {
                self = .damaged(reason: "the root is \(value.typeNameWithArticle), not a dictionary")
                return
            }
            self = .values(values)
        } catch let error as PlistError where error.kind == .unsupportedFormat && Self.isWrittenFormat(bytes) {
            self = .unsupported(error)
        } catch {
            self = .damaged(reason: "\(error)")
        }
    }

    /// The values, or an empty domain for anything else.
    var valuesOrEmpty: PlistDictionary {
        if case .values(let values) = self { return values }
        return PlistDictionary()
    }

    /// Why the bytes are not a domain (nil for `.values`).
    var damageReason: String? {
        switch self {
        case .values: return nil
        case .empty: return "the file is empty"
        case .unsupported(let error): return "\(error)"
        case .damaged(let reason): return reason
        }
    }

    private static func isWrittenFormat(_ bytes: [UInt8]) -> Bool {
        let detected = bytes.withUnsafeBytes { PlistFormat.detect($0) }
        return detected == .xml || detected == .binary
    }
}

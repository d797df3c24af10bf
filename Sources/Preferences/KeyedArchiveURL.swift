import FoundationEssentials
import PlistKit

/// Reads the `NSKeyedArchiver` archive of an `NSURL` that Apple's `set(_: URL, forKey:)` stores:
/// `$objects[root] = { $class, NS.base → $null | another URL, NS.relative → "…" }`. Anything else gives nil.
///
/// The archive is read and validated by PlistKit's `KeyedArchive` (UIDs inside the table, real class descriptions);
/// the URL is taken from the root object's fields here rather than from the plain decoding, so a relative URL is
/// resolved against its base as a `URL`, exactly as `URL(string:relativeTo:)` resolves it.
enum KeyedArchiveURL {
    /// Archives larger than this are not URLs (Apple's archive of one is a few hundred bytes).
    static let sizeLimit = 1 << 20
    /// How many `NS.base` links are followed.
    static let maxBaseDepth = 8

    static func url(from data: Data) -> URL? {
        guard data.count <= sizeLimit, data.starts(with: Array("bplist00".utf8)),
              let archive = try? KeyedArchive(data), let root = archive.rootUID
        else { return nil }
        return url(at: root, in: archive, depth: 0)
    }

    private static func url(at uid: UID, in archive: KeyedArchive, depth: Int) -> URL? {
        guard depth < maxBaseDepth, let object = archive.object(uid),
              case .uid(let relativeUID)? = object.field("NS.relative"),
              case .value(.string(let relative)) = archive.entry(relativeUID)
        else { return nil }
        var base: URL?
        if case .uid(let baseUID)? = object.field("NS.base"), baseUID.value != 0 {
            guard let resolved = url(at: baseUID, in: archive, depth: depth + 1) else { return nil }
            base = resolved
        }
        return URL(string: relative, relativeTo: base)?.absoluteURL
    }
}

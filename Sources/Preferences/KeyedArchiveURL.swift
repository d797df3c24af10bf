import FoundationEssentials
import PlistKit

/// Reads the `NSKeyedArchiver` archive of an `NSURL` that Apple's `set(_: URL, forKey:)` stores:
/// `$objects[root] = { $class, NS.base → $null | another URL, NS.relative → "…" }`. Anything else gives nil.
enum KeyedArchiveURL {
    static func url(from data: Data) -> URL? {
        guard data.count <= 1 << 20, data.starts(with: Array("bplist00".utf8)),
            let archive = try? PropertyList.read(data).value,
            case .string("NSKeyedArchiver")? = archive["$archiver"],
            case .array(let objects)? = archive["$objects"],
            case .uid(let root)? = archive["$top"]?["root"]
        else { return nil }
        return url(at: root, objects, depth: 0)
    }

    private static func url(at uid: UID, _ objects: [PlistValue], depth: Int) -> URL? {
        guard depth < 8, uid.value < UInt64(objects.count),
            case .dictionary(let object) = objects[Int(uid.value)],
            case .uid(let relativeRef)? = object["NS.relative"], relativeRef.value < UInt64(objects.count),
            case .string(let relative) = objects[Int(relativeRef.value)]
        else { return nil }
        var base: URL?
        if case .uid(let baseRef)? = object["NS.base"], baseRef.value != 0 {
            guard let resolved = url(at: baseRef, objects, depth: depth + 1) else { return nil }
            base = resolved
        }
        return URL(string: relative, relativeTo: base)?.absoluteURL
    }
}

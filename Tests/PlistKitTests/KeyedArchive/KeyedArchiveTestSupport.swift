import Foundation
@testable import PlistKit
import TestSupport

/// Shared by the keyed-archive tests: the fixtures in `../shared`, Foundation's archiver and unarchiver driven the way
/// the oracles are meant to be (secure coding off, errors returned rather than raised), and a random value generator.
enum ArchiveFixtures {
    /// `../shared/fixtures/keyed-archives`, or nil when the shared folder is not beside the checkout.
    static let directory: URL? = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        let dir = url.deletingLastPathComponent().appendingPathComponent("shared/fixtures/keyed-archives")
        return FileManager.default.fileExists(atPath: dir.path) ? dir : nil
    }()

    /// Every fixture file (relative names), or [] when absent.
    static var all: [String] {
        guard let dir = directory else { return [] }
        var out: [String] = []
        let e = FileManager.default.enumerator(atPath: dir.path)
        while let name = e?.nextObject() as? String {
            if name.hasSuffix(".plist") || name.hasSuffix(".archive") { out.append(name) }
        }
        return out.sorted()
    }

    static func bytes(_ name: String) throws -> Data {
        guard let dir = directory else { throw CocoaError(.fileNoSuchFile) }
        return try Data(contentsOf: dir.appendingPathComponent(name))
    }

    static let corpus: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("Corpus/keyed-archives")
    }()
}

/// The Foundation objects Foundation itself would archive for a plain value: immutable `NSArray`/`NSDictionary`
/// (whose class chains are `NSArray, NSObject`), `NSDate`, `NSNumber`, `NSString`, `NSData`.
enum FoundationArchiving {
    static func object(_ v: PlistValue) -> NSObject {
        switch v {
        case .string(let s): return NSString(string: s)
        case .integer(let i): return i.int64Value.map { NSNumber(value: $0) } ?? NSNumber(value: i.bitPattern)
        case .real(let r): return r.isFloat32 ? NSNumber(value: Float(r.value)) : NSNumber(value: r.value)
        case .bool(let b): return NSNumber(value: b)
        case .date(let d): return NSDate(timeIntervalSinceReferenceDate: d.secondsSinceReferenceDate)
        case .data(let d): return NSData(data: d)
        case .array(let a): return NSArray(array: a.map(object))
        case .dictionary(let d): return NSDictionary(objects: d.values.map(object), forKeys: d.keys.map { NSString(string: $0) })
        case .uid: return NSNull()
        }
    }

    static func archive(_ v: PlistValue, xml: Bool) -> Data {
        let a = NSKeyedArchiver(requiringSecureCoding: false)
        a.outputFormat = xml ? .xml : .binary
        a.encode(object(v), forKey: NSKeyedArchiveRootObjectKey)
        a.finishEncoding()
        return a.encodedData
    }

    /// Foundation's reading of an archive's root, or nil with the error it set.
    static func unarchive(_ data: Data) -> (Any?, Error?) {
        do {
            let u = try NSKeyedUnarchiver(forReadingFrom: data)
            u.requiresSecureCoding = false
            u.decodingFailurePolicy = .setErrorAndReturn
            let root = u.decodeObject(forKey: NSKeyedArchiveRootObjectKey)
            return (root, u.error)
        } catch {
            return (nil, error)
        }
    }
}

/// Random values for archive tests. Strings avoid `"$null"` (Foundation reads it back as nil) and canonically
/// equivalent spellings (Foundation on Linux merges those only when their hashes collide).
struct RandomArchiveValue {
    var rng: SeededGenerator
    /// Allow dictionaries of two or more entries (Foundation writes those in hash order).
    var multiEntryDictionaries: Bool
    var maxDepth = 4
    /// Leave out strings that start with `$`: nska's reader (ccl_bplist) takes a string "$class" for a class
    /// reference and fails.
    var noDollarStrings = false

    init(seed: UInt64, multiEntryDictionaries: Bool) {
        rng = SeededGenerator(seed: seed)
        self.multiEntryDictionaries = multiEntryDictionaries
    }

    static let words = ["a", "baa", "sheep", "é", "日本", "😀", "&<>\"'", " lead", "tab\tnl\n", "NSObject", "$class",
                        "$ivar", "NS.objects", "", "root", "x.y", "ünïcödé"]

    mutating func string() -> String {
        switch rng.below(4) {
        case 0:
            let w = Self.words[rng.below(Self.words.count)]
            return noDollarStrings && w.hasPrefix("$") ? "dollar" : w
        case 1: return String(rng.below(1000))
        default:
            let n = rng.below(12)
            return String((0..<n).map { _ in Character(Unicode.Scalar(UInt8(0x20 + rng.below(95)))) })
        }
    }

    mutating func scalar() -> PlistValue {
        switch rng.below(9) {
        case 0: return .string(string())
        case 1: return .integer(PlistInteger([0, 1, -1, 7, 12, 13, 255, 256, 100_000, -4096, Int64.max, Int64.min][rng.below(12)]))
        case 2: return .integer(PlistInteger(Int64(bitPattern: rng.next()) >> rng.below(64)))
        case 3: return .real(PlistReal([0.0, -0.0, 0.1, 1.5, -2.25, 1e300, .infinity, -.infinity, 3.0, 1.0 / 3][rng.below(10)]))
        case 4: return .bool(rng.below(2) == 0)
        case 5: return .date(PlistDate(secondsSinceReferenceDate: Double(Int64(rng.below(2_000_000_000)) - 1_000_000_000) + [0, 0.5, 0.25][rng.below(3)]))
        case 6: return .data(Data((0..<rng.below(40)).map { _ in UInt8(rng.below(256)) }))
        case 7: return .integer(PlistInteger(UInt64.max - UInt64(rng.below(3))))
        default: return .string(string() + string())
        }
    }

    mutating func value(depth: Int = 0) -> PlistValue {
        if depth >= maxDepth || rng.below(3) == 0 { return scalar() }
        if rng.below(2) == 0 {
            return .array((0..<rng.below(6)).map { _ in value(depth: depth + 1) })
        }
        let n = multiEntryDictionaries ? rng.below(6) : rng.below(2)
        var d = PlistDictionary()
        for _ in 0..<n { d[string()] = value(depth: depth + 1) }
        return .dictionary(d)
    }
}

extension FoundationArchiving {
    /// Where two Foundation objects first differ (`isEqual`), for failure messages.
    static func difference(_ a: Any, _ b: Any, path: String = "root") -> String? {
        if let x = a as? NSArray, let y = b as? NSArray {
            guard x.count == y.count else { return "\(path): \(x.count) vs \(y.count) elements" }
            for i in 0..<x.count { if let d = difference(x[i], y[i], path: path + "[\(i)]") { return d } }
            return nil
        }
        if let x = a as? NSDictionary, let y = b as? NSDictionary {
            guard x.count == y.count else { return "\(path): \(x.count) vs \(y.count) keys" }
            for (k, v) in x {
                guard let w = y[k] else { return "\(path).\(k): missing" }
                if let d = difference(v, w, path: path + ".\(k)") { return d }
            }
            return nil
        }
        if let x = a as? NSObject, let y = b as? NSObject, x.isEqual(y) { return nil }
        return "\(path): \(a) (\(type(of: a))) vs \(b) (\(type(of: b)))"
    }
}

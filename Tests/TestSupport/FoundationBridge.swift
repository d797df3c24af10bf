import Foundation
import PlistKit

/// Converts between PlistKit values and the `Any` trees of Foundation's `PropertyListSerialization`, so differential
/// tests can compare against Foundation (an independent implementation) in the same process. Shared by the test
/// targets and compiled into the `foundation` fuzz harness.
public enum FoundationBridge {
    public struct Unsupported: Error, CustomStringConvertible {
        public var description: String
        public init(description: String) { self.description = description }
    }

    /// Whether some dictionary in `v` holds two keys that are distinct scalars but canonically equivalent (`é` and
    /// `e` + U+0301), which Foundation on Linux merges: differential checks leave such values out.
    public static func hasCanonicallyEquivalentKeys(_ v: PlistValue) -> Bool {
        switch v {
        case .array(let a): return a.contains(where: hasCanonicallyEquivalentKeys)
        case .dictionary(let d):
            var seen = Set<String>()
            for (k, _) in d where !seen.insert(k).inserted { return true }
            return d.contains { hasCanonicallyEquivalentKeys($0.value) }
        default: return false
        }
    }

    /// A Foundation property-list object for `value`, dictionaries as `NSMutableDictionary`. (Foundation on Linux
    /// merges canonically equivalent keys such as `"é"` and `"e\u{301}"`: callers that compare avoid them.)
    public static func toFoundation(_ value: PlistValue) throws -> Any {
        switch value {
        case .string(let s): return NSString(string: s)
        case .integer(let i):
            if let v = i.int64Value { return NSNumber(value: v) }
            return NSNumber(value: i.bitPattern)
        case .real(let r): return r.isFloat32 ? NSNumber(value: Float(r.value)) : NSNumber(value: r.value)
        case .bool(let b): return b
        case .date(let d): return d.date
        case .data(let d): return d
        case .array(let a): return NSMutableArray(array: try a.map { try toFoundation($0) })
        case .dictionary(let d):
            let out = NSMutableDictionary()
            for (k, v) in d { out.setObject(try toFoundation(v), forKey: NSString(string: k)) }
            return out
        case .uid: throw Unsupported(description: "UID has no public Foundation form")
        }
    }

    /// A PlistKit value for a Foundation property-list object.
    public static func fromFoundation(_ any: Any) throws -> PlistValue {
        if let b = any as? Bool, type(of: any) == Bool.self { return .bool(b) }
        if let s = any as? String { return .string(s) }
        if let d = any as? Data { return .data(d) }
        if let d = any as? Date { return .date(PlistDate(d)) }
        if let n = any as? NSNumber {
            switch String(cString: n.objCType) {
            case "c", "B": return .bool(n.boolValue)
            case "f": return .real(PlistReal(n.floatValue))
            case "d": return .real(PlistReal(n.doubleValue))
            case "Q", "L", "I", "S", "C": return .integer(PlistInteger(n.uint64Value))
            default: return .integer(PlistInteger(n.int64Value))
            }
        }
        if let a = any as? [Any] { return .array(try a.map(fromFoundation)) }
        if let d = any as? NSDictionary {
            var out = PlistDictionary()
            for (k, v) in d {
                guard let key = k as? String else { throw Unsupported(description: "non-string key \(k)") }
                out[key] = try fromFoundation(v)
            }
            return .dictionary(out)
        }
        throw Unsupported(description: "unexpected Foundation object \(type(of: any))")
    }
}

import FoundationEssentials
import PlistKit

/// Converts between the `Any` values of the `UserDefaults`-style API and `PlistValue`.
enum ValueConversion {
    /// A property-list value for a Swift value, or nil when it has no property-list form.
    static func plist(from any: Any, urlArchiver: any URLArchiver) -> PlistValue? {
        switch any {
        case let v as PlistValue: return v
        case let v as String: return .string(v)
        case let v as Substring: return .string(String(v))
        case let v as Bool: return .bool(v)
        case let v as Int: return .integer(PlistInteger(v))
        case let v as Int8: return .integer(PlistInteger(Int64(v)))
        case let v as Int16: return .integer(PlistInteger(Int64(v)))
        case let v as Int32: return .integer(PlistInteger(Int64(v)))
        case let v as Int64: return .integer(PlistInteger(v))
        case let v as UInt: return .integer(PlistInteger(UInt64(v)))
        case let v as UInt8: return .integer(PlistInteger(UInt64(v)))
        case let v as UInt16: return .integer(PlistInteger(UInt64(v)))
        case let v as UInt32: return .integer(PlistInteger(UInt64(v)))
        case let v as UInt64: return .integer(PlistInteger(v))
        case let v as Double: return .real(PlistReal(v))
        case let v as Float: return .real(PlistReal(v))
        case let v as Date: return .date(PlistDate(v))
        case let v as PlistDate: return .date(v)
        case let v as Data: return .data(v)
        case let v as [UInt8]: return .data(Data(v))
        case let v as URL: return urlArchiver.archive(v)
        case let v as PlistDictionary: return .dictionary(v)
        case let v as [String: Any]:
            var d = PlistDictionary(minimumCapacity: v.count)
            for key in v.keys.sorted() {
                guard let element = v[key], let converted = plist(from: element, urlArchiver: urlArchiver) else { return nil }
                d[key] = converted
            }
            return .dictionary(d)
        case let v as [Any]:
            var out: [PlistValue] = []
            out.reserveCapacity(v.count)
            for element in v {
                guard let converted = plist(from: element, urlArchiver: urlArchiver) else { return nil }
                out.append(converted)
            }
            return .array(out)
        default: return nil
        }
    }

    /// The Swift value `object(forKey:)` returns: `String`, `Int` (`UInt64` above `Int.max`), `Double`, `Bool`, `Date`,
    /// `Data`, `[Any]`, `[String: Any]`; a UID as `PlistValue`.
    static func any(from value: PlistValue) -> Any {
        switch value {
        case .string(let s): return s
        case .integer(let i):
            if let v = i.int64Value { return Int(v) }
            return i.uint64Value ?? UInt64.max
        case .real(let r): return r.value
        case .bool(let b): return b
        case .date(let d): return d.date
        case .data(let d): return d
        case .array(let a): return a.map(any(from:))
        case .dictionary(let d):
            var out: [String: Any] = [:]
            for (k, v) in d { out[k] = any(from: v) }
            return out
        case .uid: return value
        }
    }
}

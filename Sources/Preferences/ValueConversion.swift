import FoundationEssentials
import PlistKit

/// Converts between the `Any` values of the `UserDefaults`-style API and `PlistValue`.
enum ValueConversion {
    /// A property-list value for a Swift value, or nil when it has no property-list form.
    static func plist(from any: Any, urlArchiver: any URLArchiver) -> PlistValue? {
        if let number = foundationNumber(any) { return number }
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
        // What Apple bridges to NSNumber: CGFloat, Float16, Decimal (a real), wider integers that fit.
        case let v as Decimal: return Double(v.description).map { .real(PlistReal($0)) }
        case let v as any BinaryFloatingPoint: return .real(PlistReal(Double(v)))
        case let v as any BinaryInteger:
            if let n = Int64(exactly: v) { return .integer(PlistInteger(n)) }
            return UInt64(exactly: v).map { .integer(PlistInteger($0)) }
        case let v as Date: return .date(PlistDate(v))
        case let v as PlistDate: return .date(v)
        case let v as Data: return .data(v)
        // No `[UInt8]` case: an empty array of anything (and Foundation's arrays of small numbers) would cast to it and
        // become data; UserDefaults stores `[UInt8]` as an array of numbers too.
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

    /// Foundation's NSNumber (from JSONSerialization, PropertyListSerialization, NSArray…) casts to `Bool` and to
    /// `Int64` whatever it holds, so `1` would become `true` and `1.0` an integer. Its Boolean subclass is a Boolean;
    /// any other NSNumber (NSDecimalNumber too) is an integer or a real by its text, as corelibs prints `1` and
    /// `1.0`. Found by class name: this module does not import Foundation. Nil for anything that is no NSNumber.
    private static func foundationNumber(_ any: Any) -> PlistValue? {
        guard type(of: any) is AnyClass else { return nil }
        let name = String(reflecting: type(of: any))
        if name == "Foundation.__NSCFBoolean" { return (any as? Bool).map { .bool($0) } }
        var mirror: Mirror? = Mirror(reflecting: any)
        var isNumber = false
        while let m = mirror, !isNumber {
            isNumber = String(reflecting: m.subjectType) == "Foundation.NSNumber"
            mirror = m.superclassMirror
        }
        guard isNumber else { return nil }
        let text = String(describing: any)
        let looksReal = text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" || $0 == "n" || $0 == "N" })
        if !looksReal {
            if let v = any as? Int64 { return .integer(PlistInteger(v)) }
            if let v = any as? UInt64 { return .integer(PlistInteger(v)) }
        }
        if let v = any as? Double { return .real(PlistReal(v)) }
        return Double(text).map { .real(PlistReal($0)) }
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

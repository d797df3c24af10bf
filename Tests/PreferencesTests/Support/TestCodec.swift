import Foundation
import PlistKit
@testable import Preferences

/// The codec the store tests use: the library's default, PlistKit's.
enum TestCodec {
    static var current: any PreferencesCodec { PlistKitCodec() }
}

/// Reads and writes domain files with Foundation's `PropertyListSerialization`.
struct FoundationCodec: PreferencesCodec {
    struct Unsupported: Error {}

    func decode(_ bytes: [UInt8]) throws -> PlistValue {
        let object = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
        return try Self.fromFoundation(object)
    }

    func encode(_ value: PlistValue, format: PlistFormat) throws -> [UInt8] {
        let fmt: PropertyListSerialization.PropertyListFormat = format == .xml ? .xml : .binary
        return Array(try PropertyListSerialization.data(fromPropertyList: try Self.toFoundation(value), format: fmt, options: 0))
    }

    static func toFoundation(_ value: PlistValue) throws -> Any {
        switch value {
        case .string(let s): return NSString(string: s)
        case .integer(let i):
            if let v = i.int64Value { return NSNumber(value: v) }
            return NSNumber(value: i.bitPattern)
        case .real(let r): return NSNumber(value: r.value)
        case .bool(let b): return b
        case .date(let d): return d.date
        case .data(let d): return d
        case .array(let a): return NSMutableArray(array: try a.map { try toFoundation($0) })
        case .dictionary(let d):
            let out = NSMutableDictionary()
            for (k, v) in d { out.setObject(try toFoundation(v), forKey: NSString(string: k)) }
            return out
        case .uid: throw Unsupported()
        }
    }

    static func fromFoundation(_ any: Any) throws -> PlistValue {
        if let b = any as? Bool, type(of: any) == Bool.self { return .bool(b) }
        if let s = any as? String { return .string(s) }
        if let d = any as? Data { return .data(d) }
        if let d = any as? Date { return .date(PlistDate(d)) }
        if let n = any as? NSNumber {
            switch String(cString: n.objCType) {
            case "c", "B": return .bool(n.boolValue)
            case "f", "d": return .real(PlistReal(n.doubleValue))
            case "Q", "L", "I", "S", "C": return .integer(PlistInteger(n.uint64Value))
            default: return .integer(PlistInteger(n.int64Value))
            }
        }
        if let a = any as? [Any] { return .array(try a.map(fromFoundation)) }
        if let d = any as? NSDictionary {
            var out = PlistDictionary()
            for (k, v) in d {
                guard let key = k as? String else { throw Unsupported() }
                out[key] = try fromFoundation(v)
            }
            return .dictionary(out)
        }
        throw Unsupported()
    }
}

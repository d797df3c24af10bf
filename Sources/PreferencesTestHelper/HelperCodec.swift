import Foundation
import PlistKit
import Preferences

/// Foundation's `PropertyListSerialization` as a `PreferencesCodec`, used only while PlistKit's codecs are absent.
struct HelperCodec: PreferencesCodec {
    struct Unsupported: Error {}

    static let plistKitWorks: Bool = {
        let sample: PlistValue = ["k": 1]
        // The binary writer itself (PlistKitCodec falls back to XML without it).
        guard let bytes = try? PropertyList.writeBytes(sample, format: .binary), bytes.starts(with: Array("bplist00".utf8)),
            let back = try? PlistKitCodec().decode(bytes)
        else { return false }
        return back == sample
    }()

    static let plistKitXMLWorks: Bool = {
        let sample: PlistValue = ["k": 1]
        guard let bytes = try? PropertyList.writeBytes(sample, format: .xml) else { return false }
        return (try? PlistKitCodec().decode(bytes)) == sample
    }()

    func decode(_ bytes: [UInt8]) throws -> PlistValue {
        try Self.from(PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil))
    }

    func encode(_ value: PlistValue, format: PlistFormat) throws -> [UInt8] {
        Array(try PropertyListSerialization.data(
            fromPropertyList: try Self.to(value), format: format == .xml ? .xml : .binary, options: 0))
    }

    static func to(_ value: PlistValue) throws -> Any {
        switch value {
        case .string(let s): return s
        case .integer(let i): return i.int64Value.map { NSNumber(value: $0) } ?? NSNumber(value: i.bitPattern)
        case .real(let r): return NSNumber(value: r.value)
        case .bool(let b): return b
        case .date(let d): return d.date
        case .data(let d): return d
        case .array(let a): return try a.map(to)
        case .dictionary(let d):
            let out = NSMutableDictionary()
            for (k, v) in d { out.setObject(try to(v), forKey: NSString(string: k)) }
            return out
        case .uid: throw Unsupported()
        }
    }

    static func from(_ any: Any) throws -> PlistValue {
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
        if let a = any as? [Any] { return .array(try a.map(from)) }
        if let d = any as? NSDictionary {
            var out = PlistDictionary()
            for (k, v) in d {
                guard let key = k as? String else { throw Unsupported() }
                out[key] = try from(v)
            }
            return .dictionary(out)
        }
        throw Unsupported()
    }
}

import Foundation
@testable import PlistKit

/// A minimal JSON tree for test fixtures (decoded with Foundation's `JSONSerialization`, an independent parser).
enum JSONValue: Sendable, Equatable {
    case null, bool(Bool), number(Double), string(String), array([JSONValue]), object([(String, JSONValue)])

    static func == (a: JSONValue, b: JSONValue) -> Bool { String(describing: a) == String(describing: b) }

    static func parse(_ data: Data) throws -> JSONValue {
        try from(JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]))
    }

    static func from(_ any: Any) throws -> JSONValue {
        if any is NSNull { return .null }
        if let b = any as? Bool, type(of: any) == Bool.self { return .bool(b) }
        if let s = any as? String { return .string(s) }
        if let n = any as? NSNumber {
            if String(cString: n.objCType) == "c" { return .bool(n.boolValue) }
            return .number(n.doubleValue)
        }
        if let a = any as? [Any] { return .array(try a.map(from)) }
        if let d = any as? [String: Any] { return .object(try d.map { ($0.key, try from($0.value)) }) }
        struct Bad: Error {}
        throw Bad()
    }

    subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o.first { $0.0 == key }?.1 }
        return nil
    }
    var string: String? { if case .string(let s) = self { return s } else { return nil } }
    var number: Double? { if case .number(let n) = self { return n } else { return nil } }
    var array: [JSONValue]? { if case .array(let a) = self { return a } else { return nil } }
}

/// Decodes the corpus manifest's typed-JSON value notation (see `Corpus/README.md`).
enum TypedJSON {
    struct Bad: Error, CustomStringConvertible { var description: String }

    static func decode(_ j: JSONValue) throws -> PlistValue {
        guard case .object(let o) = j, o.count == 1 else { throw Bad(description: "not a typed value: \(j)") }
        let (tag, v) = o[0]
        switch (tag, v) {
        case ("string", .string(let s)): return .string(s)
        case ("integer", .string(let s)):
            if let i = Int64(s) { return .integer(PlistInteger(i)) }
            if let u = UInt64(s) { return .integer(PlistInteger(u)) }
            throw Bad(description: "integer \(s)")
        case ("integer", .number(let n)): return .integer(PlistInteger(Int64(n)))
        case ("real", .number(let n)): return .real(PlistReal(n))
        case ("real", .string(let s)):
            switch s {
            case "nan": return .real(PlistReal(Double.nan))
            case "inf": return .real(PlistReal(Double.infinity))
            case "-inf": return .real(PlistReal(-Double.infinity))
            case "-0": return .real(PlistReal(-0.0))
            default:
                guard let d = Double(s) else { throw Bad(description: "real \(s)") }
                return .real(PlistReal(d))
            }
        case ("float32", .number(let n)): return .real(PlistReal(Float(n)))
        case ("bool", .bool(let b)): return .bool(b)
        case ("date", .number(let n)): return .date(PlistDate(secondsSinceReferenceDate: n))
        case ("date", .string(let s)):
            let f = ISO8601DateFormatter()
            guard let d = f.date(from: s) else { throw Bad(description: "date \(s)") }
            return .date(PlistDate(d))
        case ("data", .string(let s)):
            guard let d = Data(base64Encoded: s) else { throw Bad(description: "data \(s)") }
            return .data(d)
        case ("uid", .number(let n)): return .uid(UID(UInt64(n)))
        case ("array", .array(let a)): return .array(try a.map(decode))
        case ("dict", .array(let pairs)):
            var d = PlistDictionary()
            for p in pairs {
                guard case .array(let kv) = p, kv.count == 2, let k = kv[0].string else { throw Bad(description: "dict pair \(p)") }
                d[k] = try decode(kv[1])
            }
            return .dictionary(d)
        default: throw Bad(description: "unknown typed value \(tag)")
        }
    }
}

/// One typed item of Apple's `book` layout.
public indirect enum BookValue: Sendable, Equatable {
    case string(String)
    case data([UInt8])
    /// A signed integer with its CFNumberType subtype (1 = SInt8, 2 = SInt16, 3 = SInt32, 4 = SInt64).
    case integer(Int64, subtype: UInt8)
    /// A float with its CFNumberType subtype (5 = Float32, 6 = Float64).
    case real(Double, subtype: UInt8)
    /// Seconds since 2001-01-01T00:00:00Z.
    case date(Double)
    case bool(Bool)
    case array([BookValue])
    case dictionary([BookPair])
    case uuid([UInt8])
    /// An absolute URL string.
    case url(String)
    /// A URL relative to a base URL item.
    case relativeURL(base: BookValue, relative: BookValue)
    case null
    /// An item of a type this library does not interpret, kept as raw bytes.
    case unknown(type: UInt32, bytes: [UInt8])

    /// SInt64 item.
    public static func int64(_ v: Int64) -> BookValue { .integer(v, subtype: 4) }
    /// SInt32 item.
    public static func int32(_ v: Int32) -> BookValue { .integer(Int64(v), subtype: 3) }

    public var stringValue: String? {
        switch self {
        case .string(let s), .url(let s): return s
        default: return nil
        }
    }
    public var integerValue: Int64? {
        if case .integer(let v, _) = self { return v }
        return nil
    }
    public var dataValue: [UInt8]? {
        if case .data(let d) = self { return d }
        return nil
    }
    public var arrayValue: [BookValue]? {
        if case .array(let a) = self { return a }
        return nil
    }
    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }
    public var doubleValue: Double? {
        switch self {
        case .real(let d, _), .date(let d): return d
        case .integer(let v, _): return Double(v)
        default: return nil
        }
    }
}

/// A key/value pair of a dictionary item.
public struct BookPair: Sendable, Equatable {
    public var key: BookValue
    public var value: BookValue
    public init(key: BookValue, value: BookValue) {
        self.key = key
        self.value = value
    }
}

/// A TOC key: Apple's numeric keys, or a string (stored as an item, flagged by the top bit).
public enum BookKey: Sendable, Hashable, CustomStringConvertible {
    case numeric(UInt32)
    case string(String)

    public var description: String {
        switch self {
        case .numeric(let k): return "0x" + String(k, radix: 16)
        case .string(let s): return "\"\(s)\""
        }
    }
}

import FoundationEssentials

/// One property-list value: the single model every reader produces and every writer consumes.
///
/// Values are immutable value types. Equality is exact: strings compare by Unicode scalars (not canonical
/// equivalence), reals and dates by their bit patterns (so `-0.0 != 0.0` and a NaN equals the same NaN).
public enum PlistValue: Sendable, Hashable {
    case string(String)
    case integer(PlistInteger)
    case real(PlistReal)
    case bool(Bool)
    case date(PlistDate)
    case data(Data)
    case array([PlistValue])
    case dictionary(PlistDictionary)
    case uid(UID)

    /// The name of this value's type as `plutil -type` prints it.
    public var typeName: String {
        switch self {
        case .string: return "string"
        case .integer: return "integer"
        case .real: return "float"
        case .bool: return "bool"
        case .date: return "date"
        case .data: return "data"
        case .array: return "array"
        case .dictionary: return "dictionary"
        case .uid: return "uid"
        }
    }

    /// `typeName` after its article, for messages: "an integer", "an array", "a uid".
    public var typeNameWithArticle: String {
        switch self {
        case .integer, .array: return "an " + typeName
        default: return "a " + typeName
        }
    }

    public static func == (lhs: PlistValue, rhs: PlistValue) -> Bool {
        switch (lhs, rhs) {
        case let (.string(a), .string(b)): return a.utf8.elementsEqual(b.utf8)
        case let (.integer(a), .integer(b)): return a == b
        case let (.real(a), .real(b)): return a == b
        case let (.bool(a), .bool(b)): return a == b
        case let (.date(a), .date(b)): return a == b
        case let (.data(a), .data(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.dictionary(a), .dictionary(b)): return a == b
        case let (.uid(a), .uid(b)): return a == b
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .string(let s):
            hasher.combine(0 as UInt8)
            hasher.combine(ExactKey(s))
        case .integer(let i): hasher.combine(1 as UInt8); hasher.combine(i)
        case .real(let r): hasher.combine(2 as UInt8); hasher.combine(r)
        case .bool(let b): hasher.combine(3 as UInt8); hasher.combine(b)
        case .date(let d): hasher.combine(4 as UInt8); hasher.combine(d)
        case .data(let d): hasher.combine(5 as UInt8); hasher.combine(d)
        case .array(let a): hasher.combine(6 as UInt8); hasher.combine(a)
        case .dictionary(let d): hasher.combine(7 as UInt8); hasher.combine(d)
        case .uid(let u): hasher.combine(8 as UInt8); hasher.combine(u)
        }
    }
}

// MARK: - Convenience accessors

extension PlistValue {
    /// The string, if this is a `.string`.
    public var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    /// The integer, if this is an `.integer`.
    public var integerValue: PlistInteger? { if case .integer(let i) = self { return i } else { return nil } }
    /// The real, if this is a `.real`.
    public var realValue: PlistReal? { if case .real(let r) = self { return r } else { return nil } }
    /// The Boolean, if this is a `.bool`.
    public var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    /// The date, if this is a `.date`.
    public var dateValue: PlistDate? { if case .date(let d) = self { return d } else { return nil } }
    /// The bytes, if this is `.data`.
    public var dataValue: Data? { if case .data(let d) = self { return d } else { return nil } }
    /// The elements, if this is an `.array`.
    public var arrayValue: [PlistValue]? { if case .array(let a) = self { return a } else { return nil } }
    /// The dictionary, if this is a `.dictionary`.
    public var dictionaryValue: PlistDictionary? { if case .dictionary(let d) = self { return d } else { return nil } }
    /// The UID, if this is a `.uid`.
    public var uidValue: UID? { if case .uid(let u) = self { return u } else { return nil } }

    /// Looks up a dictionary key (exact scalar comparison); `nil` when this is not a dictionary or the key is absent.
    public subscript(key: String) -> PlistValue? {
        if case .dictionary(let d) = self { return d[key] }
        return nil
    }

    /// Looks up an array element; `nil` when this is not an array or the index is out of range.
    public subscript(index: Int) -> PlistValue? {
        if case .array(let a) = self, a.indices.contains(index) { return a[index] }
        return nil
    }
}

// MARK: - Literals

extension PlistValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(PlistInteger(value)) }
    public init(floatLiteral value: Double) { self = .real(PlistReal(value)) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: PlistValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, PlistValue)...) {
        var d = PlistDictionary(minimumCapacity: elements.count)
        for (k, v) in elements { d[k] = v }
        self = .dictionary(d)
    }
}

import FoundationEssentials

/// The standard types that have a native plist form and bypass `encode(to:)`/`init(from:)`. Classifying by a
/// metadata comparison avoids dynamic casts and the `Optional<T>` metadata a `T?`-returning helper would need.
enum NativeType: UInt8 {
    case none, string, int, double, bool, date, data, plistValue
    case int64, uint64, float, url, uid, int32, uint32, uint, int16, uint16, int8, uint8, plistDictionary
    /// Arrays of the commonest scalars, converted in one loop instead of an unkeyed container per array.
    case stringArray, intArray, doubleArray, boolArray

    @inline(__always) static func of<T>(_ type: T.Type) -> NativeType {
        if T.self == String.self { return .string }
        if T.self == Int.self { return .int }
        if T.self == Double.self { return .double }
        if T.self == Bool.self { return .bool }
        if T.self == Date.self { return .date }
        if T.self == Data.self { return .data }
        if T.self == PlistValue.self { return .plistValue }
        return rare(type)
    }

    private static func rare<T>(_ type: T.Type) -> NativeType {
        if T.self == Int64.self { return .int64 }
        if T.self == UInt64.self { return .uint64 }
        if T.self == Float.self { return .float }
        if T.self == URL.self { return .url }
        if T.self == UID.self { return .uid }
        if T.self == Int32.self { return .int32 }
        if T.self == UInt32.self { return .uint32 }
        if T.self == UInt.self { return .uint }
        if T.self == Int16.self { return .int16 }
        if T.self == UInt16.self { return .uint16 }
        if T.self == Int8.self { return .int8 }
        if T.self == UInt8.self { return .uint8 }
        if T.self == PlistDictionary.self { return .plistDictionary }
        // Generic metadata (`[String].self`) costs a runtime cache lookup per evaluation in this unspecialized
        // code; compare against identities looked up once.
        let id = ObjectIdentifier(T.self)
        if id == Self.arrayTypes.string { return .stringArray }
        if id == Self.arrayTypes.int { return .intArray }
        if id == Self.arrayTypes.double { return .doubleArray }
        if id == Self.arrayTypes.bool { return .boolArray }
        return .none
    }

    private static let arrayTypes = (
        string: ObjectIdentifier([String].self), int: ObjectIdentifier([Int].self),
        double: ObjectIdentifier([Double].self), bool: ObjectIdentifier([Bool].self))
}

/// `value` as `U`; only called after checking that `T` is `U`, so this is a plain copy without a dynamic cast.
@inline(__always) func reinterpret<T, U>(_ value: T, as type: U.Type) -> U {
    withUnsafePointer(to: value) { UnsafeRawPointer($0).load(as: U.self) }
}

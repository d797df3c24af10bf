/// A property-list real number that keeps its exact bits (−0.0 and NaN payloads survive a round trip) and whether it
/// came from, or should be written as, a 32-bit float.
///
/// Equality and hashing use the bit pattern of the `Double` value; the width is a writing hint and not part of equality.
public struct PlistReal: Sendable, Hashable, CustomStringConvertible, ExpressibleByFloatLiteral {
    /// The value.
    public let value: Double
    /// True when the value is exactly representable as `Float` and was read from (or should be written as) a
    /// 4-byte binary real.
    public let isFloat32: Bool

    /// A 64-bit real.
    @inlinable public init(_ value: Double) { self.value = value; isFloat32 = false }
    /// A 32-bit real; written as a 4-byte real in binary plists.
    @inlinable public init(_ value: Float) { self.value = Double(value); isFloat32 = true }
    public init(floatLiteral value: Double) { self.init(value) }

    public static func == (lhs: PlistReal, rhs: PlistReal) -> Bool {
        lhs.value.bitPattern == rhs.value.bitPattern
    }
    public func hash(into hasher: inout Hasher) { hasher.combine(value.bitPattern) }

    public var description: String { value.description }
}

/// A property-list integer: any value in −2^63 … 2^64−1, without loss.
///
/// Values that fit in `Int64` are stored as such; only values above `Int64.max` use the unsigned form, so every
/// number has exactly one representation and `==` is numeric equality.
public struct PlistInteger: Sendable, Hashable, Comparable, CustomStringConvertible, ExpressibleByIntegerLiteral {
    // value = isBig ? UInt64(bits) : Int64(bitPattern: bits); isBig only when value > Int64.max.
    @usableFromInline let bits: UInt64
    @usableFromInline let isBig: Bool

    /// Creates an integer from a signed value.
    @inlinable public init(_ value: Int64) { bits = UInt64(bitPattern: value); isBig = false }

    /// Creates an integer from an unsigned value.
    @inlinable public init(_ value: UInt64) {
        bits = value
        isBig = value > UInt64(Int64.max)
    }

    /// Creates an integer from a platform `Int`.
    @inlinable public init(_ value: Int) { self.init(Int64(value)) }

    public init(integerLiteral value: Int64) { self.init(value) }

    /// Creates an integer from a sign and a magnitude; `nil` when the result is outside −2^63 … 2^64−1.
    public init?(negative: Bool, magnitude: UInt64) {
        if negative {
            if magnitude == 0 { self.init(Int64(0)); return }
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            self.init(Int64(bitPattern: 0 &- magnitude))
        } else {
            self.init(magnitude)
        }
    }

    /// The value as `Int64`, or `nil` if it is above `Int64.max`.
    @inlinable public var int64Value: Int64? { isBig ? nil : Int64(bitPattern: bits) }
    /// The value as `UInt64`, or `nil` if it is negative.
    @inlinable public var uint64Value: UInt64? { (isBig || Int64(bitPattern: bits) >= 0) ? bits : nil }
    /// Whether the value is below zero.
    @inlinable public var isNegative: Bool { !isBig && Int64(bitPattern: bits) < 0 }
    /// Whether the value needs more than 63 bits (it is above `Int64.max`).
    @inlinable public var exceedsInt64: Bool { isBig }
    /// The raw 64-bit pattern: the two's complement of a negative value, else the value itself.
    @inlinable public var bitPattern: UInt64 { bits }
    /// The value as a `Double` (rounded when it has more than 53 significant bits).
    public var doubleValue: Double { isBig ? Double(bits) : Double(Int64(bitPattern: bits)) }

    /// Decimal digits, with a leading `-` for negative values.
    public var description: String { isBig ? String(bits) : String(Int64(bitPattern: bits)) }

    public static func < (lhs: PlistInteger, rhs: PlistInteger) -> Bool {
        switch (lhs.isBig, rhs.isBig) {
        case (false, false): return Int64(bitPattern: lhs.bits) < Int64(bitPattern: rhs.bits)
        case (true, true): return lhs.bits < rhs.bits
        case (false, true): return true
        case (true, false): return false
        }
    }
}

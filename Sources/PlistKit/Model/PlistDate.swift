import FoundationEssentials

/// A property-list date: seconds since 2001-01-01T00:00:00Z (the Core Foundation reference date) as a `Double`.
///
/// Equality is by bit pattern, like `PlistReal`.
public struct PlistDate: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Seconds since 2001-01-01T00:00:00Z.
    public let secondsSinceReferenceDate: Double

    /// Creates a date from seconds since 2001-01-01T00:00:00Z.
    @inlinable public init(secondsSinceReferenceDate: Double) {
        self.secondsSinceReferenceDate = secondsSinceReferenceDate
    }

    /// Creates a date from a Foundation `Date`.
    public init(_ date: Date) { self.init(secondsSinceReferenceDate: date.timeIntervalSinceReferenceDate) }

    /// The same instant as a Foundation `Date`.
    public var date: Date { Date(timeIntervalSinceReferenceDate: secondsSinceReferenceDate) }

    public static func == (lhs: PlistDate, rhs: PlistDate) -> Bool {
        lhs.secondsSinceReferenceDate.bitPattern == rhs.secondsSinceReferenceDate.bitPattern
    }
    public func hash(into hasher: inout Hasher) { hasher.combine(secondsSinceReferenceDate.bitPattern) }
    public static func < (lhs: PlistDate, rhs: PlistDate) -> Bool {
        lhs.secondsSinceReferenceDate < rhs.secondsSinceReferenceDate
    }

    /// ISO 8601 text in UTC, as the XML format writes it (`2024-02-01T20:43:14Z`).
    public var description: String { PlistDateText.xmlString(self) }
}

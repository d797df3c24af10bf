/// A keyed-archiver object reference (`CF$UID`): binary marker `0x8n`, a one-key `CF$UID` dictionary in XML.
public struct UID: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The referenced object index.
    public let value: UInt64

    @inlinable public init(_ value: UInt64) { self.value = value }

    public static func < (lhs: UID, rhs: UID) -> Bool { lhs.value < rhs.value }
    public var description: String { "UID(\(value))" }
}

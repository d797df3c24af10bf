/// A `String` wrapper whose equality and hash use the exact Unicode scalars (UTF-8 bytes), not canonical
/// equivalence: `"é"` (U+00E9) and `"e\u{301}"` are different keys, as in Core Foundation.
@usableFromInline
struct ExactKey: Hashable, Sendable {
    @usableFromInline let string: String

    @inlinable init(_ string: String) { self.string = string }

    @inlinable static func == (lhs: ExactKey, rhs: ExactKey) -> Bool {
        exactKeyBytesEqual(lhs.string, rhs.string)
    }

    @inlinable func hash(into hasher: inout Hasher) {
        var s = string
        s.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(s.utf8.count)
    }
}

/// String orderings used by writers.
public enum PlistKeyOrder {
    /// Core Foundation's `CFStringCompare` with no flags: lexicographic by UTF-16 code units.
    ///
    /// This differs from Unicode scalar (UTF-8 byte) order only for characters above U+FFFF against U+E000…U+FFFF.
    public static func utf16Less(_ a: String, _ b: String) -> Bool {
        var ia = a.utf8.makeIterator()
        var ib = b.utf8.makeIterator()
        // Fast path: while both are ASCII, byte order is code-unit order.
        while true {
            guard let x = ia.next() else { return ib.next() != nil }
            guard let y = ib.next() else { return false }
            if x == y { continue }
            if x < 0x80 && y < 0x80 { return x < y }
            break
        }
        return a.utf16.lexicographicallyPrecedes(b.utf16)
    }

    /// Unicode scalar order (what Python and swift-foundation's writers use).
    public static func scalarLess(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }
}

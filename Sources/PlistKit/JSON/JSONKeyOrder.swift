/// The key order of Apple `plutil -convert json -r`, which sorts with `NSString.compare` and
/// `[.numeric, .caseInsensitive, .forcedOrdering]` in the system locale (ICU root collation).
///
/// Modelled as a three-level comparison: first the base characters — controls ignored, then whitespace,
/// punctuation and symbols in root collation order, digit runs by numeric value, letters without case or accent
/// (`æ`/`œ` as `ae`/`oe`, `þ` after `z`); then accents (none < acute < grave < circumflex < ring < diaeresis < tilde
/// < stroke < cedilla); then case (lowercase first); then the shorter key; then UTF-16 order.
///
/// Checked against `JSONSerialization` in the tests: exact for ASCII keys and for keys with one Latin-1 letter
/// after the first character. Documented differences: Core Foundation hands only some runs of a key to ICU, so keys
/// that start with or hold several accented letters can order differently; `ß` and characters outside Latin-1 are
/// not modelled and sort after all others by code point (ICU's tables order Greek, Cyrillic, CJK, emoji
/// differently).
enum JSONKeyOrder: KeyOrdering {
    static var sorts: Bool { true }

    // Root-collation rank of each ASCII byte; 0 = ignorable (controls), letters share a rank per case pair.
    private static let rank: [UInt16] = {
        var t = [UInt16](repeating: 0, count: 128)
        let ordered = "\t\n\u{0B}\u{0C}\r _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"
        var r: UInt16 = 1
        for u in ordered.utf8 {
            t[Int(u)] = r
            r += 1
        }
        // Digits are handled as numbers; give them one rank below letters for safety.
        for d in 0x30...0x39 { t[d] = r }
        r += 1
        for c in 0..<26 {
            t[0x61 + c] = r
            t[0x41 + c] = r
            r += 1
        }
        return t
    }()

    /// Rank of þ/Þ: right after z.
    private static let thornRank: UInt32 = UInt32(rank[0x7A]) + 1

    // Accent (secondary) weights, in root collation order.
    private static let acute: UInt8 = 1, grave: UInt8 = 2, circumflex: UInt8 = 3, ring: UInt8 = 4, diaeresis: UInt8 = 5,
        tilde: UInt8 = 6, stroke: UInt8 = 7, cedilla: UInt8 = 8, eth: UInt8 = 9

    /// U+00C0…U+00FF as (base ASCII letter, accent); base 0 = handled specially or not a letter.
    private static let latin1: [(UInt8, UInt8)] = {
        let a = UInt8(ascii: "a"), c = UInt8(ascii: "c"), d = UInt8(ascii: "d"), e = UInt8(ascii: "e"),
            i = UInt8(ascii: "i"), n = UInt8(ascii: "n"), o = UInt8(ascii: "o"), u = UInt8(ascii: "u"),
            y = UInt8(ascii: "y")
        let upper: [(UInt8, UInt8)] = [
            (a, grave), (a, acute), (a, circumflex), (a, tilde), (a, diaeresis), (a, ring), (0, 0), (c, cedilla),  // C0–C7
            (e, grave), (e, acute), (e, circumflex), (e, diaeresis), (i, grave), (i, acute), (i, circumflex), (i, diaeresis),  // C8–CF
            (d, eth), (n, tilde), (o, grave), (o, acute), (o, circumflex), (o, tilde), (o, diaeresis), (0, 0),  // D0–D7
            (o, stroke), (u, grave), (u, acute), (u, circumflex), (u, diaeresis), (y, acute), (0, 0), (0, 0),  // D8–DF
        ]
        var lower = upper
        lower[0x1F] = (y, diaeresis)  // ÿ (U+00FF) where upper has ß
        return upper + lower
    }()

    /// Whether `a` sorts before `b` in plutil's order.
    static func less(_ a: String, _ b: String) -> Bool {
        let r = a.utf8.withContiguousStorageIfAvailable { pa in
            b.utf8.withContiguousStorageIfAvailable { pb in compare(pa, pb) }
        }
        if let r, let r { return r < 0 }
        var x = a, y = b
        return x.withUTF8 { pa in y.withUTF8 { pb in compare(pa, pb) } } < 0
    }

    /// A collation element's primary part: a weight, or a number (a digit run) compared by value.
    private enum Primary {
        case weight(UInt32)
        case number(UnsafeBufferPointer<UInt8>)  // significant digits, no leading zeros (empty = 0)
        case end
    }

    /// One collation element: primary, accent (secondary) and case (tertiary: 0 lower, 1 upper, 2/3 the same for
    /// an expanded ligature).
    private struct Element {
        var primary: Primary
        var secondary: UInt8 = 0
        var tertiary: UInt8 = 0
    }

    private struct Cursor {
        let s: UnsafeBufferPointer<UInt8>
        let rank: UnsafeBufferPointer<UInt16>
        var i = 0
        var pending: Element? = nil  // second half of an expansion (æ → a e)

        init(_ s: UnsafeBufferPointer<UInt8>, _ rank: UnsafeBufferPointer<UInt16>) {
            self.s = s
            self.rank = rank
        }

        func letter(_ ascii: UInt8) -> Primary { .weight(UInt32(rank[Int(ascii)])) }

        mutating func next() -> Element {
            if let p = pending {
                pending = nil
                return p
            }
            while i < s.count {
                let c = s[i]
                if c < 0x80 {
                    if c >= 0x30 && c <= 0x39 {
                        var j = i
                        while j < s.count && s[j] == 0x30 { j += 1 }
                        let start = j
                        while j < s.count && s[j] >= 0x30 && s[j] <= 0x39 { j += 1 }
                        i = j
                        return Element(primary: .number(UnsafeBufferPointer(rebasing: s[start..<j])))
                    }
                    let r = rank[Int(c)]
                    i += 1
                    if r == 0 { continue }
                    return Element(primary: .weight(UInt32(r)), tertiary: c >= 0x41 && c <= 0x5A ? 1 : 0)
                }
                var scalar = UInt32(c)
                var len = 1
                if c >= 0xF0 { scalar = UInt32(c & 0x07); len = 4 } else if c >= 0xE0 { scalar = UInt32(c & 0x0F); len = 3 } else if c >= 0xC0 { scalar = UInt32(c & 0x1F); len = 2 }
                var k = 1
                while k < len && i + k < s.count {
                    scalar = scalar << 6 | UInt32(s[i + k] & 0x3F)
                    k += 1
                }
                i += len
                if let e = latin(scalar) { return e }
                // Not modelled: after every modelled character, in code-point order.
                return Element(primary: .weight(0x1000 + scalar))
            }
            return Element(primary: .end)
        }

        /// Latin-1 letters and the two ligatures œ/Œ; nil for anything else.
        mutating func latin(_ scalar: UInt32) -> Element? {
            switch scalar {
            case 0xC6, 0xE6:  // Æ æ: a e, tertiary variant
                let t: UInt8 = scalar == 0xC6 ? 3 : 2
                pending = Element(primary: letter(0x65), tertiary: t)
                return Element(primary: letter(0x61), tertiary: t)
            case 0x152, 0x153:  // Œ œ: o e
                let t: UInt8 = scalar == 0x152 ? 3 : 2
                pending = Element(primary: letter(0x65), tertiary: t)
                return Element(primary: letter(0x6F), tertiary: t)
            case 0xDE, 0xFE:  // Þ þ: a letter after z
                return Element(primary: .weight(JSONKeyOrder.thornRank), tertiary: scalar == 0xDE ? 1 : 0)
            case 0xC0...0xFF:
                let (base, accent) = JSONKeyOrder.latin1[Int(scalar - 0xC0)]
                guard base != 0 else { return nil }
                return Element(primary: letter(base), secondary: accent, tertiary: scalar < 0xE0 ? 1 : 0)
            default:
                return nil
            }
        }
    }

    private static func compareNumbers(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        if a.count != b.count { return a.count < b.count ? -1 : 1 }
        for k in 0..<a.count where a[k] != b[k] { return a[k] < b[k] ? -1 : 1 }
        return 0
    }

    /// Negative, zero or positive as `a` sorts before, with or after `b`.
    static func compare(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Int {
        rank.withUnsafeBufferPointer { compare(a, b, $0) }
    }

    private static func compare(
        _ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>, _ rank: UnsafeBufferPointer<UInt16>
    ) -> Int {
        let digitRank = UInt32(rank[0x30])
        var x = Cursor(a, rank), y = Cursor(b, rank)
        var accentOrder = 0
        var caseOrder = 0
        while true {
            let ea = x.next()
            let eb = y.next()
            switch (ea.primary, eb.primary) {
            case (.end, .end):
                if accentOrder != 0 { return accentOrder }
                if caseOrder != 0 { return caseOrder }
                if a.count != b.count { return a.count < b.count ? -1 : 1 }
                return KeySorting.utf16Less(a, b) ? -1 : (KeySorting.utf16Less(b, a) ? 1 : 0)
            case (.end, _): return -1
            case (_, .end): return 1
            case let (.number(na), .number(nb)):
                let c = compareNumbers(na, nb)
                if c != 0 { return c }
            case (.number, .weight(let w)): return digitRank < w ? -1 : 1
            case (.weight(let w), .number): return w < digitRank ? -1 : 1
            case let (.weight(wa), .weight(wb)):
                if wa != wb { return wa < wb ? -1 : 1 }
            }
            if accentOrder == 0 && ea.secondary != eb.secondary { accentOrder = ea.secondary < eb.secondary ? -1 : 1 }
            if caseOrder == 0 && ea.tertiary != eb.tertiary { caseOrder = ea.tertiary < eb.tertiary ? -1 : 1 }
        }
    }
}

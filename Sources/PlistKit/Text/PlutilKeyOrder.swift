/// The order in which `plutil -p` and `plutil -extract … raw` list dictionary keys.
///
/// Apple's tool sorts with `compare(options: [.numeric, .caseInsensitive, .forcedOrdering], locale: root)`, which is
/// ICU root-locale collation with numeric digit runs. This is a compact approximation of that collation that agrees
/// with it on ASCII and Latin-1 letters:
/// - primary level: white space < punctuation and symbols (in ICU's order `_-,;:!?.'"()[]{}@*/\&#%`^+<=>|~$`, other
///   punctuation after `%`, other symbols after `~`, other currency after `$`) < digit runs (compared by numeric
///   value, leading zeros ignored) < Latin letters (by base letter) < other letters (by lower-case scalar value,
///   which keeps scripts together: Greek < Cyrillic < Han); control and format characters (U+FEFF, zero-width
///   space, soft hyphen) are ignorable;
/// - secondary level: accents (`a` < `á` < `à` < `â` < `å` < `ä` < `ã`);
/// - tertiary level: case (lower before upper);
/// - forced ordering: shorter first, then UTF-16 code units, so distinct keys never compare equal.
public enum PlutilKeyOrder {
    /// Whether `a` sorts before `b`.
    public static func less(_ a: String, _ b: String) -> Bool {
        if a.utf8.elementsEqual(b.utf8) { return false }
        let ka = SortKey(a), kb = SortKey(b)
        if ka.primary != kb.primary { return ka.primary.lexicographicallyPrecedes(kb.primary) }
        if ka.secondary != kb.secondary { return ka.secondary.lexicographicallyPrecedes(kb.secondary) }
        if ka.tertiary != kb.tertiary { return ka.tertiary.lexicographicallyPrecedes(kb.tertiary) }
        let ca = a.utf16.count, cb = b.utf16.count
        if ca != cb { return ca < cb }
        return a.utf16.lexicographicallyPrecedes(b.utf16)
    }

    /// Keys sorted with `less`.
    public static func sorted(_ keys: [String]) -> [String] {
        let decorated = keys.map { (SortKey($0), $0) }
        return decorated.sorted { x, y in
            if x.0.primary != y.0.primary { return x.0.primary.lexicographicallyPrecedes(y.0.primary) }
            if x.0.secondary != y.0.secondary { return x.0.secondary.lexicographicallyPrecedes(y.0.secondary) }
            if x.0.tertiary != y.0.tertiary { return x.0.tertiary.lexicographicallyPrecedes(y.0.tertiary) }
            let cx = x.1.utf16.count, cy = y.1.utf16.count
            if cx != cy { return cx < cy }
            return x.1.utf16.lexicographicallyPrecedes(y.1.utf16)
        }.map { $0.1 }
    }

    // Primary weight bands. ASCII punctuation weighs 4, 8, 12, …; other punctuation and symbols slot in one above
    // the ASCII character they follow (`%`, `~`, `$`).
    private static let digitRunMarker: UInt32 = 500
    private static let letterBase: UInt32 = 600
    private static let otherBase: UInt32 = 1000
    private static let punctuationMarker: UInt32 = punctuationWeight[0x25] + 1
    private static let symbolMarker: UInt32 = punctuationWeight[0x7E] + 1
    private static let currencyMarker: UInt32 = punctuationWeight[0x24] + 1

    private static let punctuationOrder: [UInt8] = Array("\t\n\u{0B}\u{0C}\r _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$".utf8)

    private static let punctuationWeight: [UInt32] = {
        var table = [UInt32](repeating: 0, count: 128)
        for (i, c) in punctuationOrder.enumerated() { table[Int(c)] = UInt32(i + 1) * 4 }
        return table
    }()

    // Latin-1 letters U+00C0…U+00FF: base letter and accent (0 = not a decomposable letter).
    // Accent ranks follow ICU's secondary order: acute 1, grave 2, circumflex 3, ring 4, diaeresis 5, tilde 6,
    // cedilla 7, stroke 8.
    private static let latin1Letters: [(base: UInt8, accent: UInt8)] = {
        let upper: [(Character, UInt8)] = [
            ("a", 2), ("a", 1), ("a", 3), ("a", 6), ("a", 5), ("a", 4), ("?", 0), ("c", 7),
            ("e", 2), ("e", 1), ("e", 3), ("e", 5), ("i", 2), ("i", 1), ("i", 3), ("i", 5),
            ("?", 0), ("n", 6), ("o", 2), ("o", 1), ("o", 3), ("o", 6), ("o", 5), ("?", 0),
            ("o", 8), ("u", 2), ("u", 1), ("u", 3), ("u", 5), ("y", 1), ("?", 0), ("?", 0),
        ]
        var table = upper.map { (c, accent) -> (base: UInt8, accent: UInt8) in
            c == "?" ? (0, 0) : (c.asciiValue ?? 0, accent)
        }
        table += table  // lower case U+00E0…U+00FF has the same layout
        table[0xF7 - 0xC0] = (0, 0)  // ÷
        table[0xFF - 0xC0] = (UInt8(ascii: "y"), 5)  // ÿ
        return table
    }()

    private struct SortKey {
        var primary: [UInt32] = []
        var secondary: [UInt8] = []
        var tertiary: [UInt8] = []

        init(_ s: String) {
            var scalars = Array(s.unicodeScalars)[...]
            while let first = scalars.first {
                let v = first.value
                if v >= 0x30 && v <= 0x39 {
                    // A digit run: one element weighted by its numeric value (length without leading zeros, digits).
                    var digits: [UInt32] = []
                    while let d = scalars.first, d.value >= 0x30 && d.value <= 0x39 {
                        if !(digits.isEmpty && d.value == 0x30) { digits.append(d.value) }
                        scalars.removeFirst()
                    }
                    primary.append(PlutilKeyOrder.digitRunMarker)
                    primary.append(UInt32(digits.count))
                    primary += digits
                    secondary.append(0)
                    tertiary.append(0)
                    continue
                }
                scalars.removeFirst()
                if v < 0x80 {
                    let c = UInt8(v)
                    if c >= 0x61 && c <= 0x7A {
                        primary.append(PlutilKeyOrder.letterBase + UInt32(c - 0x61)); secondary.append(0); tertiary.append(0)
                    } else if c >= 0x41 && c <= 0x5A {
                        primary.append(PlutilKeyOrder.letterBase + UInt32(c - 0x41)); secondary.append(0); tertiary.append(1)
                    } else if PlutilKeyOrder.punctuationWeight[Int(c)] != 0 {
                        primary.append(PlutilKeyOrder.punctuationWeight[Int(c)]); secondary.append(0); tertiary.append(0)
                    } else {
                        // Other control characters are ignorable in collation.
                        continue
                    }
                } else if v == 0xDF || v == 0xC6 || v == 0xE6 {
                    // ß, Æ, æ expand to two letters (ss, ae), differing from them only at the tertiary level.
                    let (first, second): (UInt32, UInt32) = v == 0xDF ? (18, 18) : (0, 4)
                    primary += [PlutilKeyOrder.letterBase + first, PlutilKeyOrder.letterBase + second]
                    secondary += [0, 0]
                    tertiary += v == 0xC6 ? [3, 3] : [2, 2]
                } else if v >= 0xC0 && v <= 0xFF, case let (base, accent) = PlutilKeyOrder.latin1Letters[Int(v - 0xC0)],
                    base != 0
                {
                    primary.append(PlutilKeyOrder.letterBase + UInt32(base - 0x61))
                    secondary.append(accent)
                    tertiary.append(v < 0xE0 ? 1 : 0)
                } else {
                    appendOther(first)
                }
            }
        }

        /// Scalars outside ASCII and Latin-1 letters, by general category: combining marks are accents on what
        /// precedes them, spaces sort as a space, other punctuation and symbols after ASCII's (by scalar value),
        /// and everything else by its lower-case form with upper case second.
        private mutating func appendOther(_ scalar: Unicode.Scalar) {
            let v = scalar.value
            switch scalar.properties.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark:
                guard !secondary.isEmpty else { return }
                let accent: UInt8
                switch v {
                case 0x301: accent = 1
                case 0x300: accent = 2
                case 0x302: accent = 3
                case 0x30A: accent = 4
                case 0x308: accent = 5
                case 0x303: accent = 6
                case 0x327: accent = 7
                default: accent = 9
                }
                secondary[secondary.count - 1] = max(secondary[secondary.count - 1], accent)
            case .spaceSeparator, .lineSeparator, .paragraphSeparator:
                primary.append(PlutilKeyOrder.punctuationWeight[0x20]); secondary.append(0); tertiary.append(1)
            case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
                .finalPunctuation, .otherPunctuation:
                primary += [PlutilKeyOrder.punctuationMarker, v]; secondary.append(0); tertiary.append(0)
            case .mathSymbol, .modifierSymbol, .otherSymbol:
                primary += [PlutilKeyOrder.symbolMarker, v]; secondary.append(0); tertiary.append(0)
            case .currencySymbol:
                primary += [PlutilKeyOrder.currencyMarker, v]; secondary.append(0); tertiary.append(0)
            case .control, .format:
                // Ignorable at every level, as in ICU: U+FEFF, zero-width spaces, the soft hyphen, C1 controls.
                return
            case .surrogate, .privateUse, .unassigned:
                primary += [PlutilKeyOrder.otherBase, v]; secondary.append(0); tertiary.append(0)
            default:
                let lower = scalar.properties.lowercaseMapping.unicodeScalars
                if lower.count == 1, let l = lower.first, l != scalar {
                    primary += [PlutilKeyOrder.otherBase, l.value]; secondary.append(0); tertiary.append(1)
                } else {
                    primary += [PlutilKeyOrder.otherBase, v]; secondary.append(0); tertiary.append(0)
                }
            }
        }
    }
}

/// The key order of Apple `plutil -convert json -r`, which sorts with `NSString.compare` and
/// `[.numeric, .caseInsensitive, .forcedOrdering]` in the system locale (ICU root collation).
///
/// Reproduced exactly for ASCII keys: controls are ignored, then whitespace, punctuation and symbols in the root
/// collation order, then digit runs compared by numeric value, then letters case-insensitively; ties go to
/// lowercase-first, then to the shorter key, then to UTF-16 order. Characters outside ASCII sort after every ASCII
/// character, by code point — ICU orders them by its collation tables, which this does not reproduce (documented
/// difference: `é`, `ß`, CJK and emoji keys may come out in a different order than Apple's).
enum JSONKeyOrder {
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

    /// Whether `a` sorts before `b` in plutil's order.
    static func less(_ a: String, _ b: String) -> Bool {
        let r = a.utf8.withContiguousStorageIfAvailable { pa in
            b.utf8.withContiguousStorageIfAvailable { pb in compare(pa, pb) }
        }
        if let r, let r { return r < 0 }
        var x = a, y = b
        return x.withUTF8 { pa in y.withUTF8 { pb in compare(pa, pb) } } < 0
    }

    /// A collation element: a primary weight, or a number (a digit run) compared by value.
    private enum Element {
        case weight(UInt32)
        case number(UnsafeBufferPointer<UInt8>)  // significant digits, no leading zeros (empty = 0)
        case end
    }

    private struct Cursor {
        let s: UnsafeBufferPointer<UInt8>
        let rank: UnsafeBufferPointer<UInt16>
        var i = 0

        init(_ s: UnsafeBufferPointer<UInt8>, _ rank: UnsafeBufferPointer<UInt16>) {
            self.s = s
            self.rank = rank
        }

        /// The next primary element, skipping ignorables; also reports the case of a letter (true = upper).
        mutating func next() -> (Element, Bool) {
            while i < s.count {
                let c = s[i]
                if c < 0x80 {
                    if c >= 0x30 && c <= 0x39 {
                        var j = i
                        while j < s.count && s[j] == 0x30 { j += 1 }
                        let start = j
                        while j < s.count && s[j] >= 0x30 && s[j] <= 0x39 { j += 1 }
                        let run = UnsafeBufferPointer(rebasing: s[start..<j])
                        i = j
                        return (.number(run), false)
                    }
                    let r = rank[Int(c)]
                    i += 1
                    if r == 0 { continue }
                    return (.weight(UInt32(r)), c >= 0x41 && c <= 0x5A)
                }
                // Decode one scalar; weights above every ASCII rank, in code-point order.
                var scalar = UInt32(c)
                var len = 1
                if c >= 0xF0 { scalar = UInt32(c & 0x07); len = 4 } else if c >= 0xE0 { scalar = UInt32(c & 0x0F); len = 3 } else if c >= 0xC0 { scalar = UInt32(c & 0x1F); len = 2 }
                var k = 1
                while k < len && i + k < s.count {
                    scalar = scalar << 6 | UInt32(s[i + k] & 0x3F)
                    k += 1
                }
                i += len
                return (.weight(0x1000 + scalar), false)
            }
            return (.end, false)
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
        var caseOrder = 0
        while true {
            let (ea, ua) = x.next()
            let (eb, ub) = y.next()
            switch (ea, eb) {
            case (.end, .end):
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
                if caseOrder == 0 && ua != ub { caseOrder = ua ? 1 : -1 }
            }
        }
    }
}

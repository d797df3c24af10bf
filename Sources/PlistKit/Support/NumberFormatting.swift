#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Decimal text for integers and reals without Foundation, written straight into a caller's buffer.
///
/// Writers call these through `ByteWriter`; the raw forms take a pointer with room for `maxDecimalLength` or
/// `maxG17Length` bytes and return how many they wrote.
enum NumberFormatting {
    /// Room needed by `writeDecimal`: 20 digits and a sign.
    static let maxDecimalLength = 21
    /// Room needed by `writeG17`: sign, 17 digits, point, `e-308`, with slack.
    static let maxG17Length = 32

    // "00" "01" … "99": two digits per division halves the divisions.
    private static let digitPairs: [UInt8] = {
        var t = [UInt8](repeating: 0, count: 200)
        for i in 0..<100 {
            t[2 * i] = UInt8(0x30 + i / 10)
            t[2 * i + 1] = UInt8(0x30 + i % 10)
        }
        return t
    }()

    /// Writes `magnitude` in decimal, preceded by `-` when `negative`; returns the length.
    @inline(__always)
    static func writeDecimal(_ magnitude: UInt64, negative: Bool, into out: UnsafeMutablePointer<UInt8>) -> Int {
        var tmp: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes of scratch on the stack
        return withUnsafeMutableBytes(of: &tmp) { scratch -> Int in
            let buf = scratch.baseAddress!.assumingMemoryBound(to: UInt8.self)
            var pos = 24
            var v = magnitude
            digitPairs.withUnsafeBufferPointer { pairs in
                while v >= 100 {
                    let r = Int(v % 100)
                    v /= 100
                    pos -= 2
                    buf[pos] = pairs[2 * r]
                    buf[pos + 1] = pairs[2 * r + 1]
                }
                if v >= 10 {
                    let r = Int(v)
                    pos -= 2
                    buf[pos] = pairs[2 * r]
                    buf[pos + 1] = pairs[2 * r + 1]
                } else {
                    pos -= 1
                    buf[pos] = UInt8(truncatingIfNeeded: 0x30 &+ v)
                }
            }
            var n = 0
            if negative {
                out[0] = 0x2D
                n = 1
            }
            let len = 24 - pos
            (out + n).update(from: buf + pos, count: len)
            return n + len
        }
    }

    /// Writes a `PlistInteger` in decimal (values above `Int64.max` unsigned, as Core Foundation prints them).
    @inline(__always)
    static func writeDecimal(_ value: PlistInteger, into out: UnsafeMutablePointer<UInt8>) -> Int {
        if value.isNegative {
            return writeDecimal(0 &- value.bitPattern, negative: true, into: out)
        }
        return writeDecimal(value.bitPattern, negative: false, into: out)
    }

    private static let pow10: [UInt128] = {
        var t: [UInt128] = []
        var p: UInt128 = 1
        for _ in 0...38 {
            t.append(p)
            p = p &* 10
        }
        return t
    }()

    private static let pow10x16: UInt128 = 10_000_000_000_000_000
    private static let pow10x17: UInt128 = 100_000_000_000_000_000

    /// Writes `value` exactly as C's `printf("%.17g", value)` does (what Core Foundation's XML writer uses for
    /// reals): 17 significant digits, correctly rounded (ties to even), trailing zeros removed, exponent form for
    /// decimal exponents below −4 or above 16. `value` must be finite; the caller handles ±0, NaN and infinities.
    static func writeG17(_ value: Double, into out: UnsafeMutablePointer<UInt8>) -> Int {
        if let n = fastG17(value, into: out) { return n }
        return snprintfG17(value, into: out)
    }

    /// The exact 17-digit decimal of `value` with 128-bit integers, for magnitudes where they suffice
    /// (magnitudes about 1e-6 … 1.7e38); nil elsewhere, and for subnormals.
    @inline(__always)
    private static func fastG17(_ value: Double, into out: UnsafeMutablePointer<UInt8>) -> Int? {
        let biased = Int(value.exponentBitPattern)
        guard biased != 0, value.isFinite else { return nil }  // subnormals and specials: slow path
        let m = value.significandBitPattern | (1 << 52)
        let e = biased - 1075  // value = m * 2^e
        // floor(log2 |value|) = e + 52; estimate floor(log10 |value|) from it (exact or one too low).
        let log2 = e + 52
        var x = (log2 * 78_913) >> 18
        var digits: UInt128 = 0
        var roundUp = false
        var attempt = 0
        while true {
            let p = 16 - x  // scale so that the integer part has 17 digits
            let q: UInt128
            let half: Int8  // sign of (remainder - denominator/2)
            if p >= 0 {
                guard p <= 22 else { return nil }  // m * 10^22 < 2^127
                let n = UInt128(m) &* pow10[p]
                if e >= 0 {
                    guard e <= 10 else { return nil }
                    q = n << e
                    half = -1  // exact: no remainder
                } else {
                    let s = -e
                    guard s <= 120 else { return nil }
                    q = n >> s
                    let r = n & ((1 << s) - 1)
                    let h: UInt128 = 1 << (s - 1)
                    half = r > h ? 1 : (r == h ? 0 : -1)
                }
            } else {
                guard e > 0, e <= 74, -p <= 38 else { return nil }
                let n = UInt128(m) << e
                let d = pow10[-p]
                q = n / d
                let r = n - q &* d
                let r2 = r << 1
                half = r2 > d ? 1 : (r2 == d ? 0 : -1)
            }
            if q >= pow10x17 {
                x += 1
            } else if q < pow10x16 {
                x -= 1
            } else {
                roundUp = half > 0 || (half == 0 && q & 1 == 1)
                digits = q
                break
            }
            attempt += 1
            if attempt > 2 { return nil }
        }
        if roundUp {
            digits += 1
            if digits == pow10x17 {
                digits = pow10x16
                x += 1
            }
        }
        return formatG(UInt64(digits), exponent: x, negative: value.sign == .minus, into: out)
    }

    /// Lays out 17 significant digits (`digits` in 10^16 ..< 10^17) with decimal exponent `exponent` the way `%g`
    /// does at precision 17.
    @inline(__always)
    private static func formatG(_ digits: UInt64, exponent x: Int, negative: Bool, into out: UnsafeMutablePointer<UInt8>) -> Int {
        var d: (UInt64, UInt64, UInt64) = (0, 0, 0)
        return withUnsafeMutableBytes(of: &d) { raw -> Int in
            let ds = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
            _ = writeDecimal(digits, negative: false, into: ds)  // exactly 17 digits
            var count = 17
            while count > 1 && ds[count - 1] == 0x30 { count -= 1 }
            var n = 0
            if negative {
                out[0] = 0x2D
                n = 1
            }
            if x < -4 || x >= 17 {
                out[n] = ds[0]
                n += 1
                if count > 1 {
                    out[n] = 0x2E
                    n += 1
                    (out + n).update(from: ds + 1, count: count - 1)
                    n += count - 1
                }
                out[n] = 0x65  // e
                n += 1
                var ex = x
                if ex < 0 {
                    out[n] = 0x2D
                    ex = -ex
                } else {
                    out[n] = 0x2B
                }
                n += 1
                if ex >= 100 {
                    out[n] = UInt8(0x30 + ex / 100)
                    n += 1
                    ex %= 100
                }
                out[n] = UInt8(0x30 + ex / 10)
                out[n + 1] = UInt8(0x30 + ex % 10)
                return n + 2
            }
            if x >= 0 {
                let intDigits = x + 1
                (out + n).update(from: ds, count: intDigits)
                n += intDigits
                if count > intDigits {
                    out[n] = 0x2E
                    n += 1
                    (out + n).update(from: ds + intDigits, count: count - intDigits)
                    n += count - intDigits
                }
                return n
            }
            out[n] = 0x30
            out[n + 1] = 0x2E
            n += 2
            for _ in 0..<(-x - 1) {
                out[n] = 0x30
                n += 1
            }
            (out + n).update(from: ds, count: count)
            return n + count
        }
    }

    /// The C library's `%.17g`, for magnitudes the exact 128-bit path does not cover.
    static func snprintfG17(_ value: Double, into out: UnsafeMutablePointer<UInt8>) -> Int {
        var buf = [CChar](repeating: 0, count: 40)
        let n = withVaList([value]) { vsnprintf(&buf, 40, "%.17g", $0) }
        let len = Int(max(0, min(n, Int32(maxG17Length))))
        buf.withUnsafeBufferPointer { b in
            for i in 0..<len { out[i] = UInt8(bitPattern: b[i]) }
        }
        return len
    }
}

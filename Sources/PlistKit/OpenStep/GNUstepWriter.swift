/// GNUstep's typed forms for the scalars plain OpenStep cannot hold:
/// `<*I-5>`, `<*R0.1>` (`<*Rnan>`, `<*Rinf>`, `<*R-inf>`), `<*BY>` / `<*BN>`, `<*D2024-01-02 03:04:05 +0000>`
/// (UTC), and UIDs as `{CF$UID = <*I5>;}`, which the reader turns back into a UID (as CF does for XML).
///
/// Reals use the shortest decimal text that reads back to the same `Double`; dates with a fraction of a second carry
/// it after the seconds (`03:04:05.25`), which PlistKit reads exactly (GNUstep itself keeps whole seconds only and
/// rejects the fraction). The one inexact case: dates less than a second before 2001 whose fraction needs more bits
/// than a `Double` near 1 has, which lose their lowest bits (or, within 2^−53 s of 2001, become 2001 itself).
enum GNUstepScalarWriter {
    static func append(_ v: PlistValue, to out: inout OpenStepTextOutput) throws {
        switch v {
        case .integer(let i):
            out.append("<*I")
            out.append(utf8: i.description)
            out.append(0x3E)
        case .real(let r):
            out.append("<*R")
            out.append(utf8: r.value.description)
            out.append(0x3E)
        case .bool(let b):
            out.append(b ? "<*BY>" : "<*BN>")
        case .date(let d):
            guard let text = dateText(d) else {
                throw PlistError(.unrepresentable, "date \(d.secondsSinceReferenceDate) has no calendar form")
            }
            out.append("<*D")
            out.append(utf8: text)
            out.append(0x3E)
        case .uid(let u):
            out.append("{CF$UID = <*I")
            out.append(utf8: String(u.value))
            out.append(">;}")
        default:
            throw PlistError(.unrepresentable, "unexpected \(v.typeName) value")
        }
    }

    /// `yyyy-MM-dd HH:mm:ss +0000` in UTC, the seconds followed by an exact decimal fraction when there is one;
    /// nil for NaN or infinite dates.
    static func dateText(_ d: PlistDate) -> String? {
        let seconds = d.secondsSinceReferenceDate
        // seconds − floor(seconds) is exact, and so is adding it back to the whole seconds the reader computes —
        // except just before 2001, where it can round up to a whole second: that second is then the nearest text.
        var fraction = seconds - seconds.rounded(.down)
        var whole = d
        if fraction >= 1 {
            whole = PlistDate(secondsSinceReferenceDate: seconds.rounded(.down) + 1)
            fraction = 0
        }
        guard let c = PlistDateText.components(whole) else { return nil }
        var s = c.year < 0 ? "-" + pad(-c.year, 4) : pad(c.year, 4)
        s += "-" + pad(Int64(c.month), 2) + "-" + pad(Int64(c.day), 2) + " " + pad(Int64(c.hour), 2) + ":"
        s += pad(Int64(c.minute), 2) + ":" + pad(Int64(c.second), 2)
        if fraction > 0 { s += fractionDigits(fraction) }
        return s + " +0000"
    }

    /// `.` and the digits of `f` (0 < f < 1) in plain decimal notation, from the shortest round-trip text.
    static func fractionDigits(_ f: Double) -> String {
        let text = f.description  // "0.25" or "1.5e-05"
        guard let e = text.firstIndex(of: "e") else { return String(text.dropFirst()) }
        let exponent = Int(text[text.index(after: e)...]) ?? 0
        let mantissa = text[..<e].filter { $0 != "." }
        return "." + String(repeating: "0", count: max(0, -exponent - 1)) + mantissa
    }

    private static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}

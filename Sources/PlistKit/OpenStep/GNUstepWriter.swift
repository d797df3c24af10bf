/// GNUstep's typed forms for the scalars plain OpenStep cannot hold:
/// `<*I-5>`, `<*R0.1>` (`<*Rnan>`, `<*Rinf>`, `<*R-inf>`), `<*BY>` / `<*BN>`, `<*D2024-01-02 03:04:05 +0000>`
/// (UTC), and UIDs as `{CF$UID = <*I5>;}`, which the reader turns back into a UID (as CF does for XML).
///
/// Reals use the shortest decimal text that reads back to the same `Double`. Dates are written to the second (rounded
/// down, as CF's XML writer does), as GNUstep writes them: GNUstep refuses a whole document whose `<*D…>` has a
/// fraction, and any year outside 1…9999, so such a date is `.unrepresentable` rather than written unreadable.
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
                throw PlistError(.unrepresentable, "date \(d.secondsSinceReferenceDate) has no GNUstep form (a year 1…9999)")
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

    /// `yyyy-MM-dd HH:mm:ss +0000` in UTC, the second rounded down (the form of `NSDate`'s description too); nil for
    /// NaN or infinite dates and, unless `anyYear` (lossy OpenStep strings), for years outside 1…9999.
    static func dateText(_ d: PlistDate, anyYear: Bool = false) -> String? {
        let seconds = d.secondsSinceReferenceDate
        guard seconds.isFinite, let c = PlistDateText.components(PlistDate(secondsSinceReferenceDate: seconds.rounded(.down))),
              anyYear || (1...9999).contains(c.year)
        else { return nil }
        var s = c.year < 0 ? "-" + pad(-c.year, 4) : pad(c.year, 4)
        s += "-" + pad(Int64(c.month), 2) + "-" + pad(Int64(c.day), 2) + " " + pad(Int64(c.hour), 2)
        s += ":" + pad(Int64(c.minute), 2) + ":" + pad(Int64(c.second), 2)
        return s + " +0000"
    }

    private static func pad(_ v: Int64, _ width: Int) -> String {
        let s = String(v)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}

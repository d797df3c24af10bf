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

    /// `PlistDescription.dateDescription` (`yyyy-MM-dd HH:mm:ss +0000` in UTC, the second rounded down), or nil for
    /// NaN or infinite dates and years outside 1…9999, which GNUstep cannot read.
    static func dateText(_ d: PlistDate) -> String? {
        guard let c = PlistDateText.components(d), (1...9999).contains(c.year) else { return nil }
        return PlistDescription.dateDescription(d)
    }
}

import PlistKit

/// Equality of a value and its round trip through a format, modulo the losses each format documents. Compiled into
/// the fuzz harnesses too (public API only).
public enum PlistEquivalence {
    /// Where two values stop being `equivalent`: a key path and the two leaves, for the crash report.
    public static func difference(_ a: PlistValue, _ b: PlistValue, format: PlistFormat, path: String = "") -> String? {
        switch (a, b) {
        case let (.array(x), .array(y)) where x.count == y.count:
            for (i, (p, q)) in zip(x, y).enumerated() {
                if let d = difference(p, q, format: format, path: path + "[\(i)]") { return d }
            }
            return nil
        case let (.dictionary(x), .dictionary(y)) where x.count == y.count:
            for (k, v) in x {
                guard let w = y[k] else { return path + ".\(k) (key lost)" }
                if let d = difference(v, w, format: format, path: path + ".\(k)") { return d }
            }
            return nil
        default:
            return equivalent(a, b, format: format) ? nil : "\(path.isEmpty ? "the root" : path): \(a) became \(b)"
        }
    }

    /// Equality modulo what a format cannot carry, all documented losses: −0.0 in XML and text formats, in JSON the
    /// difference between an integral real and an integer (`2.0` is written `2`, as plutil does), and XML and GNUstep
    /// dates in whole seconds rounded down (as CF writes XML, `XMLWriter`; as GNUstep reads, `GNUstepScalarWriter`).
    public static func equivalent(_ a: PlistValue, _ b: PlistValue, format: PlistFormat) -> Bool {
        switch (a, b) {
        // Both write dates to the second, rounded down (CF's XML writer; GNUstep reads no fraction).
        case let (.date(x), .date(y)) where format == .xml || format == .gnustep:
            return x.secondsSinceReferenceDate.rounded(.down) == y.secondsSinceReferenceDate
        case let (.real(x), .integer(i)) where format == .json:
            return x.value == i.doubleValue && (i.int64Value.map { Double($0) } ?? Double(i.bitPattern)) == x.value
        case let (.real(x), .real(y)):
            if x == y { return true }
            // Text formats have one spelling for NaN (`nan`): payloads are lost. XML and JSON also write −0.0 as 0
            // (GNUstep keeps the sign). JSON writes a float32 with its shortest Float text (as plutil does), which
            // reads back as the nearest Double: the same Float, not the same bits.
            if format == .json, x.isFloat32, Float(y.value) == Float(x.value) { return true }
            let signLost = format != .gnustep && x.value == 0 && y.value == 0
            return format != .binary && (signLost || (x.value.isNaN && y.value.isNaN))
        case let (.array(x), .array(y)):
            return x.count == y.count && zip(x, y).allSatisfy { equivalent($0, $1, format: format) }
        case let (.dictionary(x), .dictionary(y)):
            guard x.count == y.count else { return false }
            for (k, v) in x {
                guard let w = y[k], equivalent(v, w, format: format) else { return false }
            }
            return true
        default:
            return a == b
        }
    }
}

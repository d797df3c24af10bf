// libFuzzer differential harness: where PlistKit and Foundation's PropertyListSerialization both accept an input,
// they must give the same value — apart from the input classes skipped below, each documented with its reason in
// Fuzz/README.md ("Differential exceptions"). Foundation is only asked about inputs PlistKit accepted (so its own
// crashes on hostile input, which are not ours to find, stay out of the run).
import Foundation
import PlistKit

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFoundation(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let raw = UnsafeRawBufferPointer(start: data, count: size)
    // Duplicate keys read as CF reads each format by default (binary: the first; text: the last).
    guard let (ours, format) = try? PropertyList.read(raw, options: FuzzCheck.options) else { return 0 }
    guard Differential.comparable(raw, format: format, value: ours) else { return 0 }
    let any: Any
    do {
        any = try PropertyListSerialization.propertyList(from: Data(raw), options: [], format: nil)
    } catch {
        return 0  // PlistKit is more lenient here; acceptance differences are covered by the readers' own tests
    }
    // What has no public bridge (UIDs) is skipped: `FoundationBridge` (Tests/TestSupport) throws for it.
    guard let theirs = try? FoundationBridge.fromFoundation(any) else { return 0 }
    if let path = Differential.difference(ours, theirs, path: "", format: format) {
        FuzzCheck.fail("\(format) value differs from Foundation's at \(path.isEmpty ? "the root" : path)")
    }
    return 0
}

enum Differential {
    /// Whether the input belongs to a class where the two readers are known, and documented, to differ.
    static func comparable(_ raw: UnsafeRawBufferPointer, format: PlistFormat, value: PlistValue) -> Bool {
        switch format {
        case .json, .gnustep: return false  // Foundation has no JSON plist reader, nor GNUstep's <*…> forms
        case .xml: if hasQuotedGreaterThan(raw) { return false }  // CF ends a tag at the first '>'
        case .openStep, .strings:
            // CF guesses UTF-16 for old-style text with NUL bytes and no byte-order mark (`"\0a\0b\0"` is "ab" to
            // it); PlistKit detects UTF-16 by its mark or its pattern of NULs and otherwise reads NUL as a character.
            if raw.contains(0), !(raw.count >= 2 && (raw[0] == 0xFF && raw[1] == 0xFE || raw[0] == 0xFE && raw[1] == 0xFF)) {
                return false
            }
        default: break
        }
        if raw.count >= 2 && (raw[0] == 0x1F && raw[1] == 0x8B) { return false }  // gzip: PlistKit only
        return !FoundationBridge.hasCanonicallyEquivalentKeys(value)
    }

    /// A `>` inside a quoted attribute value of some tag.
    static func hasQuotedGreaterThan(_ b: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        var quote: UInt8 = 0
        var inTag = false
        while i < b.count {
            let c = b[i]
            if inTag {
                if quote != 0 {
                    if c == quote { quote = 0 } else if c == UInt8(ascii: ">") { return true }
                } else if c == UInt8(ascii: "\"") || c == UInt8(ascii: "'") {
                    quote = c
                } else if c == UInt8(ascii: ">") {
                    inTag = false
                }
            } else if c == UInt8(ascii: "<") {
                inTag = true
            }
            i += 1
        }
        return false
    }

    /// The key path of the first difference, or nil when equal. Reals compare by value (Foundation does not keep
    /// PlistKit's float32 flag), NaN equal to NaN; strings, like everything else, by `PlistValue` equality, which
    /// compares their exact UTF-8 bytes (stricter than Swift `String` equality).
    static func difference(_ a: PlistValue, _ b: PlistValue, path: String, format: PlistFormat) -> String? {
        switch (a, b) {
        case let (.real(x), .real(y)):
            if x.value.bitPattern == y.value.bitPattern || (x.value.isNaN && y.value.isNaN) { return nil }
            return path
        case let (.integer(x), .integer(y)) where format == .binary:
            // 16-byte integers: CF keeps the low 64 bits as an unsigned value, PlistKit the signed 128-bit one.
            return x.bitPattern == y.bitPattern ? nil : path + " (\(x) vs \(y))"
        case let (.array(x), .array(y)):
            guard x.count == y.count else { return path + " (count \(x.count) vs \(y.count))" }
            for (i, (p, q)) in zip(x, y).enumerated() {
                if let d = difference(p, q, path: path + "[\(i)]", format: format) { return d }
            }
            return nil
        case let (.dictionary(x), .dictionary(y)):
            guard x.count == y.count else { return path + " (count \(x.count) vs \(y.count))" }
            for (k, v) in x {
                guard let w = y[k] else { return path + ".\(k) (missing in Foundation's)" }
                if let d = difference(v, w, path: path + ".\(k)", format: format) { return d }
            }
            return nil
        default:
            return a == b ? nil : path + " (\(a) vs \(b))"
        }
    }
}

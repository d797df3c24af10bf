/// Base64 for GNUstep's `<[…]>` data form.
///
/// Kept private to the OpenStep codec for now; a shared `Support/Base64` may replace it.
enum OpenStepBase64 {
    private static let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

    /// Appends the padded base64 encoding of `bytes` (one line, no breaks).
    static func encode(_ bytes: UnsafeRawBufferPointer, into out: inout OpenStepTextOutput) {
        let table = alphabet.utf8Start
        let n = bytes.count
        out.reserve((n + 2) / 3 * 4)
        var i = 0
        while i + 3 <= n {
            let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
            out.appendUnchecked(table[Int(v >> 18)])
            out.appendUnchecked(table[Int(v >> 12 & 63)])
            out.appendUnchecked(table[Int(v >> 6 & 63)])
            out.appendUnchecked(table[Int(v & 63)])
            i += 3
        }
        if n - i == 1 {
            let v = UInt32(bytes[i]) << 16
            out.appendUnchecked(table[Int(v >> 18)])
            out.appendUnchecked(table[Int(v >> 12 & 63)])
            out.appendUnchecked(0x3D)
            out.appendUnchecked(0x3D)
        } else if n - i == 2 {
            let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8
            out.appendUnchecked(table[Int(v >> 18)])
            out.appendUnchecked(table[Int(v >> 12 & 63)])
            out.appendUnchecked(table[Int(v >> 6 & 63)])
            out.appendUnchecked(0x3D)
        }
    }

    @inline(__always) private static func sextet(_ c: UInt8) -> UInt32? {
        switch c {
        case 0x41...0x5A: return UInt32(c - 0x41)
        case 0x61...0x7A: return UInt32(c - 0x61 + 26)
        case 0x30...0x39: return UInt32(c - 0x30 + 52)
        case 0x2B: return 62
        case 0x2F: return 63
        default: return nil
        }
    }

    /// Decodes base64 as GNUstep does: characters outside the alphabet (padding, whitespace, anything else) are
    /// skipped, and missing padding is tolerated. Returns nil when a single 6-bit group is left over (no whole byte).
    static func decode(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 4 * 3 + 2)
        var acc: UInt32 = 0
        var count = 0
        for c in text {
            guard let v = sextet(c) else { continue }
            acc = acc << 6 | v
            count += 1
            if count == 4 {
                out.append(UInt8(truncatingIfNeeded: acc >> 16))
                out.append(UInt8(truncatingIfNeeded: acc >> 8))
                out.append(UInt8(truncatingIfNeeded: acc))
                acc = 0
                count = 0
            }
        }
        switch count {
        case 0: break
        case 2: out.append(UInt8(truncatingIfNeeded: acc >> 4))
        case 3:
            out.append(UInt8(truncatingIfNeeded: acc >> 10))
            out.append(UInt8(truncatingIfNeeded: acc >> 2))
        default: return nil
        }
        return out
    }
}

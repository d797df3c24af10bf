/// Decoding of GNUstep's `<[…]>` base64 data (encoding uses `Support/Base64`).
enum OpenStepBase64 {
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

    /// Decodes base64: white space is skipped and padding may be missing, but `=` only ends the data and any other
    /// character is an error, as GNUstep refuses `<[AA==AAEC]>` and `<[!!!!]>` (nil, as for a single 6-bit group
    /// left over).
    static func decode(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 4 * 3 + 2)
        var acc: UInt32 = 0
        var count = 0
        var padded = false
        for c in text {
            if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { continue }
            if c == 0x3D { padded = true; continue }
            guard !padded, let v = sextet(c) else { return nil }
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

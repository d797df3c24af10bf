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

    /// Why `<[…]>` text is not base64.
    enum Failure: Error {
        case dataAfterPadding(Int)
        case notInAlphabet(Int)
        case leftOverCharacter
    }

    /// Decodes base64: white space is skipped and padding may be missing, but `=` only ends the data and any other
    /// character is an error. Stricter than GNUstep, which also skips some stray characters (`<[AA AA*]>`); like it,
    /// `<[AA==AAEC]>` and `<[!!!!]>` are refused. Failures give the offset of the offending character in `text`.
    static func decode(_ text: UnsafeRawBufferPointer) throws(Failure) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.count / 4 * 3 + 2)
        var acc: UInt32 = 0
        var count = 0
        var padded = false
        for (k, c) in text.enumerated() {
            if c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D { continue }
            if c == 0x3D { padded = true; continue }
            guard let v = sextet(c) else { throw .notInAlphabet(k) }
            if padded { throw .dataAfterPadding(k) }
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
        default: throw .leftOverCharacter
        }
        return out
    }
}

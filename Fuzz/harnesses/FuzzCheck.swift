import PlistKit
#if canImport(Glibc)
import Glibc
#endif

/// Shared assertions for the harnesses (public API only: the library is built once and linked into each).
/// A violated property calls `abort()`, which libFuzzer reports as a crash and saves the input.
enum FuzzCheck {
    static var options: PlistReadOptions {
        var o = PlistReadOptions()
        o.maxDecompressedSize = 1 << 22
        return o
    }

    static func fail(_ message: String) -> Never {
        _ = "fuzz property violated: \(message)\n".withCString { write(2, $0, strlen($0)) }
        abort()
    }

    static func parse(_ bytes: UnsafeRawBufferPointer, as format: PlistFormat) {
        do {
            _ = try PropertyList.read(bytes, as: format, options: options)
        } catch is PlistError {
        } catch {
            fail("non-PlistError thrown: \(error)")
        }
    }

    static func roundTrip(_ bytes: UnsafeRawBufferPointer) {
        guard let (value, _) = try? PropertyList.read(bytes, options: options) else { return }
        for format in [PlistFormat.xml, .binary, .json, .openStep, .gnustep] {
            let written: [UInt8]
            do {
                written = try PropertyList.writeBytes(value, format: format)
            } catch let e as PlistError where e.kind == .unrepresentable || e.kind == .unsupportedFormat {
                continue  // the format cannot hold this value (e.g. a date in JSON): allowed
            } catch {
                fail("\(format) writer threw \(error)")
            }
            let back: PlistValue
            do {
                back = try written.withUnsafeBytes { try PropertyList.read($0, as: format) }
            } catch {
                fail("\(format) output does not read back: \(error)")
            }
            if !equivalent(value, back, format: format) { fail("\(format) round trip changed the value") }
            if format == .xml, let again = try? PropertyList.writeBytes(back, format: .xml), again != written {
                fail("XML output not stable on a second write")
            }
        }
    }

    /// Equality modulo what a format cannot carry, all documented losses: −0.0 in XML and text formats, and in
    /// JSON the difference between an integral real and an integer (`2.0` is written `2`, as plutil does).
    static func equivalent(_ a: PlistValue, _ b: PlistValue, format: PlistFormat) -> Bool {
        switch (a, b) {
        case let (.real(x), .integer(i)) where format == .json:
            return x.value == i.doubleValue && (i.int64Value.map { Double($0) } ?? Double(i.bitPattern)) == x.value
        case let (.real(x), .real(y)):
            if x == y { return true }
            return format != .binary && x.value == 0 && y.value == 0
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

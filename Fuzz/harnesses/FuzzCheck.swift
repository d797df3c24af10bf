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
            if !PlistEquivalence.equivalent(value, back, format: format) {
                fail("\(format) round trip changed the value at \(PlistEquivalence.difference(value, back, format: format) ?? "?")")
            }
            if format == .xml, let again = try? PropertyList.writeBytes(back, format: .xml), again != written {
                fail("XML output not stable on a second write")
            }
        }
    }
}

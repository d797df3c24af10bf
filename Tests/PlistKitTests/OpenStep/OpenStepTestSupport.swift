import Foundation
@testable import PlistKit
import TestSupport

/// Helpers shared by the OpenStep, GNUstep and .strings tests.
enum OS {
    /// Reads UTF-8 text through the public facade (detection included).
    static func read(_ text: String, options: PlistReadOptions = PlistReadOptions()) throws -> (value: PlistValue, format: PlistFormat) {
        try PropertyList.read(Array(text.utf8), options: options)
    }

    /// The error reading `text` gives, or nil when it parses.
    static func error(_ text: String, options: PlistReadOptions = PlistReadOptions()) -> PlistError? {
        error(bytes: Array(text.utf8), options: options)
    }

    static func error(bytes: [UInt8], options: PlistReadOptions = PlistReadOptions()) -> PlistError? {
        do {
            _ = try PropertyList.read(bytes, options: options)
            return nil
        } catch let e as PlistError {
            return e
        } catch {
            return PlistError(.io, "unexpected error type \(error)")
        }
    }

    /// Foundation's `PropertyListSerialization` reading the same bytes (the oracle), or nil when it fails.
    static func foundation(_ bytes: [UInt8]) -> PlistValue? {
        guard let any = try? PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil) else {
            return nil
        }
        return try? FoundationBridge.fromFoundation(any)
    }

    static func foundation(_ text: String) -> PlistValue? { foundation(Array(text.utf8)) }

    /// Writes with the given format and options.
    static func write(_ v: PlistValue, _ format: PlistFormat, lossy: Bool = false, sortKeys: Bool = true) throws -> [UInt8] {
        var o = PlistWriteOptions()
        o.lossy = lossy
        o.sortKeys = sortKeys
        return try PropertyList.writeBytes(v, format: format, options: o)
    }

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// Strings that stress quoting and escaping: controls, quotes, backslashes, comment openers, separators,
    /// non-BMP scalars, combining marks, NeXTSTEP-looking octal text.
    static let trickyStrings: [String] = [
        "", " ", "a", "a b", "//", "//x", "/*x*/", "/", "a//b", "a/*b", "$x", "_", "1.5", "-", ":", ".", "a+b",
        "\"", "'", "\\", "\\\\", "\\n", "\\U0041", "\\101", "\n", "\r", "\r\n", "\t", "\u{0}", "\u{1}", "\u{7}",
        "\u{8}", "\u{B}", "\u{C}", "\u{1B}", "\u{1F}", "\u{7F}", "\u{80}", "\u{A0}", "\u{FF}", "é", "e\u{301}",
        "\u{2028}", "\u{2029}", "a\u{2028}b", "\u{FEFF}", "\u{FFFD}", "\u{FFFF}", "\u{10000}", "💩", "a💩b",
        "\u{10FFFF}", "日本語", "<00>", "<*I5>", "<[AA==]>", "{a=b;}", "(a)", "a;", "a=b", "x\u{0}y", "0", "00",
        "\u{1}5", "\u{0}7", "🇫🇷", "ÿ", "Ł", "\\\"", "'\"'", "end\\",
    ]
}

extension PlistValue {
    /// Equality that lets reals differ in the last digits, for tools (GNUstep) that print 16 significant digits.
    func nearlyEquals(_ other: PlistValue) -> Bool {
        switch (self, other) {
        case let (.real(a), .real(b)):
            if a == b || (a.value.isNaN && b.value.isNaN) { return true }
            if a.value.isInfinite || b.value.isInfinite {
                // 16 digits can push DBL_MAX-sized values over the edge.
                let finite = a.value.isFinite ? a.value : b.value
                return abs(finite) > 1.7976931348623e308 && a.value.sign == b.value.sign
            }
            return abs(a.value - b.value) <= abs(a.value) * 1e-15
        case let (.array(a), .array(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.nearlyEquals($1) }
        case let (.dictionary(a), .dictionary(b)):
            guard a.count == b.count else { return false }
            for (k, v) in a {
                guard let w = b[k], v.nearlyEquals(w) else { return false }
            }
            return true
        default:
            return self == other
        }
    }
}

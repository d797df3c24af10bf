import Foundation
@testable import PlistKit

/// Shared helpers for the JSON tests: the Apple `plutil` of the Swift toolchain, and value generators that stay
/// inside what JSON can carry.
enum JSONTestSupport {
    /// The Swift toolchain's Apple `plutil` (next to the real `swift` binary). A GNUstep `plutil` may come first on
    /// PATH, so PATH alone is not used.
    static let applePlutil: String? = {
        guard let swift = ExternalTool.find("swift") else { return nil }
        let resolved = URL(fileURLWithPath: swift).resolvingSymlinksInPath()
        let candidate = resolved.deletingLastPathComponent().appendingPathComponent("plutil").path
        guard FileManager.default.isExecutableFile(atPath: candidate) else { return nil }
        // Apple's prints "Running in Swift mode" in its help; GNUstep's does not.
        guard let r = try? ExternalTool.run(candidate, ["-help"]),
              String(decoding: r.stdout + r.stderr, as: UTF8.self).contains("Swift mode") else { return nil }
        return candidate
    }()

    /// Random values JSON can hold: no dates, data, UIDs or non-finite reals; the root is a container.
    static func randomJSONValue(seed: UInt64, unicode: Bool, float32: Bool = false) -> PlistValue {
        var config = RandomPlist.Config()
        config.dates = false
        config.data = false
        config.uids = false
        config.nonFiniteReals = false
        config.unicode = unicode
        config.float32 = float32
        config.nul = true
        var generator = RandomPlist(seed: seed, config: config)
        let v = generator.value()
        switch v {
        case .array, .dictionary: return v
        default: return [v]
        }
    }

    /// `JSONSerialization`'s bytes for `value` (the writer Apple `plutil` uses).
    static func foundationJSON(_ value: PlistValue, pretty: Bool) throws -> [UInt8] {
        let object = try FoundationBridge.toFoundation(value)
        let options: JSONSerialization.WritingOptions = pretty ? [.prettyPrinted, .sortedKeys] : [.sortedKeys]
        return [UInt8](try JSONSerialization.data(withJSONObject: object, options: options))
    }

    static func ours(_ value: PlistValue, pretty: Bool, sortKeys: Bool = true) throws -> [UInt8] {
        var options = PlistWriteOptions()
        options.prettyPrinted = pretty
        options.sortKeys = sortKeys
        return try PropertyList.writeBytes(value, format: .json, options: options)
    }

    /// JSON text as `JSONSerialization` reads it, as a PlistKit value.
    static func parsedByFoundation(_ bytes: [UInt8]) throws -> PlistValue {
        try FoundationBridge.fromFoundation(try JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed]))
    }

    static func text(_ b: [UInt8]) -> String { String(decoding: b, as: UTF8.self) }
}

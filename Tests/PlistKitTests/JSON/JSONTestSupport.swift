import Foundation
@testable import PlistKit
import TestSupport

/// Shared helpers for the JSON tests: value generators that stay inside what JSON can carry, and the oracles
/// (Foundation, Python's `json`) the writer and reader are checked against.
enum JSONTestSupport {
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

    /// How Python's `json` module (an independent parser, correctly rounded floats) reads each document, mapped
    /// with plutil's typing rule (integers in −2^63 … 2^64−1 stay integers, other numbers become reals). Nil when
    /// python3 is missing.
    static func pythonOracle(_ documents: [[UInt8]]) throws -> [PlistValue]? {
        let script = """
            import sys, json, base64
            def typed(v):
                if isinstance(v, bool): return {"bool": v}
                if isinstance(v, int):
                    if -2**63 <= v <= 2**64 - 1: return {"integer": str(v)}
                    return {"real": repr(float(v))}
                if isinstance(v, float): return {"real": repr(v)}
                if isinstance(v, str): return {"string": v}
                if isinstance(v, list): return {"array": [typed(x) for x in v]}
                if isinstance(v, tuple): return {"dict": [[k, typed(x)] for k, x in v[1]]}
                raise ValueError(repr(v))
            out = []
            for line in sys.stdin:
                doc = base64.b64decode(line.strip()).decode("utf-8")
                out.append(typed(json.loads(doc, object_pairs_hook=lambda pairs: ("pairs", pairs))))
            print(json.dumps(out))
            """
        let input = documents.map { Data($0).base64EncodedString() }.joined(separator: "\n") + "\n"
        guard let r = try ExternalTool.python(script, input: Data(input.utf8)) else { return nil }
        guard r.status == 0 else {
            throw TypedJSON.Bad(description: "python3 failed: \(String(decoding: r.stderr, as: UTF8.self))")
        }
        guard let list = try JSONValue.parse(r.stdout).array else { throw TypedJSON.Bad(description: "oracle output") }
        return try list.map(TypedJSON.decode)
    }

    static func text(_ b: [UInt8]) -> String { String(decoding: b, as: UTF8.self) }
}

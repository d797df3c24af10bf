import Foundation
@testable import PlistKit
import TestSupport

/// Assembles a `bplist` file from hand-encoded objects, following the layout of CoreFoundation's `CFBinaryPList.c` (header,
/// objects, offset table, 32-byte trailer). It does not use `BinaryWriter`, so reader tests do not depend on it,
/// and every trailer field can be overridden to build broken files.
struct BinaryFixture {
    var objects: [[UInt8]]
    var offsetSize = 1
    var refSize = 1
    var top: UInt64 = 0
    var magic = "bplist00"
    var countOverride: UInt64?
    var tableOffsetOverride: UInt64?
    /// Replaces the computed offsets (entry i is written for object i).
    var offsetsOverride: [UInt64]?
    /// Bytes inserted between the offset table and the trailer.
    var gap: [UInt8] = []

    init(_ objects: [[UInt8]], offsetSize: Int = 1, refSize: Int = 1) {
        self.objects = objects
        self.offsetSize = offsetSize
        self.refSize = refSize
    }

    /// Offset of object `i` in the assembled file.
    func offset(of i: Int) -> Int { 8 + objects[..<i].reduce(0) { $0 + $1.count } }
    var tableOffset: Int { 8 + objects.reduce(0) { $0 + $1.count } }

    var bytes: [UInt8] {
        var out = Array(magic.utf8)
        var offsets: [UInt64] = []
        for o in objects {
            offsets.append(UInt64(out.count))
            out += o
        }
        let tableOffset = UInt64(out.count)
        for v in offsetsOverride ?? offsets { out += Self.bigEndian(v, offsetSize) }
        out += gap
        out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)]
        out += Self.bigEndian(countOverride ?? UInt64(objects.count), 8)
        out += Self.bigEndian(top, 8)
        out += Self.bigEndian(tableOffsetOverride ?? tableOffset, 8)
        return out
    }

    static func bigEndian(_ v: UInt64, _ size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: v >> UInt64(8 * (size - 1 - $0))) }
    }

    // Object encodings (the markers of `CFBinaryPList.c`).
    static func int(_ v: UInt8) -> [UInt8] { [0x10, v] }
    static func ascii(_ s: String) -> [UInt8] { sized(0x50, s.utf8.count) + Array(s.utf8) }
    static func utf16(_ units: [UInt16]) -> [UInt8] {
        sized(0x60, units.count) + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }
    static func array(_ refs: [UInt64], refSize: Int = 1) -> [UInt8] {
        sized(0xA0, refs.count) + refs.flatMap { bigEndian($0, refSize) }
    }
    static func dict(_ keys: [UInt64], _ values: [UInt64], refSize: Int = 1) -> [UInt8] {
        sized(0xD0, keys.count) + (keys + values).flatMap { bigEndian($0, refSize) }
    }
    static func sized(_ token: UInt8, _ n: Int) -> [UInt8] {
        if n < 15 { return [token | UInt8(n)] }
        if n < 256 { return [token | 0xF, 0x10, UInt8(n)] }
        if n < 65536 { return [token | 0xF, 0x11] + bigEndian(UInt64(n), 2) }
        return [token | 0xF, 0x12] + bigEndian(UInt64(n), 4)
    }
}

/// Typed JSON text (the corpus notation, `Corpus/README.md`) for a value, so Python can rebuild it independently.
enum TypedJSONText {
    static func encode(_ v: PlistValue) -> String {
        var out = ""
        write(v, &out)
        return out
    }

    private static func write(_ v: PlistValue, _ out: inout String) {
        switch v {
        case .string(let s): out += "{\"string\":\(quote(s))}"
        case .integer(let i): out += "{\"integer\":\"\(i.description)\"}"
        case .real(let r):
            let tag = r.isFloat32 ? "float32" : "real"
            out += "{\"\(tag)\":\(number(r.value))}"
        case .bool(let b): out += "{\"bool\":\(b)}"
        case .date(let d): out += "{\"date\":\(number(d.secondsSinceReferenceDate))}"
        case .data(let d): out += "{\"data\":\"\(d.base64EncodedString())\"}"
        case .uid(let u): out += "{\"uid\":\(u.value)}"
        case .array(let a):
            out += "{\"array\":["
            for (i, e) in a.enumerated() {
                if i > 0 { out += "," }
                write(e, &out)
            }
            out += "]}"
        case .dictionary(let d):
            out += "{\"dict\":["
            for (i, (k, e)) in d.enumerated() {
                if i > 0 { out += "," }
                out += "[\(quote(k)),"
                write(e, &out)
                out += "]"
            }
            out += "]}"
        }
    }

    private static func number(_ d: Double) -> String {
        if d.isNaN { return "\"nan\"" }
        if d.isInfinite { return d < 0 ? "\"-inf\"" : "\"inf\"" }
        if d == 0, d.sign == .minus { return "\"-0\"" }
        return "\(d)"
    }

    private static func quote(_ s: String) -> String {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            default:
                if u.value < 0x20 || u.value > 0x7E {
                    for unit in String(u).utf16 { out += String(format: "\\u%04x", unit) }
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out + "\""
    }
}

/// Python helpers shared by the binary differential tests.
enum BinaryPython {
    /// Python source that turns typed JSON into plistlib values (NaN is one shared object, so plistlib — which
    /// uniques scalars by `==` plus identity — writes equal NaNs once, as PlistKit does).
    static let typedDecoder = """
        import base64, datetime, json, math, plistlib, struct, sys
        NAN = float('nan')
        REF = datetime.datetime(2001, 1, 1)
        def real(x):
            if isinstance(x, str):
                return {'nan': NAN, 'inf': math.inf, '-inf': -math.inf, '-0': -0.0}.get(x) if x in ('nan','inf','-inf','-0') else float(x)
            return float(x)
        def dec(j):
            (tag, v), = j.items()
            if tag == 'string': return v
            if tag == 'integer': return int(v)
            if tag in ('real', 'float32'): return real(v)
            if tag == 'bool': return v
            if tag == 'date': return REF + datetime.timedelta(seconds=real(v))
            if tag == 'data': return base64.b64decode(v)
            if tag == 'uid': return plistlib.UID(v)
            if tag == 'array': return [dec(e) for e in v]
            if tag == 'dict': return {k: dec(e) for k, e in v}
            raise ValueError(tag)
        def same(a, b):
            if type(a) is not type(b): return False
            if isinstance(a, float): return struct.pack('>d', a) == struct.pack('>d', b)
            if isinstance(a, list): return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
            if isinstance(a, dict): return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
            return a == b
        """

    static func run(_ script: String, input: Data) throws -> ExternalTool.Result? {
        try ExternalTool.python(typedDecoder + "\n" + script, input: input)
    }
}

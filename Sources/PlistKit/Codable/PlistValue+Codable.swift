import FoundationEssentials

/// `PlistValue` encodes as itself with `PlistEncoder` and decodes as whatever the document holds with
/// `PlistDecoder`, so unknown or mixed content survives a decode/encode round trip exactly. With other coders
/// (JSON, say) it maps to the closest shapes: scalars, arrays, string-keyed dictionaries; dates and data as those
/// coders encode `Date` and `Data`; a UID as `{"CF$UID": n}`.
extension PlistValue: Codable {
    public func encode(to encoder: any Encoder) throws {
        if encoder is PlistEncodingState || encoder is PlistSuperEncoder {
            // Our single-value container stores the value as is; no per-element containers.
            var c = encoder.singleValueContainer()
            try c.encode(self)
            return
        }
        switch self {
        case .string(let s): var c = encoder.singleValueContainer(); try c.encode(s)
        case .integer(let i):
            var c = encoder.singleValueContainer()
            if let v = i.int64Value { try c.encode(v) } else { try c.encode(i.bitPattern) }
        case .real(let r):
            var c = encoder.singleValueContainer()
            if r.isFloat32 { try c.encode(Float(r.value)) } else { try c.encode(r.value) }
        case .bool(let b): var c = encoder.singleValueContainer(); try c.encode(b)
        case .date(let d): var c = encoder.singleValueContainer(); try c.encode(d.date)
        case .data(let d): var c = encoder.singleValueContainer(); try c.encode(d)
        case .uid(let u): try u.encode(to: encoder)
        case .array(let a):
            var c = encoder.unkeyedContainer()
            for e in a { try c.encode(e) }
        case .dictionary(let d):
            var c = encoder.container(keyedBy: PlistCodingKey.self)
            for (k, v) in d { try c.encode(v, forKey: PlistCodingKey(stringValue: k)) }
        }
    }

    public init(from decoder: any Decoder) throws {
        if let state = decoder as? PlistDecodingState {
            self = state.current
            return
        }
        if let c = try? decoder.container(keyedBy: PlistCodingKey.self) {
            var d = PlistDictionary(minimumCapacity: c.allKeys.count)
            for k in c.allKeys { d[k.stringValue] = try c.decode(PlistValue.self, forKey: k) }
            self = .dictionary(d)
            return
        }
        if var c = try? decoder.unkeyedContainer() {
            var a: [PlistValue] = []
            if let n = c.count { a.reserveCapacity(n) }
            while !c.isAtEnd { a.append(try c.decode(PlistValue.self)) }
            self = .array(a)
            return
        }
        let c = try decoder.singleValueContainer()
        if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let i = try? c.decode(Int64.self) { self = .integer(PlistInteger(i)) }
        else if let u = try? c.decode(UInt64.self) { self = .integer(PlistInteger(u)) }
        else if let r = try? c.decode(Double.self) { self = .real(PlistReal(r)) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let d = try? c.decode(Data.self) { self = .data(d) }
        else if let d = try? c.decode(Date.self) { self = .date(PlistDate(d)) }
        else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: decoder.codingPath, debugDescription: "The value is not a property-list value."))
        }
    }
}

/// A UID encodes as a UID with `PlistEncoder` and as `{"CF$UID": n}` (its XML form) with other encoders.
extension UID: Codable {
    private enum Keys: String, CodingKey { case uid = "CF$UID" }

    public func encode(to encoder: any Encoder) throws {
        if encoder is PlistEncodingState || encoder is PlistSuperEncoder {
            var c = encoder.singleValueContainer()
            try c.encode(self)
            return
        }
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(value, forKey: .uid)
    }

    public init(from decoder: any Decoder) throws {
        if let state = decoder as? PlistDecodingState {
            self = try state.unboxUID(state.current, at: nil)
            return
        }
        let c = try decoder.container(keyedBy: Keys.self)
        self.init(try c.decode(UInt64.self, forKey: .uid))
    }
}

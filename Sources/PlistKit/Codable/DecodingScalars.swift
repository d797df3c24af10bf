import FoundationEssentials

// Turning plist values into standard Swift types, and the errors when they do not fit.

extension PlistDecodingState {
    /// Decodes one of the standard types the format has a native form for (and `PlistValue`/`UID`) without
    /// `init(from:)`; `kind` is `NativeType.of(T.self)` and is not `.none`.
    func decodeNative<T>(_ kind: NativeType, from value: PlistValue, at element: @autoclosure () -> CodingPathElement?) throws -> T {
        switch kind {
        case .string: return reinterpret(try unboxString(value, at: element()), as: T.self)
        case .int: return reinterpret(try unboxInteger(value, Int.self, at: element()), as: T.self)
        case .double: return reinterpret(try unboxFloat(value, Double.self, at: element()), as: T.self)
        case .bool: return reinterpret(try unboxBool(value, at: element()), as: T.self)
        case .date: return reinterpret(try unboxDate(value, at: element()), as: T.self)
        case .data: return reinterpret(try unboxData(value, at: element()), as: T.self)
        case .plistValue: return reinterpret(value, as: T.self)
        case .int64: return reinterpret(try unboxInteger(value, Int64.self, at: element()), as: T.self)
        case .uint64: return reinterpret(try unboxInteger(value, UInt64.self, at: element()), as: T.self)
        case .float: return reinterpret(try unboxFloat(value, Float.self, at: element()), as: T.self)
        case .url: return reinterpret(try unboxURL(value, at: element()), as: T.self)
        case .uid: return reinterpret(try unboxUID(value, at: element()), as: T.self)
        case .int32: return reinterpret(try unboxInteger(value, Int32.self, at: element()), as: T.self)
        case .uint32: return reinterpret(try unboxInteger(value, UInt32.self, at: element()), as: T.self)
        case .uint: return reinterpret(try unboxInteger(value, UInt.self, at: element()), as: T.self)
        case .int16: return reinterpret(try unboxInteger(value, Int16.self, at: element()), as: T.self)
        case .uint16: return reinterpret(try unboxInteger(value, UInt16.self, at: element()), as: T.self)
        case .int8: return reinterpret(try unboxInteger(value, Int8.self, at: element()), as: T.self)
        case .uint8: return reinterpret(try unboxInteger(value, UInt8.self, at: element()), as: T.self)
        case .stringArray: return reinterpret(try unboxArray(value, at: element()) { try unboxString($0, at: $1) }, as: T.self)
        case .intArray: return reinterpret(try unboxArray(value, at: element()) { try unboxInteger($0, Int.self, at: $1) }, as: T.self)
        case .doubleArray: return reinterpret(try unboxArray(value, at: element()) { try unboxFloat($0, Double.self, at: $1) }, as: T.self)
        case .boolArray: return reinterpret(try unboxArray(value, at: element()) { try unboxBool($0, at: $1) }, as: T.self)
        case .plistDictionary, .none:
            guard case .dictionary(let d) = value else {
                throw mismatch(expected: PlistDictionary.self, expectedName: "a dictionary", found: value, at: element())
            }
            return reinterpret(d, as: T.self)
        }
    }

    /// An array of scalars converted element by element; errors name the element's index.
    @inline(__always) func unboxArray<E>(
        _ value: PlistValue, at element: @autoclosure () -> CodingPathElement?, _ convert: (PlistValue, CodingPathElement) throws -> E
    ) throws -> [E] {
        guard case .array(let items) = value else {
            throw mismatch(expected: [E].self, expectedName: "an array", found: value, at: element())
        }
        let pushed = element()
        if let pushed { path.push(pushed) }
        defer { if pushed != nil { path.pop() } }
        var out: [E] = []
        out.reserveCapacity(items.count)
        for i in items.indices { out.append(try convert(items[i], .index(i))) }
        return out
    }

    // MARK: Scalars

    @inline(__always) func unboxString(_ value: PlistValue, at element: @autoclosure () -> CodingPathElement?) throws -> String {
        // `$null` is how nil is written (by Foundation too), so a non-optional String refuses it as Foundation does
        // (valueNotFound) instead of turning an encoded nil into the text "$null".
        if case .string(let s) = value, s != plistNullString { return s }
        throw mismatch(expected: String.self, found: value, at: element())
    }

    @inline(__always) func unboxBool(_ value: PlistValue, at element: @autoclosure () -> CodingPathElement?) throws -> Bool {
        switch value {
        case .bool(let b): return b
        case .string(let s) where scalarsFromStrings:
            switch s {
            case "YES", "true", "1": return true
            case "NO", "false", "0": return false
            default: break
            }
        default: break
        }
        throw mismatch(expected: Bool.self, found: value, at: element())
    }

    @inline(__always) func unboxInteger<I: FixedWidthInteger>(
        _ value: PlistValue, _ type: I.Type, at element: @autoclosure () -> CodingPathElement?
    ) throws -> I {
        switch value {
        case .integer(let n):
            if let x = n.int64Value {
                if let r = I(exactly: x) { return r }
            } else if let r = I(exactly: n.bitPattern) {
                return r
            }
            throw outOfRange(I.self, found: value, at: element())
        case .real(let r):
            // An integral real (an XML `<real>3</real>`, say) is the integer it spells, as in Foundation.
            // Any other real is `dataCorrupted`, as in Foundation (the value is a number, just not this one).
            if r.value.isFinite, r.value.rounded(.towardZero) == r.value, let x = I(exactly: r.value) { return x }
            throw outOfRange(I.self, found: value, at: element())
        case .string(let s) where scalarsFromStrings:
            if let x = I(s) { return x }
            if s.first == "+", let x = I(s.dropFirst()) { return x }
            if Int64(s) != nil || UInt64(s) != nil { throw outOfRange(I.self, found: value, at: element()) }
        default: break
        }
        throw mismatch(expected: I.self, found: value, at: element())
    }

    @inline(__always) func unboxFloat<F: BinaryFloatingPoint & LosslessStringConvertible>(
        _ value: PlistValue, _ type: F.Type, at element: @autoclosure () -> CodingPathElement?
    ) throws -> F {
        switch value {
        case .real(let r):
            let x = F(r.value)
            // A finite real too large for Float is an error rather than infinity.
            if x.isFinite || !r.value.isFinite { return x }
            throw outOfRange(F.self, found: value, at: element())
        case .integer(let n):
            return n.int64Value.map { F($0) } ?? F(n.bitPattern)
        case .string(let s) where scalarsFromStrings:
            if let x = F(s) { return x }
        default: break
        }
        throw mismatch(expected: F.self, found: value, at: element())
    }

    @inline(__always) func unboxDate(_ value: PlistValue, at element: @autoclosure () -> CodingPathElement?) throws -> Date {
        switch value {
        case .date(let d): return d.date
        case .string(let s) where scalarsFromStrings:
            if let d = OpenStepDateText.parse(s) { return d.date }
        default: break
        }
        throw mismatch(expected: Date.self, found: value, at: element())
    }

    @inline(__always) func unboxData(_ value: PlistValue, at element: @autoclosure () -> CodingPathElement?) throws -> Data {
        if case .data(let d) = value { return d }
        throw mismatch(expected: Data.self, found: value, at: element())
    }

    func unboxURL(_ value: PlistValue, at element: @autoclosure () -> CodingPathElement?) throws -> URL {
        switch value {
        case .string(let s):
            // Strict: a string that is not a URL as written is an error, not percent-encoded into one.
            if let url = URL(string: s, encodingInvalidCharacters: false) { return url }
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: codingPath(appending: element()),
                debugDescription: "Expected to decode URL at \(codingPath(appending: element()).dottedDescription) but found string \(quoted(s)), which is not a valid URL."))
        case .dictionary(let d):
            // Foundation's `PropertyListEncoder` writes a URL as {relative = …; base = …}.
            // Read as URL's own `init(from:)` reads it (invalid characters percent-encoded, as Foundation does).
            if case .string(let relative)? = d["relative"] {
                var base: URL?
                if let b = d["base"] { base = try unboxURL(b, at: element()) }
                if let url = URL(string: relative, relativeTo: base) { return url }
                throw DecodingError.dataCorrupted(DecodingError.Context(
                    codingPath: codingPath(appending: element()),
                    debugDescription: "Expected to decode URL at \(codingPath(appending: element()).dottedDescription) but found relative string \(quoted(relative)), which is not a valid URL."))
            }
            if d["relative"] == nil {
                throw DecodingError.keyNotFound(PlistCodingKey(stringValue: "relative"), DecodingError.Context(
                    codingPath: codingPath(appending: element()),
                    debugDescription: "No value for key \"relative\" in the URL at \(codingPath(appending: element()).dottedDescription)."))
            }
        default: break
        }
        throw mismatch(expected: URL.self, found: value, at: element())
    }

    func unboxUID(_ value: PlistValue, at element: @autoclosure () -> CodingPathElement?) throws -> UID {
        switch value {
        case .uid(let u): return u
        case .dictionary(let d) where d.count == 1:
            if case .integer(let n)? = d["CF$UID"], let v = n.uint64Value { return UID(v) }
        default: break
        }
        throw mismatch(expected: UID.self, found: value, at: element())
    }

    // MARK: Errors

    /// `typeMismatch` naming the path, the expected type and what was there instead.
    func mismatch(expected: Any.Type, expectedName: String? = nil, found: PlistValue, at element: CodingPathElement?) -> DecodingError {
        let path = codingPath(appending: element)
        if case .string(plistNullString) = found {
            return .valueNotFound(expected, DecodingError.Context(
                codingPath: path,
                debugDescription: "Expected to decode \(expectedName ?? "\(expected)") at \(path.dottedDescription) but found a null value (\"$null\") instead."))
        }
        return .typeMismatch(expected, DecodingError.Context(
            codingPath: path,
            debugDescription: "Expected to decode \(expectedName ?? "\(expected)") at \(path.dottedDescription) but found \(describe(found)) instead."))
    }

    /// `dataCorrupted` (Foundation's choice) for a number that does not fit the requested type.
    func outOfRange<N>(_ type: N.Type, found: PlistValue, at element: CodingPathElement?) -> DecodingError {
        let path = codingPath(appending: element)
        var range = ""
        if let t = type as? any FixedWidthInteger.Type { range = " (\(rangeText(t)))" }
        var problem = "does not fit in \(type)\(range)"
        if case .real(let r) = found, r.value.isFinite, r.value.rounded(.towardZero) != r.value, type is any FixedWidthInteger.Type {
            problem = "is not a whole number"
        }
        return .dataCorrupted(DecodingError.Context(
            codingPath: path,
            debugDescription: "Expected to decode \(type) at \(path.dottedDescription) but found \(describe(found)), which \(problem)."))
    }

    private func rangeText<I: FixedWidthInteger>(_ t: I.Type) -> String { "\(I.min)…\(I.max)" }
}

/// A short description of a value for messages: its plist type and, for scalars, the value.
func describe(_ value: PlistValue) -> String {
    switch value {
    case .string(let s): return "string \(quoted(s))"
    case .integer(let i): return "integer \(i)"
    case .real(let r): return "real \(r.value)"
    case .bool(let b): return "Boolean \(b)"
    case .date(let d): return "date \(d)"
    case .data(let d): return "data (\(d.count) bytes)"
    case .array(let a): return "an array of \(a.count) element\(a.count == 1 ? "" : "s")"
    case .dictionary(let d): return "a dictionary of \(d.count) entr\(d.count == 1 ? "y" : "ies")"
    case .uid(let u): return "UID \(u.value)"
    }
}

/// `"text"`, shortened past 60 characters.
func quoted(_ s: String) -> String {
    let limit = 60
    if s.unicodeScalars.count <= limit { return "\"\(s)\"" }
    return "\"\(String(String.UnicodeScalarView(s.unicodeScalars.prefix(limit))))…\""
}

/// Dates as OpenStep and `.strings` files spell them (`2001-12-16 03:53:04 +0000`), and the XML form.
enum OpenStepDateText {
    static func parse(_ s: String) -> PlistDate? {
        var bytes = Array(s.utf8)[...]
        func number(_ digits: Int) -> Int64? {
            guard bytes.count >= digits else { return nil }
            var v: Int64 = 0
            for b in bytes.prefix(digits) {
                guard b >= 0x30 && b <= 0x39 else { return nil }
                v = v * 10 + Int64(b - 0x30)
            }
            bytes = bytes.dropFirst(digits)
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard bytes.first == c else { return false }
            bytes = bytes.dropFirst()
            return true
        }
        guard let year = number(4), expect(0x2D), let month = number(2), expect(0x2D), let day = number(2) else { return nil }
        guard expect(0x20) || expect(0x54) else { return nil }
        guard let hour = number(2), expect(0x3A), let minute = number(2), expect(0x3A), let second = number(2) else { return nil }
        var offset: Int64 = 0
        if expect(0x5A) {
            offset = 0
        } else {
            _ = expect(0x20)
            let negative: Bool
            if expect(0x2B) { negative = false } else if expect(0x2D) { negative = true } else { return nil }
            guard let hh = number(2), let mm = number(2) else { return nil }
            offset = (hh * 3600 + mm * 60) * (negative ? -1 : 1)
        }
        guard bytes.isEmpty else { return nil }
        let local = PlistDateText.date(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        return PlistDate(secondsSinceReferenceDate: local.secondsSinceReferenceDate - Double(offset))
    }
}

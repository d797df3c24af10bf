/// Swift and Objective-C source literals for a property list (`plutil -convert swift|objc`).
///
/// The layout follows Apple's tool (a `/// Generated from FILE` comment, a constant named after the file, four-space
/// indentation, keys in `PlutilKeyOrder`, a trailing comma after every element), but the output always compiles:
/// strings and keys are fully escaped, reals keep every digit, non-finite reals get a spelling, and Swift
/// collections are always typed (`[String : Any]` / `[Any]`) so empty and mixed collections type-check.
public enum PlistLiteral {
    /// `let NAME : [String : Any] = [ … ]` (or `[Any]`) for a dictionary or array root, `let NAME = …` for a scalar
    /// (as Apple's tool); `sourceName` is the input file, whose stem names the constant (in backquotes when it is a
    /// keyword). Dates become `Date(timeIntervalSinceReferenceDate:)`, data `Data([0x01,…])`. UIDs throw
    /// `.unrepresentable`.
    public static func swift(_ value: PlistValue, sourceName: String) throws -> String {
        let annotation: String
        switch value {
        case .dictionary: annotation = " : [String : Any]"
        case .array: annotation = " : [Any]"
        default: annotation = ""
        }
        var name = identifier(from: sourceName)
        if swiftKeywords.contains(name) { name = "`" + name + "`" }
        var out = "/// Generated from \(lastComponent(sourceName))\nlet \(name)\(annotation) = "
        try appendSwift(value, depth: 0, to: &out)
        return out + "\n"
    }

    /// `NSDictionary * const NAME = @{ … };` (or `NSArray`, `NSString`, `NSNumber`), preceded by an `#import` of
    /// the header when `outputName` is a file (not `-`). Dates, data and UIDs throw `.unrepresentable`.
    public static func objc(_ value: PlistValue, sourceName: String, outputName: String) throws -> String {
        var out = ""
        if outputName != "-" { out += "#import \"\(stem(outputName)).h\"\n\n" }
        out += try objcDeclaration(value, sourceName: sourceName, header: false) + " = "
        try appendObjC(value, depth: 0, to: &out)
        return out + ";\n"
    }

    /// The header that goes with `objc(_:sourceName:outputName:)`: an `extern` declaration of the constant.
    public static func objcHeader(_ value: PlistValue, sourceName: String) throws -> String {
        "#import <Foundation/Foundation.h>\n\n" + (try objcDeclaration(value, sourceName: sourceName, header: true)) + ";\n"
    }

    // MARK: Swift

    private static func appendSwift(_ value: PlistValue, depth: Int, to out: inout String) throws {
        switch value {
        case .string(let s): out += swiftString(s)
        // Past Int64.max a literal overflows `Int`: say which type holds it.
        case .integer(let i): out += i.int64Value == nil ? "\(i.description) as UInt64" : i.description
        case .real(let r):
            if r.value.isNaN { out += "Double.nan" } else if r.value.isInfinite {
                out += r.value < 0 ? "-Double.infinity" : "Double.infinity"
            } else { out += r.value.description }
        case .bool(let b): out += b ? "true" : "false"
        case .date(let d):
            let t = d.secondsSinceReferenceDate
            out += "Date(timeIntervalSinceReferenceDate: \(t.isFinite ? t.description : "Double.nan"))"
        case .data(let d):
            out += "Data(["
            for b in d { out += "0x" + hex(b, upper: true) + "," }
            out += "])"
        case .array(let a):
            out += "[\n"
            for element in a {
                out += indentation(depth + 1)
                try appendSwift(element, depth: depth + 1, to: &out)
                out += ",\n"
            }
            out += indentation(depth) + "]"
            // Nested literals are typed explicitly: an empty or mixed literal cannot be inferred inside `Any`.
            if depth > 0 { out += " as [Any]" }
        case .dictionary(let d):
            out += d.isEmpty ? "[:\n" : "[\n"
            for key in PlutilKeyOrder.sorted(d.keys) {
                out += indentation(depth + 1) + swiftString(key) + " : "
                try appendSwift(d[key] ?? .bool(false), depth: depth + 1, to: &out)
                out += ",\n"
            }
            out += indentation(depth) + "]"
            if depth > 0 { out += " as [String : Any]" }
        case .uid:
            throw PlistError(.unrepresentable, "Input contains an object that cannot be represented in Swift literal syntax (a UID)")
        }
    }

    private static func swiftString(_ s: String) -> String {
        quoted(s, open: "\"") { scalar in
            if scalar == "\0" { return "\\0" }
            guard scalar.value < 0x20 || scalar.value == 0x7F || scalar.value == 0x2028 || scalar.value == 0x2029 else { return nil }
            return "\\u{" + String(scalar.value, radix: 16) + "}"
        }
    }

    /// `s` in double quotes after `open`, with the escapes Swift and C share (`\\ \" \n \r \t`) and the
    /// language's own for the other scalars `escape` names (nil: the scalar as it is).
    private static func quoted(_ s: String, open: String, escape: (Unicode.Scalar) -> String?) -> String {
        var out = open
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if let escaped = escape(scalar) { out += escaped } else { out.unicodeScalars.append(scalar) }
            }
        }
        return out + "\""
    }

    // MARK: Objective-C

    private static func objcDeclaration(_ value: PlistValue, sourceName: String, header: Bool) throws -> String {
        let className: String
        switch value {
        case .dictionary: className = "NSDictionary"
        case .array: className = "NSArray"
        case .string: className = "NSString"
        case .integer, .real, .bool: className = "NSNumber"
        default: throw objcUnrepresentable
        }
        var out = "/// Generated from \(lastComponent(sourceName))\n__attribute__((visibility(\"hidden\")))\n"
        if header { out += "extern " }
        var name = identifier(from: sourceName)
        if objcReserved.contains(name) { name += "_" }
        return out + "\(className) * const \(name)"
    }

    private static let objcUnrepresentable = PlistError(
        .unrepresentable, "Input contains an object that cannot be represented in Obj-C literal syntax")

    private static func appendObjC(_ value: PlistValue, depth: Int, to out: inout String) throws {
        switch value {
        case .string(let s): out += objcString(s)
        case .integer(let i):
            // C has no negative literals and its largest signed one is INT64_MAX: spell the two ends so they compile.
            if i.int64Value == nil { out += "@" + i.description + "ULL" } else if i.int64Value == Int64.min {
                out += "@(-9223372036854775807LL - 1)"
            } else { out += "@" + i.description }
        case .real(let r):
            if r.value.isNaN { out += "@(NAN)" } else if r.value.isInfinite {
                out += r.value < 0 ? "@(-INFINITY)" : "@(INFINITY)"
            } else { out += "@" + r.value.description }
        case .bool(let b): out += b ? "@YES" : "@NO"
        case .array(let a):
            out += "@[\n"
            for element in a {
                out += indentation(depth + 1)
                try appendObjC(element, depth: depth + 1, to: &out)
                out += ",\n"
            }
            out += indentation(depth) + "]"
        case .dictionary(let d):
            out += "@{\n"
            for key in PlutilKeyOrder.sorted(d.keys) {
                out += indentation(depth + 1) + objcString(key) + " : "
                try appendObjC(d[key] ?? .bool(false), depth: depth + 1, to: &out)
                out += ",\n"
            }
            out += indentation(depth) + "}"
        case .date, .data, .uid:
            throw objcUnrepresentable
        }
    }

    private static func objcString(_ s: String) -> String {
        quoted(s, open: "@\"") { scalar in
            guard scalar.value < 0x20 || scalar.value == 0x7F else { return nil }
            // Three-digit octal: unlike \x, it cannot swallow a following hex digit.
            let o = String(scalar.value, radix: 8)
            return "\\" + String(repeating: "0", count: 3 - o.count) + o
        }
    }

    // MARK: Names

    /// The constant's name: the file's stem with every character that cannot appear in an identifier replaced by
    /// `_` (Apple's tool turns `-` and space into `_` and drops symbols), and `_` in front of a leading digit.
    static func identifier(from path: String) -> String {
        var out = ""
        for scalar in stem(path).unicodeScalars {
            let v = scalar.value
            let ok = (v >= 0x30 && v <= 0x39) || (v >= 0x41 && v <= 0x5A) || (v >= 0x61 && v <= 0x7A) || v == 0x5F
                || (v >= 0x80 && scalar.properties.isAlphabetic)
            out.unicodeScalars.append(ok ? scalar : "_")
        }
        if out.isEmpty { return "_" }
        if let first = out.unicodeScalars.first, first.value >= 0x30 && first.value <= 0x39 { out = "_" + out }
        return out
    }

    /// Swift's reserved words, which name a constant only in backquotes.
    static let swiftKeywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows", "static",
        "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default", "defer", "do",
        "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where", "while",
        "Any", "as", "await", "false", "is", "nil", "self", "Self", "super", "throws", "true", "try",
    ]

    /// C and Objective-C keywords and the common macros and types a constant cannot be named (`YES`, `BOOL`, `errno`,
    /// …). Names the C library or Foundation declare beyond these (`index`, `NSArray`) still clash.
    static let objcReserved: Set<String> = [
        "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
        "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
        "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "_Bool",
        "_Complex", "_Imaginary", "id", "instancetype", "BOOL", "YES", "NO", "nil", "Nil", "NULL", "SEL", "Class",
        "IMP", "Protocol", "true", "false", "bool", "TRUE", "FALSE", "NAN", "INFINITY", "errno", "stdin", "stdout",
        "stderr",
    ]

    private static func lastComponent(_ path: String) -> String {
        if path == "-" { return "<stdin>" }
        return path.split(separator: "/").last.map(String.init) ?? path
    }

    private static func stem(_ path: String) -> String {
        let name = path == "-" ? "stdin" : lastComponent(path)
        if let dot = name.lastIndex(of: "."), dot != name.startIndex { return String(name[..<dot]) }
        return name
    }

    private static func indentation(_ depth: Int) -> String { String(repeating: " ", count: depth * 4) }

    private static func hex(_ b: UInt8, upper: Bool) -> String {
        let digits = Array((upper ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
        return String(decoding: [digits[Int(b >> 4)], digits[Int(b & 0xF)]], as: UTF8.self)
    }
}

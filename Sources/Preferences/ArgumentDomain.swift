import PlistKit

/// The argument domain: `-key value` pairs from the command line.
enum ArgumentDomain {
    /// Parses arguments the way Core Foundation does: a token `-key` followed by a token not starting with `-` makes
    /// an entry; the value is parsed as a property list (OpenStep, a `.strings` body or XML; not JSON: `[1,2]` stays a
    /// string) when its
    /// first character is one of `{ ( [ < "`, otherwise (or when it does not parse) it is the string itself. A `-key`
    /// followed by another `-token` is skipped.
    static func parse(_ arguments: [String]) -> PlistDictionary {
        var result = PlistDictionary()
        var i = 0
        while i < arguments.count {
            let token = arguments[i]
            guard token.hasPrefix("-"), token.utf8.count > 1, i + 1 < arguments.count else { i += 1; continue }
            let next = arguments[i + 1]
            if next.hasPrefix("-") { i += 1; continue }
            let key = String(token.dropFirst())
            result[key] = parseValue(next)
            i += 2
        }
        return result
    }

    static func parseValue(_ text: String) -> PlistValue {
        guard let first = text.utf8.first, "{([<\"".utf8.contains(first) else { return .string(text) }
        var options = PlistReadOptions()
        options.allowedFormats = [.xml, .openStep, .strings]
        if let value = try? PropertyList.read(Array(text.utf8), options: options).value { return value }
        return .string(text)
    }
}

/// Paths as the bytes Linux takes them (a name need not be UTF-8), split into components and joined again.
enum PathBytes {
    /// `/` followed by the components joined with `/` (`/` for none).
    static func join(_ components: [[UInt8]]) -> [UInt8] {
        if components.isEmpty { return [0x2F] }
        var out: [UInt8] = []
        for component in components {
            out.append(0x2F)
            out += component
        }
        return out
    }

    /// The components of `path`, empty ones (from `//` or a trailing `/`) left out.
    static func split(_ path: [UInt8]) -> [[UInt8]] {
        path.split(separator: 0x2F, omittingEmptySubsequences: true).map(Array.init)
    }

    /// `path` as text, for messages (bytes that are not UTF-8 become U+FFFD).
    static func string(_ path: [UInt8]) -> String { String(decoding: path, as: UTF8.self) }
}

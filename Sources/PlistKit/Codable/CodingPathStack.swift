/// A coding key made at run time: array indices and the `super` key, which have no `CodingKeys` case.
struct PlistCodingKey: CodingKey, Sendable {
    let stringValue: String
    let intValue: Int?
    /// True for an array position (printed as `[i]`), false for a dictionary key.
    var isIndex = false

    init(stringValue: String) { self.stringValue = stringValue; intValue = nil }
    init(intValue: Int) { stringValue = String(intValue); self.intValue = intValue }
    init(index: Int) { stringValue = "Index \(index)"; intValue = index; isIndex = true }

    static let superKey = PlistCodingKey(stringValue: "super")
}

/// One step of a coding path. Array positions stay plain integers until someone asks for the path, so descending
/// into an array element costs no allocation.
enum CodingPathElement {
    case key(any CodingKey)
    case index(Int)

    var codingKey: any CodingKey {
        switch self {
        case .key(let k): return k
        case .index(let i): return PlistCodingKey(index: i)
        }
    }
}

/// The coding path of the value being encoded or decoded, kept as a stack shared by every container of one
/// encoder or decoder; containers remember only their depth in it.
struct CodingPathStack {
    var elements: [CodingPathElement] = []

    init() { elements.reserveCapacity(16) }

    var depth: Int { elements.count }

    @inline(__always) mutating func push(_ element: CodingPathElement) { elements.append(element) }
    @inline(__always) mutating func pop() { elements.removeLast() }

    /// The first `depth` elements as coding keys.
    func codingPath(depth: Int) -> [any CodingKey] {
        elements.prefix(depth).map(\.codingKey)
    }

    /// Replaces the stack with `path` (for containers created by `nestedContainer`, whose path is their own).
    mutating func replace(with path: [any CodingKey]) -> [CodingPathElement] {
        let saved = elements
        elements = path.map { .key($0) }
        return saved
    }
}

extension Array where Element == any CodingKey {
    /// `records[3].name`, for messages (`<root>` when empty).
    var dottedDescription: String {
        if isEmpty { return "<root>" }
        var out = ""
        for key in self {
            if let k = key as? PlistCodingKey, k.isIndex, let i = k.intValue {
                out += "[\(i)]"
            } else {
                if !out.isEmpty { out += "." }
                out += key.stringValue
            }
        }
        return out
    }
}

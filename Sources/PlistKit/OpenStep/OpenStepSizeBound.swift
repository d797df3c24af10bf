/// An upper bound on the bytes the OpenStep/GNUstep writer produces for a value, so the output can be written into
/// storage of its final home without growing (the writer still copes if the bound were ever short).
enum OpenStepSizeBound {
    /// Bytes for a scalar written in GNUstep form or as a lossy string, escapes included.
    static let scalar = 200

    /// Containers deeper than `maxDepth` add nothing: the writer refuses them before writing that far.
    static func bound(_ v: PlistValue, gnustep: Bool, depth: Int, maxDepth: Int) -> Int {
        switch v {
        case .string(let s): return s.utf8.count * 4 + 2
        case .data(let d): return gnustep ? (d.count + 2) / 3 * 4 + 4 : d.count * 9 / 4 + 3
        case .array(let a):
            guard depth < maxDepth else { return 0 }
            var total = 2 + depth * 4 + 1
            for e in a { total += (depth + 1) * 4 + bound(e, gnustep: gnustep, depth: depth + 1, maxDepth: maxDepth) + 2 }
            return total
        case .dictionary(let d):
            guard depth < maxDepth else { return 0 }
            var total = 2 + depth * 4 + 1
            d.withEntries { entries in
                for e in entries {
                    total += (depth + 1) * 4 + e.key.utf8.count * 4 + 2 + 3
                    total += bound(e.value, gnustep: gnustep, depth: depth + 1, maxDepth: maxDepth) + 2
                }
            }
            return total
        default: return scalar
        }
    }
}

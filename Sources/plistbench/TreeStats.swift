import PlistKit

/// The contract's tree statistics: every value counted (containers included, keys not), UTF-8 bytes of strings and
/// keys, bytes of data.
struct TreeStats {
    var nodes = 0, strBytes = 0, dataBytes = 0

    mutating func walk(_ v: PlistValue) {
        nodes += 1
        switch v {
        case .string(let s): strBytes += s.utf8.count
        case .data(let d): dataBytes += d.count
        case .array(let a): for x in a { walk(x) }
        case .dictionary(let d):
            for (k, x) in d {
                strBytes += k.utf8.count
                walk(x)
            }
        default: break
        }
    }
}

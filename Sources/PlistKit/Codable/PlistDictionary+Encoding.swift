// Building the dictionaries an encoding container collected.

/// Keys known to be unique, with the lookup index a dictionary of that many keys needs.
struct KeyTemplate {
    var keys: [String] = []
    var index: [ExactKey: Int]?
}

extension PlistDictionary {
    /// A dictionary over keys already known to be unique (and their index, when the size calls for one).
    init(uniqueKeys keys: [String], values: [PlistValue], index: [ExactKey: Int]?) {
        self.init()
        _keys = keys
        _values = values
        if keys.count > Self.indexThreshold {
            if let index, index.count == keys.count {
                _index = index
            } else {
                var built = [ExactKey: Int](minimumCapacity: keys.count * 2)
                for (i, k) in keys.enumerated() { built[ExactKey(k)] = i }
                _index = built
            }
        }
    }

    /// A dictionary from the parallel arrays an encoding container collected. A key encoded twice keeps its first
    /// position and its last value, as Foundation's encoder does.
    init(encodedKeys keys: [String], values: [PlistValue]) {
        self.init()
        if !Self.hasDuplicates(keys) {
            _keys = keys
            _values = values
            if keys.count > Self.indexThreshold {
                var index = [ExactKey: Int](minimumCapacity: keys.count * 2)
                for (i, k) in keys.enumerated() { index[ExactKey(k)] = i }
                _index = index
            }
            return
        }
        for i in 0..<keys.count { updateValue(values[i], forKey: keys[i]) }
    }

    private static func hasDuplicates(_ keys: [String]) -> Bool {
        let n = keys.count
        if n < 2 { return false }
        if n <= 16 {
            for i in 1..<n {
                let ki = keys[i]
                for j in 0..<i where exactKeyEqual(ki, keys[j]) { return true }
            }
            return false
        }
        var seen = Set<ExactKey>(minimumCapacity: n)
        for k in keys where !seen.insert(ExactKey(k)).inserted { return true }
        return false
    }
}

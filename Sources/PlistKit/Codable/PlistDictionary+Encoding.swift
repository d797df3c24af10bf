// Building the dictionaries an encoding container collected.

/// Keys known to be unique, with the lookup index a dictionary of that many keys needs.
struct KeyTemplate {
    var keys: [String] = []
    var index: PlistKeyIndex?
}

extension PlistDictionary {
    /// A dictionary over keys already known to be unique (and their index, when the size calls for one).
    init(uniqueKeys keys: [String], values: [PlistValue], index: PlistKeyIndex?) {
        // The template's index fits only the template's own (full) key array.
        let index = keys.count > Self.indexThreshold ? index ?? PlistKeyIndex(uniqueKeys: keys) : nil
        self = keys.withUnsafeBufferPointer { k in
            values.withUnsafeBufferPointer { v in PlistDictionary(uniqueKeys: k, values: v, index: index) }
        }
    }

    /// A dictionary from the parallel arrays an encoding container collected. A key encoded twice keeps its first
    /// position and its last value, as Foundation's encoder does.
    init(encodedKeys keys: [String], values: [PlistValue]) {
        let (index, duplicate) = PlistKeyIndex.forDictionary(keys)
        if duplicate == nil {
            self.init(uniqueKeys: keys, values: values, index: index)
            return
        }
        self.init(minimumCapacity: keys.count)
        for i in 0..<keys.count { updateValue(values[i], forKey: keys[i]) }
    }
}

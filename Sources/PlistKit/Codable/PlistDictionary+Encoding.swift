// Building the dictionaries an encoding container collected.

/// Keys known to be unique, with the lookup index of a dictionary of those keys, when it has one (shared by every
/// dictionary made from the template).
struct KeyTemplate {
    var keys: [String] = []
    var index: PlistKeyIndexBox?
}

extension PlistDictionary {
    /// A dictionary over keys already known to be unique, sharing `index` (which must be that of these very keys;
    /// without one, the first lookup builds it).
    init(uniqueKeys keys: [String], values: [PlistValue], sharing index: PlistKeyIndexBox?) {
        self = keys.withUnsafeBufferPointer { k in
            values.withUnsafeBufferPointer { v in PlistDictionary(uniqueKeys: k, values: v, sharing: index) }
        }
    }

    /// A dictionary from the parallel arrays an encoding container collected. A key encoded twice keeps its first
    /// position and its last value, as Foundation's encoder does.
    init(encodedKeys keys: [String], values: [PlistValue]) {
        let (index, duplicate) = PlistKeyIndex.forDictionary(keys)
        if duplicate == nil {
            self.init(uniqueKeys: keys, values: values, sharing: index.map(PlistKeyIndexBox.init))
            return
        }
        self.init(minimumCapacity: keys.count)
        for i in 0..<keys.count { updateValue(values[i], forKey: keys[i]) }
    }
}

/// Editing a property list at a `KeyPath`, with `plutil`'s rules: `-insert`, `-replace`, `-remove`, `-extract`.
///
/// Failures are `PlistError`s whose `keyPath` is the whole path given and whose message names it the way Apple's
/// `plutil` does ("Key path not found a.b", "Index 5 out of bounds in array at key path arr.5", …).
/// Parents are never created: every component but the last must already lead to a container.
extension PlistValue {
    /// The value at `path`, or a `.keyPath` error ("No value at that key path or invalid key path: …") when a key is
    /// missing, an index is out of range or not a number, or a scalar is in the way. The empty path is the root.
    public func value(at path: KeyPath) throws -> PlistValue {
        guard let found = self[path: path] else {
            throw PlistError(.keyPath, "No value at that key path or invalid key path: \(path)", keyPath: path)
        }
        return found
    }

    /// Inserts `value` at `path` (`plutil -insert`).
    ///
    /// - In a dictionary the last component must be a new key (else `.duplicateKey`, "Value already exists at key
    ///   path …"), unless `appending` is true and the existing value is an array, which then gets `value` appended
    ///   (a missing key is added as with a plain insert).
    /// - In an array the last component is an index `0…count`: the value is inserted there, shifting later
    ///   elements (`count` appends). With `appending`, the element at that index must be an array and gets `value`
    ///   appended.
    public mutating func insert(_ value: PlistValue, at path: KeyPath, appending: Bool = false) throws {
        try edit(at: path, depth: 0) { container, last in
            try container.insertChild(value, last, path: path, mode: appending ? .append : .insert)
        }
    }

    /// Sets `value` at `path` (`plutil -replace`): an existing key or element is overwritten, a new dictionary key is
    /// added, and index `count` appends to an array. Parents must exist.
    public mutating func replace(_ value: PlistValue, at path: KeyPath) throws {
        try edit(at: path, depth: 0) { container, last in
            try container.insertChild(value, last, path: path, mode: .replace)
        }
    }

    /// Removes and returns the value at `path` (`plutil -remove`); `.keyPath` error "No value to remove at key path
    /// …" when there is none. The root cannot be removed.
    @discardableResult
    public mutating func remove(at path: KeyPath) throws -> PlistValue {
        var removed: PlistValue = .bool(false)
        let missing = PlistError(.keyPath, "No value to remove at key path \(path)", keyPath: path)
        guard !path.components.isEmpty else { throw missing }
        do {
            try edit(at: path, depth: 0) { container, last in
                switch container {
                case .dictionary(var d):
                    guard let old = d.removeValue(forKey: last) else { throw missing }
                    removed = old
                    container = .dictionary(d)
                case .array(var a):
                    guard let i = KeyPath.arrayIndex(last), a.indices.contains(i) else { throw missing }
                    removed = a.remove(at: i)
                    container = .array(a)
                default:
                    throw missing
                }
            }
        } catch let error as PlistError where error.kind == .keyPath {
            // A missing parent is reported the same way as a missing leaf, as plutil does.
            throw missing
        }
        return removed
    }

    /// A copy with `value` inserted at `path`; see `insert(_:at:appending:)`.
    public func inserting(_ value: PlistValue, at path: KeyPath, appending: Bool = false) throws -> PlistValue {
        var copy = self
        try copy.insert(value, at: path, appending: appending)
        return copy
    }

    /// A copy with `value` set at `path`; see `replace(_:at:)`.
    public func replacing(_ value: PlistValue, at path: KeyPath) throws -> PlistValue {
        var copy = self
        try copy.replace(value, at: path)
        return copy
    }

    /// A copy without the value at `path`; see `remove(at:)`.
    public func removing(at path: KeyPath) throws -> PlistValue {
        var copy = self
        try copy.remove(at: path)
        return copy
    }

    // MARK: - Walking

    private enum InsertMode { case insert, append, replace }

    /// Walks to the parent of the last component and lets `body` change it in place.
    private mutating func edit(
        at path: KeyPath, depth: Int, _ body: (inout PlistValue, String) throws -> Void
    ) throws {
        let components = path.components
        guard !components.isEmpty else {
            throw PlistError(.keyPath, "Key path not found \(path)", keyPath: path)
        }
        if depth == components.count - 1 {
            try body(&self, components[depth])
            return
        }
        let component = components[depth]
        switch self {
        case .dictionary(var d):
            guard let i = d.index(forKey: component) else {
                throw PlistError(.keyPath, "Key path not found \(path)", keyPath: path)
            }
            var child = d.value(at: i)
            // Drop this value's hold on the dictionary, then the dictionary's on the child, so both are uniquely
            // owned and edited without a copy.
            self = .bool(false)
            d.setValue(.bool(false), at: i)
            defer { d.setValue(child, at: i); self = .dictionary(d) }
            try child.edit(at: path, depth: depth + 1, body)
        case .array(var a):
            guard let i = KeyPath.arrayIndex(component) else { throw Self.badIndex(component, path) }
            guard a.indices.contains(i) else {
                throw PlistError(.keyPath, "Index \(i) out of bounds in array at key path \(path)", keyPath: path)
            }
            var child = a[i]
            self = .bool(false)
            a[i] = .bool(false)
            defer { a[i] = child; self = .array(a) }
            try child.edit(at: path, depth: depth + 1, body)
        default:
            throw PlistError(.keyPath, "Unable to insert value at key path \(path)", keyPath: path)
        }
    }

    /// The error for an array index that is not one: a negative number is out of bounds, anything else cannot index
    /// (Apple's two messages).
    private static func badIndex(_ component: String, _ path: KeyPath) -> PlistError {
        if let n = KeyPath.signedIndex(component) {
            return PlistError(.keyPath, "Index \(n) out of bounds in array at key path \(path)", keyPath: path)
        }
        return PlistError(.keyPath, "Unable to index into array with key path \(path)", keyPath: path)
    }

    private mutating func insertChild(_ value: PlistValue, _ key: String, path: KeyPath, mode: InsertMode) throws {
        switch self {
        case .dictionary(var d):
            self = .bool(false)
            defer { self = .dictionary(d) }
            guard let i = d.index(forKey: key) else {
                // A new key is simply added, even with `appending` (as Apple's tool does).
                d.updateValue(value, forKey: key)
                return
            }
            switch mode {
            case .replace:
                d.updateValue(value, forKey: key)
            case .insert:
                throw PlistError(.duplicateKey, "Value already exists at key path \(path)", keyPath: path)
            case .append:
                guard case .array(var inner) = d.value(at: i) else {
                    throw PlistError(.keyPath, "Appending to a non-array at key path \(path)", keyPath: path)
                }
                d.setValue(.bool(false), at: i)
                inner.append(value)
                d.setValue(.array(inner), at: i)
            }
        case .array(var a):
            guard let i = KeyPath.arrayIndex(key) else { throw Self.badIndex(key, path) }
            guard i <= a.count, mode != .append || i < a.count else {
                throw PlistError(.keyPath, "Index \(i) out of bounds in array at key path \(path)", keyPath: path)
            }
            self = .bool(false)
            defer { self = .array(a) }
            switch mode {
            case .insert:
                a.insert(value, at: i)
            case .replace:
                if i == a.count { a.append(value) } else { a[i] = value }
            case .append:
                guard case .array(var inner) = a[i] else {
                    throw PlistError(.keyPath, "Attempt to append value to non-array at key path \(path)", keyPath: path)
                }
                a[i] = .bool(false)
                inner.append(value)
                a[i] = .array(inner)
            }
        default:
            throw PlistError(.keyPath, "Unable to insert value at key path \(path)", keyPath: path)
        }
    }
}

/// Receives a document's structure as a reader finds it: the one seam between every reader and whatever is built
/// from what it reads (a `PlistValue` tree, a writer's output, a recording).
///
/// A document is one value. A scalar is one `value(_:at:)` call; an array is `beginArray`, its elements, `endArray`;
/// a dictionary is `beginDictionary`, then for each entry `key` followed by the entry's value, then `endDictionary`.
/// Sources send exactly that grammar, so a sink never has to check it.
///
/// Every event carries the byte range it came from, in the caller's original bytes (after undoing any rewrite of the
/// input: see `OffsetMap`): a scalar's whole text, a container's opening and closing tokens. A source computes exact
/// ranges only for sinks that ask (`wantsExactRanges`); for the others a range may be empty and sit anywhere inside
/// the token, which is enough to position an error, and positions in errors a sink throws are moved to the token's
/// start by the source.
///
/// The methods after `value(_:at:)` are optional optimisations with default implementations: a binary document can
/// refer to one object from many places, and a sink that can stand in a whole subtree (or a dictionary's keys) by
/// itself saves the source from sending its events again — which also keeps a small hostile file from expanding
/// into a huge stream of events.
///
/// Errors: a sink throws `PlistError`; a key path it gives is relative to the container it was told about last, and
/// the source puts the path of that container in front.
public protocol PlistEventSink {
    /// Whether this sink needs exact source ranges (a document that keeps its source text does; a tree does not).
    static var wantsExactRanges: Bool { get }

    /// An array starts; `count` is its element count when the source knows it in advance.
    mutating func beginArray(count: Int?, at range: Range<Int>) throws
    /// The innermost open array ends.
    mutating func endArray(at range: Range<Int>) throws
    /// A dictionary starts; `count` is its entry count when the source knows it in advance.
    mutating func beginDictionary(count: Int?, at range: Range<Int>) throws
    /// The innermost open dictionary ends.
    mutating func endDictionary(at range: Range<Int>) throws
    /// The key of the next entry of the innermost dictionary; the entry's value follows.
    mutating func key(_ key: consuming String, at range: Range<Int>) throws
    /// A scalar: a string, integer, real, Boolean, date, data or UID — never an array or a dictionary.
    mutating func value(_ value: PlistValue, at range: Range<Int>) throws

    /// Called right after the events of a value the source may meet again (an object referred to from several
    /// places): a token for `repeatSubtree`, or nil when the sink cannot stand in the value by itself (the source
    /// then sends its events again next time).
    mutating func rememberSubtree() -> Int?
    /// Whether `rememberSubtree` can return a token (true by default). A sink whose `rememberSubtree` never does (a
    /// writer) may say false: a binary reading then keeps one byte of state per object instead of four.
    static var remembersSubtrees: Bool { get }
    /// The value remembered as `token`, again, in place of its events.
    mutating func repeatSubtree(_ token: Int, at range: Range<Int>) throws
    /// Called right after `endDictionary`: remember that dictionary's keys under `slot` (0 ..< 256), replacing what
    /// the slot held, for `beginDictionary(count:keysFromSlot:at:)`.
    mutating func rememberKeys(inSlot slot: Int)
    /// A dictionary of `count` entries whose keys are, one for one and in order, those remembered in `slot`. Returns
    /// true when the sink still remembers them: the dictionary has begun and only its `count` values follow, then
    /// `endDictionary`. Returns false (having begun nothing) when it does not: the source sends the dictionary as
    /// usual.
    mutating func beginDictionary(count: Int, keysFromSlot slot: Int, at range: Range<Int>) throws -> Bool
    /// Called after `beginDictionary` by a source that has checked that the new dictionary's keys are distinct
    /// (exact scalars), so the sink need not check again.
    mutating func declareDistinctKeys()
    /// Called after `declareDistinctKeys` by a source that has read the new dictionary's keys before its values
    /// (binary): return true to take all `count` keys now (`key(i)` is the i-th), and the source then sends only the
    /// values, in key order, with no `key` events; false (the default) to receive them as `key` events.
    mutating func takeDistinctKeys(count: Int, _ key: (Int) -> String) throws -> Bool
}

extension PlistEventSink {
    public static var wantsExactRanges: Bool { false }
    public mutating func rememberSubtree() -> Int? { nil }
    public static var remembersSubtrees: Bool { true }
    public mutating func repeatSubtree(_ token: Int, at range: Range<Int>) throws {
        preconditionFailure("repeatSubtree is only called with a token rememberSubtree returned")
    }
    public mutating func rememberKeys(inSlot slot: Int) {}
    public mutating func beginDictionary(count: Int, keysFromSlot slot: Int, at range: Range<Int>) throws -> Bool { false }
    public mutating func declareDistinctKeys() {}
    public mutating func takeDistinctKeys(count: Int, _ key: (Int) -> String) throws -> Bool { false }
}

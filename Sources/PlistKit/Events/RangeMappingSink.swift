/// Puts the ranges of events read from a rewritten input back into the caller's bytes, for a sink that wants exact
/// ranges (`PlistEventSink.wantsExactRanges`); readers put it in front of such a sink only when the input was
/// rewritten. An error the sink throws is then positioned in the caller's bytes already, and says so, so the reader
/// does not map it a second time.
struct RangeMappingSink<Inner: PlistEventSink>: PlistEventSink {
    var inner: Inner
    let map: OffsetMap

    static var wantsExactRanges: Bool { Inner.wantsExactRanges }
    static var remembersSubtrees: Bool { Inner.remembersSubtrees }

    private func mapped(_ range: Range<Int>) -> Range<Int> {
        let start = map.original(range.lowerBound)
        return start..<max(start, map.original(range.upperBound))
    }

    /// Runs `body` on the inner sink, marking an error it throws as positioned in the caller's bytes.
    @inline(__always)
    private mutating func forward<R>(_ body: (inout Inner) throws -> R) throws -> R {
        do {
            return try body(&inner)
        } catch var e as PlistError {
            e.offsetIsOriginal = true
            throw e
        }
    }

    mutating func beginArray(count: Int?, at range: Range<Int>) throws {
        let r = mapped(range)
        try forward { try $0.beginArray(count: count, at: r) }
    }

    mutating func endArray(at range: Range<Int>) throws {
        let r = mapped(range)
        try forward { try $0.endArray(at: r) }
    }

    mutating func beginDictionary(count: Int?, at range: Range<Int>) throws {
        let r = mapped(range)
        try forward { try $0.beginDictionary(count: count, at: r) }
    }

    mutating func endDictionary(at range: Range<Int>) throws {
        let r = mapped(range)
        try forward { try $0.endDictionary(at: r) }
    }

    mutating func key(_ key: consuming String, at range: Range<Int>) throws {
        let r = mapped(range)
        let k = key
        try forward { try $0.key(k, at: r) }
    }

    mutating func value(_ value: PlistValue, at range: Range<Int>) throws {
        let r = mapped(range)
        try forward { try $0.value(value, at: r) }
    }

    mutating func rememberSubtree() -> Int? { inner.rememberSubtree() }

    mutating func repeatSubtree(_ token: Int, at range: Range<Int>) throws {
        let r = mapped(range)
        try forward { try $0.repeatSubtree(token, at: r) }
    }

    mutating func rememberKeys(inSlot slot: Int) { inner.rememberKeys(inSlot: slot) }

    mutating func beginDictionary(count: Int, keysFromSlot slot: Int, at range: Range<Int>) throws -> Bool {
        let r = mapped(range)
        return try forward { try $0.beginDictionary(count: count, keysFromSlot: slot, at: r) }
    }

    mutating func declareDistinctKeys() { inner.declareDistinctKeys() }
    mutating func takeDistinctKeys(count: Int, _ key: (Int) -> String) throws -> Bool {
        try inner.takeDistinctKeys(count: count, key)
    }
}

extension RangeMappingSink: NestingLimited where Inner: NestingLimited {
    mutating func enterWrapper(at offset: Int) throws { try inner.enterWrapper(at: offset) }
    mutating func exitWrapper() { inner.exitWrapper() }
}


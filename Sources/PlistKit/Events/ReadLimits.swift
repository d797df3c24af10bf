/// The read options' caps on nesting and object count, applied to a stream of events.
///
/// Every parse goes through one `LimitingSink` in front of its real sink, so the caps hold — and a recursive reader's
/// stack stays bounded — whatever the sink is (a tree, a writer, a caller's own sink).
struct ReadLimits {
    let maxDepth: Int
    let maxObjectCount: Int
    /// Binary documents are bounded by their trailer's object count (checked against `maxObjectCount` before any
    /// object is read), so their values are not counted again.
    let countsObjects: Bool
    let format: PlistFormat
    private(set) var depth = 0
    private(set) var objects = 0

    init(_ options: PlistReadOptions, format: PlistFormat) {
        maxDepth = options.maxDepth
        maxObjectCount = options.maxObjectCount
        countsObjects = format != .binary
        self.format = format
    }

    /// A container (or, in XML, a `<plist>` nested as a value) opens.
    @inline(__always)
    mutating func enter(at offset: Int) throws {
        depth += 1
        if depth > maxDepth { throw depthError(at: offset) }
    }

    @inline(__always)
    mutating func exit() { depth -= 1 }

    /// A value (a scalar or a container) is read.
    @inline(__always)
    mutating func count(at offset: Int) throws {
        guard countsObjects else { return }
        objects += 1
        if objects > maxObjectCount { throw countError(at: offset) }
    }

    /// Takes back the last `count` (a dictionary that did not begin after all).
    @inline(__always)
    mutating func uncount() {
        if countsObjects { objects -= 1 }
    }

    // Each format keeps the wording its reader has always used: the messages are part of the tools' output.
    @inline(never)
    private func depthError(at offset: Int) -> PlistError {
        let message: String
        switch format {
        case .binary: message = "nesting deeper than \(maxDepth) levels"
        case .xml: message = "too many nested arrays or dictionaries (the limit is \(maxDepth))"
        case .json: message = "nesting is deeper than the limit of \(maxDepth)"
        case .openStep, .gnustep, .strings: message = "more than \(maxDepth) nested arrays or dictionaries (maxDepth)"
        }
        return PlistError(.depthLimit, message, format: format, offset: offset)
    }

    @inline(never)
    private func countError(at offset: Int) -> PlistError {
        let message: String
        switch format {
        case .json: message = "more than \(maxObjectCount) values (the read options' maxObjectCount)"
        case .openStep, .gnustep, .strings: message = "more than \(maxObjectCount) objects (maxObjectCount)"
        case .xml, .binary: message = "more than \(maxObjectCount) objects"
        }
        return PlistError(.countLimit, message, format: format, offset: offset)
    }
}

/// A sink that can count a level of nesting that is not a container (XML's `<plist>` nested as a value).
protocol NestingLimited {
    mutating func enterWrapper(at offset: Int) throws
    mutating func exitWrapper()
}

extension LimitingSink: NestingLimited {
    mutating func enterWrapper(at offset: Int) throws { try limits.enter(at: offset) }
    mutating func exitWrapper() { limits.exit() }
}

/// Applies `ReadLimits` to the events on their way to `inner`.
struct LimitingSink<Inner: PlistEventSink>: PlistEventSink {
    var inner: Inner
    var limits: ReadLimits

    init(_ inner: Inner, limits: ReadLimits) {
        self.inner = inner
        self.limits = limits
    }

    static var wantsExactRanges: Bool { Inner.wantsExactRanges }
    static var remembersSubtrees: Bool { Inner.remembersSubtrees }

    @inline(__always)
    mutating func beginArray(count: Int?, at range: Range<Int>) throws {
        try limits.count(at: range.lowerBound)
        try limits.enter(at: range.lowerBound)
        try inner.beginArray(count: count, at: range)
    }

    @inline(__always)
    mutating func endArray(at range: Range<Int>) throws {
        limits.exit()
        try inner.endArray(at: range)
    }

    @inline(__always)
    mutating func beginDictionary(count: Int?, at range: Range<Int>) throws {
        try limits.count(at: range.lowerBound)
        try limits.enter(at: range.lowerBound)
        try inner.beginDictionary(count: count, at: range)
    }

    @inline(__always)
    mutating func endDictionary(at range: Range<Int>) throws {
        limits.exit()
        try inner.endDictionary(at: range)
    }

    @inline(__always)
    mutating func key(_ key: consuming String, at range: Range<Int>) throws {
        try inner.key(key, at: range)
    }

    @inline(__always)
    mutating func value(_ value: PlistValue, at range: Range<Int>) throws {
        try limits.count(at: range.lowerBound)
        try inner.value(value, at: range)
    }

    @inline(__always)
    mutating func rememberSubtree() -> Int? { inner.rememberSubtree() }

    @inline(__always)
    mutating func repeatSubtree(_ token: Int, at range: Range<Int>) throws {
        try inner.repeatSubtree(token, at: range)
    }

    @inline(__always)
    mutating func rememberKeys(inSlot slot: Int) { inner.rememberKeys(inSlot: slot) }

    @inline(__always)
    mutating func beginDictionary(count: Int, keysFromSlot slot: Int, at range: Range<Int>) throws -> Bool {
        try limits.count(at: range.lowerBound)
        try limits.enter(at: range.lowerBound)
        if try inner.beginDictionary(count: count, keysFromSlot: slot, at: range) { return true }
        limits.exit()
        limits.uncount()
        return false
    }

    @inline(__always)
    mutating func declareDistinctKeys() { inner.declareDistinctKeys() }

    @inline(__always)
    mutating func takeDistinctKeys(count: Int, _ key: (Int) -> String) throws -> Bool {
        try inner.takeDistinctKeys(count: count, key)
    }
}

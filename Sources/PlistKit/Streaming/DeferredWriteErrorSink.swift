/// Stands between a stream and its writer so that a conversion fails as the tree path fails: a value the output format
/// cannot hold is an error only once the whole input has been read without one (the tree reader reads everything
/// before anything is written). The first error the writer throws is kept, with its full key path, and the writer gets
/// nothing more; errors from the input itself pass as they come.
struct DeferredWriteErrorSink<Writer: PlistEventSink>: PlistEventSink {
    var writer: Writer
    /// The writer's first error, with the key path of the value it refused.
    private(set) var deferred: PlistError?
    /// `deferred != nil`, kept apart: testing the optional error copied it on every event (measured).
    private var failed = false
    /// Where the stream is: per open container, the next array index or the current key.
    private var path: [(index: Int, key: String?)] = []

    init(_ writer: Writer) { self.writer = writer }

    static var wantsExactRanges: Bool { Writer.wantsExactRanges }
    /// A writer is sent a shared subtree again each time (`rememberSubtree` is not passed on).
    static var remembersSubtrees: Bool { false }

    private var currentPath: [String] {
        path.map { $0.key ?? String($0.index) }
    }

    /// Keeps the writer's first failure (not thrown) with the stream's key path. Out of line: each event calls the
    /// writer directly (a closure around the call was not inlined for every writer: 5 % of a JSON-to-XML stream).
    @inline(never)
    private mutating func keep(_ error: any Error) {
        if case let e as PlistError = error {
            var e = e
            let components = currentPath + (e.keyPath?.components ?? [])
            if !components.isEmpty { e.keyPath = KeyPath(components: components) }
            deferred = e
        } else {
            deferred = PlistError(.io, "\(error)", keyPath: KeyPath(components: currentPath))
        }
        failed = true
    }

    /// A value (scalar or container) is complete: the next one in an array has the next index.
    @inline(__always)
    private mutating func valueEnded() {
        guard !path.isEmpty else { return }
        if path[path.count - 1].key == nil { path[path.count - 1].index += 1 }
    }

    mutating func beginArray(count: Int?, at range: Range<Int>) throws {
        if !failed { do { try writer.beginArray(count: count, at: range) } catch { keep(error) } }
        path.append((0, nil))
    }

    mutating func endArray(at range: Range<Int>) throws {
        _ = path.popLast()
        if !failed { do { try writer.endArray(at: range) } catch { keep(error) } }
        valueEnded()
    }

    mutating func beginDictionary(count: Int?, at range: Range<Int>) throws {
        if !failed { do { try writer.beginDictionary(count: count, at: range) } catch { keep(error) } }
        path.append((0, ""))
    }

    mutating func endDictionary(at range: Range<Int>) throws {
        _ = path.popLast()
        if !failed { do { try writer.endDictionary(at: range) } catch { keep(error) } }
        valueEnded()
    }

    mutating func key(_ key: consuming String, at range: Range<Int>) throws {
        let k = key
        if !path.isEmpty { path[path.count - 1].key = k }
        if !failed { do { try writer.key(k, at: range) } catch { keep(error) } }
    }

    mutating func value(_ value: PlistValue, at range: Range<Int>) throws {
        if !failed { do { try writer.value(value, at: range) } catch { keep(error) } }
        valueEnded()
    }

    mutating func declareDistinctKeys() { writer.declareDistinctKeys() }
}

/// One step of a document's structure, as `PlistEventSink` receives it, in a form that can be stored and compared.
public enum PlistEvent: Sendable, Hashable {
    case beginArray(count: Int?)
    case endArray
    case beginDictionary(count: Int?)
    case endDictionary
    case key(String)
    /// A scalar (never an array or a dictionary).
    case value(PlistValue)
}

/// A sink that keeps every event with its source range: for tests, debugging, and replaying a document into
/// another sink.
public struct PlistEventRecorder: PlistEventSink {
    /// The events in order, each with the byte range it came from.
    public private(set) var events: [(event: PlistEvent, range: Range<Int>)] = []

    public init() {}

    /// Asks for exact ranges, so a recording shows where each event's text lies.
    public static var wantsExactRanges: Bool { true }

    /// The events without their ranges.
    public var plainEvents: [PlistEvent] { events.map(\.event) }

    public mutating func beginArray(count: Int?, at range: Range<Int>) throws { events.append((.beginArray(count: count), range)) }
    public mutating func endArray(at range: Range<Int>) throws { events.append((.endArray, range)) }
    public mutating func beginDictionary(count: Int?, at range: Range<Int>) throws {
        events.append((.beginDictionary(count: count), range))
    }
    public mutating func endDictionary(at range: Range<Int>) throws { events.append((.endDictionary, range)) }
    public mutating func key(_ key: consuming String, at range: Range<Int>) throws { events.append((.key(key), range)) }
    public mutating func value(_ value: PlistValue, at range: Range<Int>) throws { events.append((.value(value), range)) }

    /// Sends the recorded events, in order, to `sink`.
    public func replay<Sink: PlistEventSink>(into sink: inout Sink) throws {
        for (event, range) in events { try event.send(to: &sink, at: range) }
    }
}

extension PlistEvent {
    /// Calls the `sink` method this event stands for.
    @inline(__always)
    func send<Sink: PlistEventSink>(to sink: inout Sink, at range: Range<Int>) throws {
        switch self {
        case .beginArray(let count): try sink.beginArray(count: count, at: range)
        case .endArray: try sink.endArray(at: range)
        case .beginDictionary(let count): try sink.beginDictionary(count: count, at: range)
        case .endDictionary: try sink.endDictionary(at: range)
        case .key(let key): try sink.key(key, at: range)
        case .value(let value): try sink.value(value, at: range)
        }
    }
}

import Synchronization

/// Delivers `PreferencesEvent`s to registered handlers, synchronously on the posting thread.
final class EventHub: Sendable {
    private let handlers = Mutex<[(id: Int, body: @Sendable (PreferencesEvent) -> Void)]>([])
    private let nextID = Atomic<Int>(1)
    /// Whether damaged files and failed flushes are also written to stderr.
    let logsToStandardError: Bool

    init(logsToStandardError: Bool) {
        self.logsToStandardError = logsToStandardError
    }

    func add(_ body: @escaping @Sendable (PreferencesEvent) -> Void) -> Int {
        let id = nextID.add(1, ordering: .relaxed).oldValue
        handlers.withLock { $0.append((id, body)) }
        return id
    }

    func remove(_ id: Int) {
        handlers.withLock { $0.removeAll { $0.id == id } }
    }

    func post(_ event: PreferencesEvent) {
        if logsToStandardError { log(event) }
        let current = handlers.withLock { $0 }
        for handler in current { handler.body(event) }
    }

    private func log(_ event: PreferencesEvent) {
        let line: String
        switch event {
        case let .corruptFileMovedAside(domain, path, movedTo, reason):
            line = "preferences: \(path) (domain \(domain)) is damaged (\(reason)); moved to \(movedTo), starting empty"
        case let .managedFileIgnored(domain, path, _):
            line = "preferences: \(path) (domain \(domain)) is damaged (managed file does not parse; ignored)"
        case let .sizeLimitExceeded(domain, size, limit):
            line = "preferences: domain \(domain) would be \(size) bytes, over the \(limit)-byte limit; not written"
        case let .flushFailed(domain, error):
            line = "preferences: could not save domain \(domain): \(error)"
        case let .readFailed(domain, error):
            line = "preferences: could not read domain \(domain): \(error)"
        case let .notWritable(domain, key):
            line = "preferences: key \(key) in domain \(domain) is managed and not writable"
        case let .unsupportedValue(key, typeName):
            line = "preferences: a \(typeName) cannot be stored in a property list (key \(key)); ignored"
        case .didChange:
            return
        }
        StandardError.write(line + "\n")
    }
}

/// Writing to stderr without Foundation.
enum StandardError {
    static func write(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { raw in
            #if canImport(Glibc)
            Glibc.write(2, raw.baseAddress, raw.count)
            #else
            Musl.write(2, raw.baseAddress, raw.count)
            #endif
        }
    }
}
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

import PlistKit
import Synchronization

/// A change of one key's effective value (what `plistValue(forKey:)` returns through the search list).
public struct PreferenceChange: Sendable, Equatable {
    public var key: String
    public var oldValue: PlistValue?
    public var newValue: PlistValue?
}

/// Keeps an observation alive; `cancel()` (or dropping every copy of the token's owner) stops it.
public final class PreferencesObservation: Sendable {
    private let cancelAction: Mutex<(@Sendable () -> Void)?>

    init(_ cancel: @escaping @Sendable () -> Void) {
        cancelAction = Mutex(cancel)
    }

    /// Stops delivering changes.
    public func cancel() {
        let action = cancelAction.withLock { a -> (@Sendable () -> Void)? in
            defer { a = nil }
            return a
        }
        action?()
    }

    deinit { cancel() }
}

/// Per-instance observer bookkeeping: re-evaluates observed keys when a domain of the search list changes (in this
/// process, or in another one as reported by inotify), and calls handlers with old and new values.
final class ObserverRegistry: Sendable {
    private struct Observer {
        var key: String
        var last: PlistValue?
        var handler: @Sendable (PreferenceChange) -> Void
    }
    private struct State {
        var observers: [Int: Observer] = [:]
        var domainHandlers: [Int: @Sendable (String, [String], Bool) -> Void] = [:]
        var nextID = 1
        var eventToken: Int?
    }
    private let state = Mutex(State())

    /// Adds a key observer; `current` is the key's value now.
    func add(key: String, current: PlistValue?, handler: @escaping @Sendable (PreferenceChange) -> Void) -> (id: Int, needsSubscription: Bool) {
        state.withLock { s in
            let id = s.nextID
            s.nextID += 1
            s.observers[id] = Observer(key: key, last: current, handler: handler)
            return (id, s.eventToken == nil)
        }
    }

    func addDomainHandler(_ handler: @escaping @Sendable (String, [String], Bool) -> Void) -> (id: Int, needsSubscription: Bool) {
        state.withLock { s in
            let id = s.nextID
            s.nextID += 1
            s.domainHandlers[id] = handler
            return (id, s.eventToken == nil)
        }
    }

    func setEventToken(_ token: Int) -> Bool {
        state.withLock { s in
            guard s.eventToken == nil else { return false }
            s.eventToken = token
            return true
        }
    }

    func remove(_ id: Int) {
        state.withLock { s in
            s.observers[id] = nil
            s.domainHandlers[id] = nil
        }
    }

    /// Called for every `didChange` of a domain in the search list.
    func domainChanged(_ domain: String, keys: [String], external: Bool, lookup: (String) -> PlistValue?) {
        let (observers, domainHandlers) = state.withLock { ($0.observers, $0.domainHandlers) }
        for handler in domainHandlers.values { handler(domain, keys, external) }
        var fire: [(PreferenceChange, @Sendable (PreferenceChange) -> Void)] = []
        for (id, observer) in observers where keys.isEmpty || keys.contains(where: { $0.utf8.elementsEqual(observer.key.utf8) }) {
            let now = lookup(observer.key)
            let old: PlistValue?? = state.withLock { s in
                guard var o = s.observers[id], o.last != now else { return .none }
                let previous = o.last
                o.last = now
                s.observers[id] = o
                return .some(previous)
            }
            if case .some(let previous) = old {
                fire.append((PreferenceChange(key: observer.key, oldValue: previous, newValue: now), observer.handler))
            }
        }
        for (change, handler) in fire { handler(change) }
    }
}

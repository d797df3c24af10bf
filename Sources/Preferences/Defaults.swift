import FoundationEssentials
import PlistKit
import Synchronization

/// A `UserDefaults`-shaped preferences store for Linux that is crash-safe, safe with several writing processes,
/// keeps URLs intact and supports managed (forced) keys. Porting from `UserDefaults` is a rename.
///
/// Reads go through the search list (see `SearchList`); writes go to the receiver's domain for the current user and
/// any host, land in memory at once and reach the disk through a debounced background flush, at exit, or when
/// `synchronize()` is called. Instances are `Sendable` and may be used from any thread.
public final class Defaults: Sendable {
    /// The domain this instance writes to (the application domain, or the suite's).
    public let domain: String
    /// The context: locations, options, argument and registration domains, shared file cache.
    public let environment: PreferencesEnvironment
    /// How URLs are stored and read back: `BookmarkURLArchiver` unless the initializer was given another.
    public let urlArchiver: any URLArchiver

    private struct State {
        var suites: [String] = []
        var layers: [SearchLayer] = []
    }
    private let state: Mutex<State>
    let observers = ObserverRegistry()

    /// The standard instance: the application domain in `PreferencesEnvironment.shared`.
    public static let standard = Defaults(
        validatedDomain: PreferencesEnvironment.shared.applicationDomain, environment: .shared,
        urlArchiver: BookmarkURLArchiver())

    /// Kept for porting: like Apple's, it has no effect on values (instances read through to the shared store).
    public static func resetStandardUserDefaults() {}

    /// Name of the global domain (`NSGlobalDomain`).
    public static let globalDomain = PreferencesLocations.globalDomain
    /// Name of the argument domain.
    public static let argumentDomain = PreferencesEnvironment.argumentDomainName
    /// Name of the registration domain.
    public static let registrationDomain = PreferencesEnvironment.registrationDomainName

    /// An instance for the suite `suiteName` (nil: the application domain), as `UserDefaults(suiteName:)`.
    /// Returns nil for the global domain, the application's own domain, and names that cannot name a file.
    public convenience init?(suiteName: String?) {
        self.init(suiteName: suiteName, environment: .shared)
    }

    /// The application domain's defaults, as `UserDefaults()` and `standard` give (a separate instance over the same
    /// store), so `UserDefaults()` ports by a rename too.
    public convenience init() {
        self.init(validatedDomain: PreferencesEnvironment.shared.applicationDomain, environment: .shared)
    }

    /// An instance for `suiteName` in a given environment (tests, containers).
    public init?(suiteName: String?, environment: PreferencesEnvironment, urlArchiver: any URLArchiver = BookmarkURLArchiver()) {
        let name = suiteName ?? environment.applicationDomain
        if let suiteName {
            guard suiteName != Self.globalDomain, suiteName != environment.applicationDomain,
                PreferencesLocations.isValidDomainName(suiteName)
            else { return nil }
        }
        self.domain = name
        self.environment = environment
        self.urlArchiver = urlArchiver
        self.ownFile = environment.persistentFile(name)
        self.state = Mutex(State(layers: SearchList.layers(domain: name, suites: [], environment: environment)))
    }

    /// An instance addressing any domain name, the global domain included (used by the `defaults` tool).
    public init(validatedDomain: String, environment: PreferencesEnvironment, urlArchiver: any URLArchiver = BookmarkURLArchiver()) {
        self.domain = validatedDomain
        self.environment = environment
        self.urlArchiver = urlArchiver
        self.ownFile = environment.persistentFile(validatedDomain)
        self.state = Mutex(State(layers: SearchList.layers(domain: validatedDomain, suites: [], environment: environment)))
    }

    private var layers: [SearchLayer] { state.withLock { $0.layers } }
    /// The file writes go to (current user, any host), resolved once.
    private let ownFile: DomainFile

    // MARK: Reading

    /// The value for `key` from the first domain in the search list that has it.
    public func plistValue(forKey key: String) -> PlistValue? {
        firstHit(for: key)?.value
    }

    /// A value and where in the search list it came from: a managed layer or not, this instance's own file or not.
    private struct SearchHit {
        var value: PlistValue
        var isForced: Bool
        var isOwnFile: Bool
    }

    /// The first layer of the search list that has `key`: the one walk every per-key question goes through. With
    /// `managedOnly`, the walk ends at the first layer that is not managed (the managed layers come first).
    private func firstHit(for key: String, managedOnly: Bool = false) -> SearchHit? {
        let now = SystemClock.monotonicNanoseconds()
        // Fast path: walk the list in place under this instance's lock (no array copy) using only cached values.
        // A file due for a re-check sends us to the slow path, which runs without the lock because re-reading may
        // post change events whose handlers read this instance again.
        let fast: SearchHit?? = state.withLock { s in
            for layer in s.layers {
                switch layer {
                case .file(let file, let forced):
                    if managedOnly, !forced { return .some(nil) }
                    // Compared before the lookup: a use of `file` after it keeps it retained across the call, which
                    // made a cached read (`plistbench preferences`) about 30 ns slower than its 90.
                    let isOwnFile = file === ownFile
                    switch file.cachedValue(forKey: key, now: now) {
                    case .none: return .none
                    case .some(.some(let value)): return .some(SearchHit(value: value, isForced: forced, isOwnFile: isOwnFile))
                    case .some(.none): continue
                    }
                case .arguments:
                    if managedOnly { return .some(nil) }
                    if let value = environment.argumentDomain[key] { return .some(SearchHit(value: value, isForced: false, isOwnFile: false)) }
                case .registration:
                    if managedOnly { return .some(nil) }
                    if let value = environment.registration[key] { return .some(SearchHit(value: value, isForced: false, isOwnFile: false)) }
                }
            }
            return .some(nil)
        }
        if case .some(let hit) = fast { return hit }
        for layer in layers {
            if managedOnly, !layer.isForced { return nil }
            guard let value = layer.value(forKey: key, now: now, environment: environment) else { continue }
            if case .file(let file, let forced) = layer { return SearchHit(value: value, isForced: forced, isOwnFile: file === ownFile) }
            return SearchHit(value: value, isForced: false, isOwnFile: false)
        }
        return nil
    }

    /// The value as a Swift object (`String`, `Int`, `Double`, `Bool`, `Date`, `Data`, `[Any]`, `[String: Any]`;
    /// integers above `Int.max` as `UInt64`).
    public func object(forKey key: String) -> Any? {
        plistValue(forKey: key).map(ValueConversion.any(from:))
    }

    /// A string, or a number's text; nil for other types.
    public func string(forKey key: String) -> String? { Coercion.string(plistValue(forKey: key)) }

    /// An array, else nil.
    public func array(forKey key: String) -> [Any]? {
        guard case .array(let a)? = plistValue(forKey: key) else { return nil }
        return a.map(ValueConversion.any(from:))
    }

    /// A dictionary, else nil.
    public func dictionary(forKey key: String) -> [String: Any]? {
        guard case .dictionary? = plistValue(forKey: key), let d = object(forKey: key) as? [String: Any] else { return nil }
        return d
    }

    /// An array whose elements are all strings, else nil (numbers are not converted).
    public func stringArray(forKey key: String) -> [String]? {
        guard case .array(let a)? = plistValue(forKey: key) else { return nil }
        var out: [String] = []
        for element in a {
            guard case .string(let s) = element else { return nil }
            out.append(s)
        }
        return out
    }

    /// Data, else nil.
    public func data(forKey key: String) -> Data? { plistValue(forKey: key)?.dataValue }

    /// A date, else nil.
    public func date(forKey key: String) -> Date? { plistValue(forKey: key)?.dateValue?.date }

    /// `integerValue` semantics: numbers (saturating), Booleans as 1/0, strings' leading decimal integer; else 0.
    public func integer(forKey key: String) -> Int { Coercion.integer(plistValue(forKey: key)) }

    /// `doubleValue` semantics (no hex, Booleans as 1/0); else 0.
    public func double(forKey key: String) -> Double { Coercion.double(plistValue(forKey: key)) }

    /// `floatValue` semantics.
    public func float(forKey key: String) -> Float { Float(Coercion.double(plistValue(forKey: key))) }

    /// `boolValue` semantics: numbers non-zero; strings true at the first of `1-9yYtT` after whitespace, signs and
    /// zeros; else false.
    public func bool(forKey key: String) -> Bool { Coercion.bool(plistValue(forKey: key)) }

    /// A URL from whatever form is stored (see `URLArchiver`); nil, never a crash, for anything else.
    ///
    /// With the default `BookmarkURLArchiver` a stored bookmark is resolved (this may do file-system I/O, and follows
    /// a renamed or moved file); a stale one is rewritten in place with refreshed data and the new path, when the
    /// value lives in this instance's own domain and the key still holds it. Use `bookmark(forKey:)` and
    /// `resolveBookmark(forKey:)` to decide yourself when resolution happens.
    public func url(forKey key: String) -> URL? {
        guard let value = plistValue(forKey: key), let resolved = urlArchiver.resolve(value) else { return nil }
        if let replacement = resolved.replacement { rewrite(key, from: value, to: replacement) }
        return resolved.url
    }

    /// Stores `new` for `key` only if the receiver's own domain supplies `key` (not a higher or lower layer, not a
    /// managed value) and still holds `old`, so a concurrent `set` is never undone. Marks the key for the next flush.
    func rewrite(_ key: String, from old: PlistValue, to new: PlistValue) {
        guard ownFileSupplies(key), ownFile.replace(old, with: new, forKey: key) else { return }
        environment.events.post(.didChange(domain: domain, keys: [key], external: false))
    }

    private func ownFileSupplies(_ key: String) -> Bool {
        guard let hit = firstHit(for: key) else { return false }
        return !hit.isForced && hit.isOwnFile
    }

    // MARK: Writing

    /// Stores a value (any plist type, Swift scalars, `Date`, `Data`, `URL`, arrays and `[String: Any]`); nil removes.
    /// A value no property list can hold is ignored and reported as `.unsupportedValue`; a managed key is left
    /// unchanged and reported as `.notWritable` (use `trySet` to get an error instead).
    public func set(_ value: Any?, forKey key: String) {
        guard let value else { removeObject(forKey: key); return }
        guard let converted = ValueConversion.plist(from: value, urlArchiver: urlArchiver) else {
            environment.events.post(.unsupportedValue(key: key, typeName: "\(type(of: value))"))
            return
        }
        _ = try? trySet(converted, forKey: key)
    }

    public func set(_ value: Int, forKey key: String) { _ = try? trySet(.integer(PlistInteger(value)), forKey: key) }
    public func set(_ value: Double, forKey key: String) { _ = try? trySet(.real(PlistReal(value)), forKey: key) }
    public func set(_ value: Float, forKey key: String) { _ = try? trySet(.real(PlistReal(value)), forKey: key) }
    public func set(_ value: Bool, forKey key: String) { _ = try? trySet(.bool(value), forKey: key) }
    /// Stores a URL through `urlArchiver`; nil removes.
    public func set(_ url: URL?, forKey key: String) {
        guard let url else { removeObject(forKey: key); return }
        _ = try? trySet(urlArchiver.archive(url), forKey: key)
    }

    /// Stores a property-list value; nil removes.
    public func setPlistValue(_ value: PlistValue?, forKey key: String) {
        _ = try? trySet(value, forKey: key)
    }

    /// Stores (or with nil removes) a value, throwing `.notWritable` when the key is managed.
    public func trySet(_ value: PlistValue?, forKey key: String) throws {
        if isForced(key) {
            environment.events.post(.notWritable(domain: domain, key: key))
            throw PreferencesError(.notWritable, "the key \(key) is managed and not writable", domain: domain)
        }
        ownFile.set(value, forKey: key)
        environment.events.post(.didChange(domain: domain, keys: [key], external: false))
    }

    /// Removes the value from the receiver's domain (lower domains may still supply one).
    public func removeObject(forKey key: String) {
        _ = try? trySet(nil, forKey: key)
    }

    /// Adds values to the registration domain (process-wide, never stored, searched last).
    public func register(defaults: [String: Any]) {
        var d = PlistDictionary()
        for key in defaults.keys.sorted() {
            if let v = defaults[key], let converted = ValueConversion.plist(from: v, urlArchiver: urlArchiver) {
                d[key] = converted
            } else {
                let typeName = defaults[key].map { "\(type(of: $0))" } ?? "nil"
                environment.events.post(.unsupportedValue(key: key, typeName: typeName))
            }
        }
        environment.register(d)
    }

    /// Adds property-list values to the registration domain.
    public func register(plistDefaults: PlistDictionary) {
        environment.register(plistDefaults)
    }

    // MARK: Suites

    /// Adds a domain to the search list after the receiver's own (read-through; writes still go to the receiver).
    public func addSuite(named name: String) {
        guard PreferencesLocations.isValidDomainName(name), name != domain, name != Self.globalDomain else { return }
        state.withLock { s in
            guard !s.suites.contains(name) else { return }
            s.suites.append(name)
            s.layers = SearchList.layers(domain: domain, suites: s.suites, environment: environment)
        }
    }

    /// Removes a domain added with `addSuite(named:)`.
    public func removeSuite(named name: String) {
        state.withLock { s in
            s.suites.removeAll { $0 == name }
            s.layers = SearchList.layers(domain: domain, suites: s.suites, environment: environment)
        }
    }

    // MARK: Whole search list and domains

    /// Every key in the search list with the value `plistValue(forKey:)` would return for it.
    public func plistRepresentation() -> PlistDictionary {
        // Lowest layer first, so each key ends with the value of the first layer that has it.
        var result = PlistDictionary()
        for layer in layers.reversed() {
            for (k, v) in layer.values(environment: environment) { result[k] = v }
        }
        return result
    }

    /// The whole search list as Swift objects (Apple's contract: `[rep objectForKey:x] == [self objectForKey:x]`).
    public func dictionaryRepresentation() -> [String: Any] {
        var out: [String: Any] = [:]
        for (k, v) in plistRepresentation() { out[k] = ValueConversion.any(from: v) }
        return out
    }

    /// Whether the value for `key` comes from the managed layer (and cannot be changed).
    public func objectIsForced(forKey key: String) -> Bool { isForced(key) }

    /// Whether `key` is managed in `domain`'s search list.
    public func objectIsForced(forKey key: String, inDomain domain: String) -> Bool {
        environment.managedFile(domain).value(forKey: key) != nil
            || environment.managedFile(Self.globalDomain).value(forKey: key) != nil
    }

    /// Whether a managed layer has `key` (they come first in the search list, so its value comes from there).
    private func isForced(_ key: String) -> Bool {
        firstHit(for: key, managedOnly: true) != nil
    }

    /// The current user's, any-host values of a persistent domain, or nil when it has none.
    public func persistentDomain(forName name: String) -> [String: Any]? {
        guard let d = persistentPlistDomain(forName: name) else { return nil }
        return ValueConversion.any(from: .dictionary(d)) as? [String: Any]
    }

    /// The current user's, any-host values of a persistent domain as a `PlistDictionary`, or nil when empty.
    public func persistentPlistDomain(forName name: String) -> PlistDictionary? {
        guard PreferencesLocations.isValidDomainName(name) else { return nil }
        let d = environment.persistentFile(name).snapshot()
        return d.isEmpty ? nil : d
    }

    /// Replaces a persistent domain's values (keys not in `values` are removed) and flushes it.
    public func setPersistentDomain(_ values: [String: Any], forName name: String) {
        guard case .dictionary(let d)? = ValueConversion.plist(from: values, urlArchiver: urlArchiver) else { return }
        try? setPersistentPlistDomain(d, forName: name)
    }

    /// Replaces a persistent domain's values and writes it now.
    public func setPersistentPlistDomain(_ values: PlistDictionary, forName name: String) throws {
        guard PreferencesLocations.isValidDomainName(name) else {
            throw PreferencesError(.invalidDomain, "\"\(name)\" cannot name a domain")
        }
        let file = environment.persistentFile(name)
        file.replaceAll(with: values)
        try file.synchronize()
        environment.events.post(.didChange(domain: name, keys: values.keys, external: false))
    }

    /// Removes every value of a persistent domain (its file is deleted).
    public func removePersistentDomain(forName name: String) {
        try? removePersistentDomainOrThrow(forName: name)
    }

    /// Removes every value of a persistent domain, reporting failures.
    public func removePersistentDomainOrThrow(forName name: String) throws {
        guard PreferencesLocations.isValidDomainName(name) else {
            throw PreferencesError(.invalidDomain, "\"\(name)\" cannot name a domain")
        }
        try environment.persistentFile(name).discardChangesAndDelete()
        environment.events.post(.didChange(domain: name, keys: [], external: false))
    }

    /// Names of the current user's persistent domains (from the files in the user directory), sorted; the global
    /// domain is listed as `NSGlobalDomain`.
    public var persistentDomainNames: [String] {
        var names: [String] = []
        for entry in FileSystem.listDirectory(environment.locations.userDirectory) where entry.hasSuffix(".plist") {
            let base = String(entry.dropLast(6))
            if base == PreferencesLocations.globalFileName { names.append(Self.globalDomain); continue }
            if base.hasPrefix(".") || base.isEmpty { continue }
            names.append(base)
        }
        return names.sorted()
    }

    // MARK: Volatile domains

    /// Names of the volatile domains (registration and argument domains included).
    public var volatileDomainNames: [String] { environment.volatileDomainNames }

    /// A volatile domain's values (empty when absent).
    public func volatileDomain(forName name: String) -> [String: Any] {
        guard let d = environment.volatileDomain(name) else { return [:] }
        return ValueConversion.any(from: .dictionary(d)) as? [String: Any] ?? [:]
    }

    /// Sets a volatile domain (not searched, not stored).
    public func setVolatileDomain(_ values: [String: Any], forName name: String) {
        guard case .dictionary(let d)? = ValueConversion.plist(from: values, urlArchiver: urlArchiver) else { return }
        environment.setVolatileDomain(d, name: name)
    }

    /// Removes a volatile domain.
    public func removeVolatileDomain(forName name: String) {
        environment.removeVolatileDomain(name)
    }

    // MARK: Synchronisation

    /// Writes this instance's pending changes now and picks up other processes' changes. Returns false on failure
    /// (see `synchronizeOrThrow` for the reason).
    @discardableResult
    public func synchronize() -> Bool {
        (try? synchronizeOrThrow()) != nil
    }

    /// Writes pending changes of every domain in the search list now and re-reads changed files.
    public func synchronizeOrThrow() throws {
        var firstError: Error?
        for layer in layers {
            guard case .file(let file, _) = layer else { continue }
            do { try file.synchronize() } catch { firstError = firstError ?? error }
        }
        if let firstError { throw firstError }
    }
}

// MARK: - Observation

extension Defaults {
    /// Calls `handler` with the old and new value whenever the effective value of `key` changes — by this process or,
    /// through inotify on the domain directories, by another one. Keep the returned token; cancel it to stop.
    public func observe(_ key: String, handler: @escaping @Sendable (PreferenceChange) -> Void) -> PreferencesObservation {
        let (id, subscribe) = observers.add(key: key, current: plistValue(forKey: key), handler: handler)
        if subscribe { subscribeToChanges() }
        return PreferencesObservation { [observers] in observers.remove(id) }
    }

    /// The changes of `key` as an `AsyncStream` (ends when the consuming task is cancelled).
    public func changes(forKey key: String) -> AsyncStream<PreferenceChange> {
        AsyncStream { continuation in
            let token = observe(key) { continuation.yield($0) }
            continuation.onTermination = { _ in token.cancel() }
        }
    }

    /// The did-change notification: called with the domain and keys whenever a domain in this instance's search
    /// list changes (`external` when another process changed the file; `keys` empty when a whole domain was replaced).
    public func onDidChange(_ handler: @escaping @Sendable (_ domain: String, _ keys: [String], _ external: Bool) -> Void) -> PreferencesObservation {
        let (id, subscribe) = observers.addDomainHandler(handler)
        if subscribe { subscribeToChanges() }
        return PreferencesObservation { [observers] in observers.remove(id) }
    }

    private func subscribeToChanges() {
        let token = environment.addEventHandler { [weak self] event in
            guard let self, case let .didChange(domain, keys, external) = event else { return }
            let inSearchList = domain == self.domain || domain == Self.globalDomain
                || self.state.withLock { $0.suites.contains(domain) }
            guard inSearchList else { return }
            self.observers.domainChanged(domain, keys: keys, external: external) { self.plistValue(forKey: $0) }
        }
        guard observers.setEventToken(token) else {
            environment.removeEventHandler(token)
            return
        }
        let files = layers.compactMap { layer -> DomainFile? in
            if case .file(let file, _) = layer { return file }
            return nil
        }
        environment.watchDirectories(of: files)
    }
}

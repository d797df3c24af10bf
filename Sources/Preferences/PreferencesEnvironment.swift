import PlistKit
import Synchronization

/// The process-wide context a `Defaults` instance works in: file locations, store options, the argument domain, the
/// registration and volatile domains, and the cache of open domain files (so every instance naming a domain shares
/// one in-memory copy, as Core Foundation does).
///
/// `PreferencesEnvironment.shared` is built from the process environment and `CommandLine.arguments`; tests and
/// containers create their own.
public final class PreferencesEnvironment: Sendable {
    /// Where files live.
    public let locations: PreferencesLocations
    /// How files are read and written.
    public let options: StoreOptions
    /// The name of the application domain (`CommandLine` process name unless given).
    public let applicationDomain: String

    let events: EventHub
    let scheduler: FlushScheduler
    private let files = Mutex<[String: DomainFile]>([:])
    private let volatile = Mutex<[String: PlistDictionary]>([:])
    /// The `-key value` arguments, until `setVolatileDomain(_:name:)` replaces them (as `UserDefaults` allows).
    private let arguments: Mutex<PlistDictionary>
    var argumentDomain: PlistDictionary { arguments.withLock { $0 } }
    private let watcher = Mutex<DirectoryWatcher?>(nil)

    /// The name of the argument domain in the volatile-domain API.
    public static let argumentDomainName = "NSArgumentDomain"
    /// The name of the registration domain in the volatile-domain API.
    public static let registrationDomainName = "NSRegistrationDomain"

    /// - Parameters:
    ///   - locations: file roots.
    ///   - options: store options (format, size cap, flush delay, codec).
    ///   - applicationDomain: the app's domain name; defaults to the executable's name, as Foundation on Linux.
    ///   - arguments: command-line arguments to parse into the argument domain (`-key value`), without the program name.
    ///   - logsToStandardError: also print damaged files and failed flushes to stderr.
    public init(
        locations: PreferencesLocations, options: StoreOptions = StoreOptions(), applicationDomain: String? = nil,
        arguments: [String] = [], logsToStandardError: Bool = true
    ) {
        self.locations = locations
        self.options = options
        self.applicationDomain = applicationDomain ?? Self.processName()
        self.events = EventHub(logsToStandardError: logsToStandardError)
        self.scheduler = FlushScheduler(delay: options.flushDelay, events: events)
        self.arguments = Mutex(ArgumentDomain.parse(arguments))
    }

    /// The environment of `Defaults.standard`: locations from environment variables, arguments from the command line.
    public static let shared = PreferencesEnvironment(
        locations: .fromEnvironment(), arguments: Array(CommandLine.arguments.dropFirst()))

    static func processName() -> String {
        guard let first = CommandLine.arguments.first, !first.isEmpty else { return "unknown" }
        let name = AtomicFile.lastComponent(first)
        return PreferencesLocations.isValidDomainName(name) ? name : "unknown"
    }

    /// Registers a handler for store events (damaged files, size limit, refused writes, changes). Returns a token for
    /// `removeEventHandler`.
    @discardableResult
    public func addEventHandler(_ handler: @escaping @Sendable (PreferencesEvent) -> Void) -> Int {
        events.add(handler)
    }

    /// Removes a handler added with `addEventHandler`.
    public func removeEventHandler(_ token: Int) {
        events.remove(token)
    }

    /// Writes every domain with pending changes now.
    public func flushAll() throws {
        let all = files.withLock { Array($0.values) }
        var firstError: PreferencesError?
        for file in all where file.hasUnsavedChanges {
            do { try file.synchronize() } catch let error as PreferencesError { firstError = firstError ?? error }
        }
        if let firstError { throw firstError }
    }

    // MARK: Files

    /// The shared cache entry for a file path. `movesDamagedAside` is false for a file the user named by path rather
    /// than one of the store's own: a file that does not parse as a dictionary is then left where it is, unwritten.
    func file(
        domain: String, path: String, readOnly: Bool, newFileMode: UInt32? = nil, movesDamagedAside: Bool = true
    ) -> DomainFile {
        // A file named by path is cached apart from the store's own entry for the same path, so which one was opened
        // first does not decide whether a damaged file is moved aside.
        let key = movesDamagedAside ? path : "\u{0}named:" + path
        return files.withLock { cache in
            if let existing = cache[key] { return existing }
            let file = DomainFile(
                domain: domain, path: path, readOnly: readOnly, options: options, events: events,
                scheduler: readOnly ? nil : scheduler, newFileMode: newFileMode, movesDamagedAside: movesDamagedAside)
            cache[key] = file
            return file
        }
    }

    /// A persistent domain's file.
    func persistentFile(_ domain: String, user: PreferencesUser = .current, host: PreferencesHost = .any) -> DomainFile {
        // All-users files are world-readable, as Core Foundation writes them.
        file(
            domain: domain, path: locations.path(domain: domain, user: user, host: host), readOnly: false,
            newFileMode: user == .any ? 0o644 : nil)
    }

    /// A managed domain's file (read-only).
    func managedFile(_ domain: String) -> DomainFile {
        file(domain: domain, path: locations.managedPath(domain: domain), readOnly: true)
    }

    /// Starts inotify watches on the directories of `files` (creating the current user's directories, as a write
    /// would). A change reported there re-reads the matching cached files, which posts `didChange` for other
    /// processes' edits.
    func watchDirectories(of files: [DomainFile]) {
        let w: DirectoryWatcher? = watcher.withLock { current in
            if current == nil {
                current = DirectoryWatcher { [weak self] path in self?.fileChanged(path) }
            }
            return current
        }
        guard let w else { return }
        for file in files {
            let directory = AtomicFile.directoryName(file.targetPath)
            if directory.hasPrefix(locations.userDirectory) { try? FileSystem.makeDirectories(directory) }
            w.watch(directory)
        }
    }

    /// Re-reads the cached files at `path`, or every cached file when inotify lost events (`nil`).
    func fileChanged(_ path: String?) {
        let matching = files.withLock { cache in
            cache.values.filter { path == nil || $0.path == path || $0.targetPath == path }
        }
        for file in matching { _ = file.snapshot(force: true) }
    }

    // MARK: Volatile domains

    var registration: PlistDictionary {
        volatile.withLock { $0[Self.registrationDomainName] ?? PlistDictionary() }
    }

    func register(_ defaults: PlistDictionary) {
        volatile.withLock { v in
            var current = v[Self.registrationDomainName] ?? PlistDictionary()
            for (k, value) in defaults { current[k] = value }
            v[Self.registrationDomainName] = current
        }
    }

    func volatileDomain(_ name: String) -> PlistDictionary? {
        if name == Self.argumentDomainName { return argumentDomain }
        return volatile.withLock { $0[name] }
    }

    var volatileDomainNames: [String] {
        var names = volatile.withLock { Array($0.keys) }
        if !names.contains(Self.registrationDomainName) { names.append(Self.registrationDomainName) }
        names.append(Self.argumentDomainName)
        return names.sorted()
    }

    func setVolatileDomain(_ values: PlistDictionary, name: String) {
        if name == Self.argumentDomainName { arguments.withLock { $0 = values }; return }
        volatile.withLock { $0[name] = values }
    }

    func removeVolatileDomain(_ name: String) {
        if name == Self.argumentDomainName { arguments.withLock { $0 = PlistDictionary() }; return }
        volatile.withLock { _ = $0.removeValue(forKey: name) }
    }
}

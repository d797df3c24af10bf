import PlistKit

/// One entry of a search list.
enum SearchLayer: Sendable {
    /// A file-backed domain; `forced` for the managed layer.
    case file(DomainFile, forced: Bool)
    /// The argument domain.
    case arguments
    /// The process's registration domain.
    case registration
}

/// Builds the search list of a `Defaults` instance (the domain order of Apple's `UserDefaults` documentation and
/// CoreFoundation's `CFPreferences.c`, with the Linux managed layer on top):
/// managed → arguments → app byHost → app → suites (byHost, any host) → global byHost → global → all-users (app,
/// suites, global) → registration. Volatile domains are not searched.
enum SearchList {
    static func layers(domain: String, suites: [String], environment: PreferencesEnvironment) -> [SearchLayer] {
        let global = PreferencesLocations.globalDomain
        var layers: [SearchLayer] = []
        for name in [domain] + suites + [global] {
            layers.append(.file(environment.managedFile(name), forced: true))
        }
        layers.append(.arguments)
        for name in [domain] + suites + [global] {
            layers.append(.file(environment.persistentFile(name, user: .current, host: .current), forced: false))
            layers.append(.file(environment.persistentFile(name, user: .current, host: .any), forced: false))
        }
        for name in [domain] + suites + [global] {
            layers.append(.file(environment.persistentFile(name, user: .any, host: .any), forced: false))
        }
        layers.append(.registration)
        return layers
    }
}

extension SearchLayer {
    /// Whether values from this layer are managed (forced) and cannot be changed.
    var isForced: Bool {
        if case .file(_, let forced) = self { return forced }
        return false
    }

    /// This layer's value for `key`, re-reading its file when the recheck interval has passed.
    func value(forKey key: String, now: UInt64, environment: PreferencesEnvironment) -> PlistValue? {
        switch self {
        case .file(let file, _): return file.value(forKey: key, now: now)
        case .arguments: return environment.argumentDomain[key]
        case .registration: return environment.registration[key]
        }
    }

    /// Every value of this layer.
    func values(environment: PreferencesEnvironment) -> PlistDictionary {
        switch self {
        case .file(let file, _): return file.snapshot()
        case .arguments: return environment.argumentDomain
        case .registration: return environment.registration
        }
    }
}

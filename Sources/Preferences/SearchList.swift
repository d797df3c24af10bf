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

/// Builds the search list of a `Defaults` instance (reference §2.1, with the Linux managed layer on top):
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

import PlistKit

/// CFPreferences-style access: one (domain, user, host) file at a time, outside any search list. Per-host values
/// written here are read by every `Defaults` whose search list includes the domain (byHost layers).
extension PreferencesEnvironment {
    /// The value of `key` in exactly one scope.
    public func value(forKey key: String, domain: String, user: PreferencesUser, host: PreferencesHost) -> PlistValue? {
        guard PreferencesLocations.isValidDomainName(domain) else { return nil }
        return persistentFile(domain, user: user, host: host).value(forKey: key)
    }

    /// Every key and value of one scope.
    public func values(domain: String, user: PreferencesUser, host: PreferencesHost) -> PlistDictionary {
        guard PreferencesLocations.isValidDomainName(domain) else { return PlistDictionary() }
        return persistentFile(domain, user: user, host: host).snapshot()
    }

    /// Sets (nil removes) `key` in one scope; refused with `.notWritable` when the domain's managed layer has the key.
    /// Like `Defaults.set`, the change is in memory at once and flushed later; call `synchronize(domain:user:host:)`
    /// to write now.
    public func setValue(_ value: PlistValue?, forKey key: String, domain: String, user: PreferencesUser, host: PreferencesHost) throws {
        guard PreferencesLocations.isValidDomainName(domain) else {
            throw PreferencesError(.invalidDomain, "\"\(domain)\" cannot name a domain")
        }
        if managedFile(domain).value(forKey: key) != nil || managedFile(PreferencesLocations.globalDomain).value(forKey: key) != nil {
            events.post(.notWritable(domain: domain, key: key))
            throw PreferencesError(.notWritable, "the key \(key) is managed and not writable", domain: domain)
        }
        persistentFile(domain, user: user, host: host).set(value, forKey: key)
        events.post(.didChange(domain: domain, keys: [key], external: false))
    }

    /// Writes one scope's pending changes now and re-reads it.
    public func synchronize(domain: String, user: PreferencesUser, host: PreferencesHost) throws {
        guard PreferencesLocations.isValidDomainName(domain) else {
            throw PreferencesError(.invalidDomain, "\"\(domain)\" cannot name a domain")
        }
        try persistentFile(domain, user: user, host: host).synchronize()
    }
}

extension PreferencesLocations {
    /// These locations with the current user's directory replaced by `root`, as a Flatpak-style container gives an
    /// app its own config directory: every domain the app names — its own, suites, the global domain — is read and
    /// written inside the container, never in the user's real directory. All-users and managed roots are kept
    /// (read-only for an unprivileged app).
    public func contained(in root: String) -> PreferencesLocations {
        var copy = self
        copy.userDirectory = root
        return copy
    }
}

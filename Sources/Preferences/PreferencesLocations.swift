#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Which user a domain belongs to, as CFPreferences addresses it.
public enum PreferencesUser: Sendable, Hashable {
    /// The current user (`$XDG_CONFIG_HOME`).
    case current
    /// Every user (the all-users directory, `/usr/local/etc` by default).
    case any
}

/// Which host a domain applies to.
public enum PreferencesHost: Sendable, Hashable {
    /// Every host: `<root>/<domain>.plist`.
    case any
    /// This machine: `<root>/ByHost/<domain>.<host id>.plist`.
    case current
    /// A host named explicitly (what `defaults -host` uses): `<root>/ByHost/<domain>.<name>.plist`.
    case named(String)
}

/// Where preference files live. Every root can be relocated by an environment variable, so tests, containers and
/// administrators never have to touch the real home directory.
///
/// | root | default | environment variable |
/// |---|---|---|
/// | current user | `~/.config` | `XDG_CONFIG_HOME` (as Foundation on Linux) |
/// | all users | `/usr/local/etc` (Foundation's `kCFPreferencesAnyUser`) | `PREFERENCES_ANY_USER_DIR` |
/// | managed (forced, read-only) | `/etc/preferences/managed` | `PREFERENCES_MANAGED_DIR` |
/// | host id | contents of `/etc/machine-id` | `PREFERENCES_HOST_ID` |
/// | container | none | `PREFERENCES_CONTAINER` (replaces the current-user root) |
public struct PreferencesLocations: Sendable, Hashable {
    /// Directory of the current user's domains.
    public var userDirectory: String
    /// Directory of the all-users domains.
    public var anyUserDirectory: String
    /// Directory of managed (forced) domains; its files are only read.
    public var managedDirectory: String
    /// The identifier that names this machine's `ByHost` files.
    public var hostID: String

    /// The global domain's name in the API (`NSGlobalDomain`, as Apple).
    public static let globalDomain = "NSGlobalDomain"
    /// The global domain's file base name (`.GlobalPreferences`, which Foundation's search list reads).
    public static let globalFileName = ".GlobalPreferences"

    public init(userDirectory: String, anyUserDirectory: String, managedDirectory: String, hostID: String) {
        self.userDirectory = userDirectory
        self.anyUserDirectory = anyUserDirectory
        self.managedDirectory = managedDirectory
        self.hostID = hostID
    }

    /// Locations from the process environment (see the table above).
    public static func fromEnvironment() -> PreferencesLocations {
        let user: String
        if let container = FileSystem.environment("PREFERENCES_CONTAINER") {
            user = container
        } else if let xdg = FileSystem.environment("XDG_CONFIG_HOME") {
            user = xdg
        } else {
            user = homeDirectory() + "/.config"
        }
        return PreferencesLocations(
            userDirectory: user,
            anyUserDirectory: FileSystem.environment("PREFERENCES_ANY_USER_DIR") ?? "/usr/local/etc",
            managedDirectory: FileSystem.environment("PREFERENCES_MANAGED_DIR") ?? "/etc/preferences/managed",
            hostID: FileSystem.environment("PREFERENCES_HOST_ID") ?? machineID()
        )
    }

    /// All three roots under one directory (`<base>/user`, `<base>/any-user`, `<base>/managed`) — for tests.
    public static func under(_ base: String, hostID: String = "testhost") -> PreferencesLocations {
        PreferencesLocations(
            userDirectory: base + "/user", anyUserDirectory: base + "/any-user",
            managedDirectory: base + "/managed", hostID: hostID)
    }

    /// `$HOME`, else the password database entry.
    static func homeDirectory() -> String {
        if let home = FileSystem.environment("HOME") { return home }
        if let entry = getpwuid(getuid()), let dir = entry.pointee.pw_dir { return String(cString: dir) }
        return "/"
    }

    /// The systemd/D-Bus machine id, trimmed; falls back to the host name.
    static func machineID() -> String {
        for path in ["/etc/machine-id", "/var/lib/dbus/machine-id"] {
            if let (bytes, _) = try? FileSystem.readFile(path, limit: 4096) {
                let text = String(decoding: bytes, as: UTF8.self).filter { !$0.isWhitespace }
                if !text.isEmpty { return text }
            }
        }
        var buffer = [CChar](repeating: 0, count: 256)
        if gethostname(&buffer, buffer.count - 1) == 0 { return FileSystem.cString(buffer) }
        return "localhost"
    }

    /// Whether `name` can name a domain file: non-empty, no `/` or NUL, not `.` or `..`.
    public static func isValidDomainName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.utf8.contains(UInt8(ascii: "/"))
            && !name.utf8.contains(0)
    }

    /// The file base name for a domain (the global domain maps to `.GlobalPreferences`).
    static func fileBaseName(_ domain: String) -> String {
        domain == globalDomain ? globalFileName : domain
    }

    /// The plist path of a persistent domain.
    public func path(domain: String, user: PreferencesUser = .current, host: PreferencesHost = .any) -> String {
        let root = user == .current ? userDirectory : anyUserDirectory
        let base = Self.fileBaseName(domain)
        switch host {
        case .any: return "\(root)/\(base).plist"
        case .current: return "\(root)/ByHost/\(base).\(hostID).plist"
        case .named(let name): return "\(root)/ByHost/\(base).\(name).plist"
        }
    }

    /// The plist path of a managed (forced) domain.
    public func managedPath(domain: String) -> String {
        "\(managedDirectory)/\(Self.fileBaseName(domain)).plist"
    }
}

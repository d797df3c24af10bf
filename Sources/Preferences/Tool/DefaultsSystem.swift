#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What `defaults` consults outside the preferences store: installed applications, which `-app <name>` resolves
/// to a domain (as Apple's tool resolves `<name>.app` to its bundle identifier), and the per-app containers that
/// `-container <id>` and `delete-all` reach.
///
/// On Linux an application is a freedesktop desktop entry, and its domain is the desktop file ID without
/// `.desktop` (for a Flatpak or any reverse-DNS entry, the app ID: `org.gnome.Calculator`). A container is a
/// Flatpak app's config directory, `~/.var/app/<id>/config`.
public struct DefaultsSystem: Sendable {
    /// Directories searched for `applications/*.desktop`, most important first.
    public var dataDirectories: [String]
    /// The directory holding one container per app, each with its preferences in `<id>/config`.
    public var containersDirectory: String

    public init(dataDirectories: [String], containersDirectory: String) {
        self.dataDirectories = dataDirectories
        self.containersDirectory = containersDirectory
    }

    /// `$XDG_DATA_HOME` (default `~/.local/share`), then `$XDG_DATA_DIRS` (default `/usr/local/share:/usr/share`),
    /// then the Flatpak export directories when they are not already listed; containers under `~/.var/app`.
    public static func fromEnvironment() -> DefaultsSystem {
        let home = PreferencesLocations.homeDirectory()
        var directories = [nonEmptyEnvironment("XDG_DATA_HOME") ?? home + "/.local/share"]
        let shared = nonEmptyEnvironment("XDG_DATA_DIRS") ?? "/usr/local/share:/usr/share"
        directories += shared.split(separator: ":").map(String.init)
        // Flatpak's profile script adds these to XDG_DATA_DIRS, but not every session runs it.
        for exports in [home + "/.local/share/flatpak/exports/share", "/var/lib/flatpak/exports/share"]
        where !directories.contains(exports) {
            directories.append(exports)
        }
        return DefaultsSystem(dataDirectories: directories, containersDirectory: home + "/.var/app")
    }

    private static func nonEmptyEnvironment(_ name: String) -> String? {
        guard let value = FileSystem.environment(name), !value.isEmpty else { return nil }
        return value
    }

    /// The preferences directory of container `id`.
    func containerRoot(_ id: String) -> String { containersDirectory + "/\(id)/config" }

    /// The preferences directories of every container that has one, in name order.
    func containerRoots() -> [String] {
        FileSystem.listDirectory(containersDirectory).sorted().compactMap { id in
            guard !id.hasPrefix(".") else { return nil }
            let root = containerRoot(id)
            return FileSystem.isDirectory(root) ? root : nil
        }
    }

    // MARK: Applications

    /// The domain of the application called `name`: a desktop file ID (`org.gnome.Calculator`), else an entry's
    /// `Name` (`Calculator`), else the last component of an ID (`calculator`) — each compared without regard to
    /// case, the most important directory winning. Nil when nothing matches.
    func applicationDomain(named name: String) -> String? {
        var wanted = name.lowercased()
        if wanted.hasSuffix(".desktop") { wanted.removeLast(".desktop".count) }
        guard !wanted.isEmpty else { return nil }
        let apps = applications()
        if let app = apps.first(where: { $0.id.lowercased() == wanted }) { return app.id }
        if let app = apps.first(where: { $0.name?.lowercased() == wanted }) { return app.id }
        return apps.first { $0.id.split(separator: ".").last.map { $0.lowercased() == wanted } ?? false }?.id
    }

    struct Application: Equatable {
        var id: String
        var name: String?
    }

    /// Installed applications in precedence order. An ID found in a more important directory hides the same ID
    /// further down, even when that entry is `Hidden` (the desktop-entry way to uninstall one for a user).
    func applications() -> [Application] {
        var seen: Set<String> = []
        var result: [Application] = []
        for directory in dataDirectories {
            var found: [(id: String, path: String)] = []
            collectEntries(in: directory + "/applications", prefix: "", depth: 0, into: &found)
            for (id, path) in found.sorted(by: { $0.id < $1.id }) where seen.insert(id).inserted {
                guard let entry = DesktopEntry.read(path), entry.isApplication, !entry.hidden,
                      PreferencesLocations.isValidDomainName(id) else { continue }
                result.append(Application(id: id, name: entry.name))
            }
        }
        return result
    }

    /// Desktop file IDs under `directory`: a file in a subdirectory gets the subdirectory names joined by `-`.
    private func collectEntries(in directory: String, prefix: String, depth: Int, into found: inout [(id: String, path: String)]) {
        // Deep trees are not how applications are installed; the cap also stops symbolic-link loops.
        guard depth < 4 else { return }
        for name in FileSystem.listDirectory(directory) where !name.hasPrefix(".") {
            let path = directory + "/" + name
            if name.hasSuffix(".desktop") {
                found.append((prefix + String(name.dropLast(".desktop".count)), path))
            } else if FileSystem.isDirectory(path) {
                collectEntries(in: path, prefix: prefix + name + "-", depth: depth + 1, into: &found)
            }
        }
    }
}

/// The few keys of a desktop entry's `[Desktop Entry]` group that `-app` needs.
struct DesktopEntry: Equatable {
    var name: String?
    var type: String?
    var hidden = false

    /// Entries without a `Type` are taken as applications: the key is required, but not every file has it.
    var isApplication: Bool { type == nil || type == "Application" }

    static func read(_ path: String) -> DesktopEntry? {
        guard let (bytes, _) = try? FileSystem.readFile(path, limit: 1 << 20) else { return nil }
        return parse(String(decoding: bytes, as: UTF8.self))
    }

    /// Nil when the text has no `[Desktop Entry]` group.
    static func parse(_ text: String) -> DesktopEntry? {
        var entry = DesktopEntry()
        var inGroup = false
        var sawGroup = false
        for rawLine in text.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            let line = rawLine.drop { $0 == " " || $0 == "\t" }
            if line.hasPrefix("[") {
                inGroup = line.trimmingSuffixSpaces() == "[Desktop Entry]"
                sawGroup = sawGroup || inGroup
                continue
            }
            guard inGroup, !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { continue }
            // Spaces around `=` are not part of the key or value; `Name[fr]` is a different (localised) key.
            let key = line[..<equals].trimmingSuffixSpaces()
            let value = unescape(line[line.index(after: equals)...].drop { $0 == " " || $0 == "\t" })
            switch key {
            case "Name": entry.name = value
            case "Type": entry.type = value.trimmingSuffixSpaces()
            case "Hidden": entry.hidden = value.trimmingSuffixSpaces() == "true"
            default: break
            }
        }
        return sawGroup ? entry : nil
    }

    /// The escapes of string values: `\s`, `\n`, `\t`, `\r`, `\\`.
    private static func unescape(_ value: Substring) -> String {
        guard value.contains("\\") else { return String(value) }
        var out = ""
        var escaped = false
        for c in value {
            if escaped {
                switch c {
                case "s": out.append(" ")
                case "n": out.append("\n")
                case "t": out.append("\t")
                case "r": out.append("\r")
                default: out.append(c)
                }
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else {
                out.append(c)
            }
        }
        return out
    }
}

extension StringProtocol {
    fileprivate func trimmingSuffixSpaces() -> String {
        var s = String(self)
        while let last = s.last, last == " " || last == "\t" { s.removeLast() }
        return s
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What `defaults` consults outside the preferences store: installed applications, which `-app <name>` resolves
/// to a domain (as Apple's tool resolves `<name>.app` to its bundle identifier), and the per-app containers that
/// `-container <id>`, `-app` and `delete-all` reach.
///
/// On Linux an application is a freedesktop desktop entry, and its domain is the desktop file ID without
/// `.desktop` (for a Flatpak or any reverse-DNS entry, the app ID: `org.gnome.Calculator`). A container is a
/// Flatpak app's config directory, `~/.var/app/<id>/config`, where the app reads and writes its preferences as a
/// sandboxed Mac app does in its container.
public struct DefaultsSystem: Sendable {
    /// Directories searched for `applications/*.desktop`, most important first.
    public var dataDirectories: [String]
    /// The directory holding one container per app, each with its preferences in `<id>/config`.
    public var containersDirectory: String

    public init(dataDirectories: [String], containersDirectory: String) {
        self.dataDirectories = dataDirectories
        self.containersDirectory = containersDirectory
    }

    /// `$XDG_DATA_HOME` (default `~/.local/share`), then Flatpak's export directories unless `$XDG_DATA_DIRS`
    /// already lists them (where Flatpak's profile script would have put them), then `$XDG_DATA_DIRS` (default
    /// `/usr/local/share:/usr/share`); relative entries are ignored, as the base-directory spec says. Containers
    /// under `~/.var/app`.
    public static func fromEnvironment() -> DefaultsSystem {
        let home = PreferencesLocations.homeDirectory()
        let dataHome = absoluteEnvironment("XDG_DATA_HOME").first ?? home + "/.local/share"
        var shared = absoluteEnvironment("XDG_DATA_DIRS")
        if shared.isEmpty { shared = ["/usr/local/share", "/usr/share"] }
        let exports = [home + "/.local/share/flatpak/exports/share", "/var/lib/flatpak/exports/share"]
        let directories = [dataHome] + exports.filter { !shared.contains($0) } + shared
        return DefaultsSystem(dataDirectories: directories, containersDirectory: home + "/.var/app")
    }

    private static func absoluteEnvironment(_ name: String) -> [String] {
        (FileSystem.environment(name) ?? "").split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
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
    ///
    /// IDs come from directory listings; an entry file is read only when its ID matches, or, for the `Name` pass,
    /// in precedence order until one matches.
    func applicationDomain(named name: String) -> String? {
        var wanted = name.lowercased()
        if wanted.hasSuffix(".desktop") { wanted.removeLast(".desktop".count) }
        guard !wanted.isEmpty else { return nil }
        let installed = entryFiles()
        var parsed: [String: DesktopEntry?] = [:]
        func entry(_ file: EntryFile) -> DesktopEntry? {
            if let known = parsed[file.path] { return known }
            let e = DesktopEntry.read(file.path).flatMap { $0.isInstalledApplication ? $0 : nil }
            parsed[file.path] = e
            return e
        }
        if let file = installed.first(where: { $0.id.lowercased() == wanted && entry($0) != nil }) { return file.id }
        if let file = installed.first(where: { entry($0)?.name?.lowercased() == wanted }) { return file.id }
        let byComponent = installed.first { file in
            file.id.split(separator: ".").last.map { $0.lowercased() == wanted } == true && entry(file) != nil
        }
        return byComponent?.id
    }

    struct EntryFile: Equatable {
        var id: String
        var path: String
    }

    /// Desktop entry files in precedence order, one per ID: an ID found in a more important directory hides the
    /// same ID further down, even when that entry is `Hidden` (the desktop-entry way to uninstall one for a user).
    func entryFiles() -> [EntryFile] {
        var seen: Set<String> = []
        var result: [EntryFile] = []
        for directory in dataDirectories {
            var found: [EntryFile] = []
            var visited: Set<DirectoryID> = []
            collectEntries(in: directory + "/applications", prefix: "", depth: 0, visited: &visited, into: &found)
            for file in found.sorted(by: { $0.id < $1.id }) where seen.insert(file.id).inserted {
                if PreferencesLocations.isValidDomainName(file.id) { result.append(file) }
            }
        }
        return result
    }

    private struct DirectoryID: Hashable {
        var device: UInt64
        var inode: UInt64
    }

    /// Desktop file IDs under `directory`: a file in a subdirectory gets the subdirectory names joined by `-`.
    /// Each directory is entered once (symbolic links can make loops), and not deeper than applications are
    /// installed.
    private func collectEntries(
        in directory: String, prefix: String, depth: Int, visited: inout Set<DirectoryID>, into found: inout [EntryFile]
    ) {
        var st = stat()
        guard visited.count < 4096, stat(directory, &st) == 0, st.st_mode & S_IFMT == S_IFDIR,
              visited.insert(DirectoryID(device: UInt64(st.st_dev), inode: UInt64(st.st_ino))).inserted else { return }
        for name in FileSystem.listDirectory(directory) where !name.hasPrefix(".") {
            if name.hasSuffix(".desktop") {
                found.append(EntryFile(id: prefix + String(name.dropLast(".desktop".count)), path: directory + "/" + name))
            } else if depth < 8 {
                collectEntries(in: directory + "/" + name, prefix: prefix + name + "-", depth: depth + 1, visited: &visited, into: &found)
            }
        }
    }
}

/// The few keys of a desktop entry's `[Desktop Entry]` group that `-app` needs.
struct DesktopEntry: Equatable {
    var name: String?
    var type: String?
    var hidden = false

    /// An application not removed with `Hidden`. Entries without a `Type` count: the key is required, but not
    /// every file has it.
    var isInstalledApplication: Bool { !hidden && (type == nil || type == "Application") }

    static func read(_ path: String) -> DesktopEntry? {
        guard let (bytes, _) = try? FileSystem.readFile(path, limit: 1 << 20) else { return nil }
        return parse(bytes)
    }

    /// Nil when the file has no `[Desktop Entry]` group. Reads bytes, line by line, and stops at the end of the
    /// group: entries are mostly translations of other keys, and this runs over every installed file.
    static func parse(_ bytes: [UInt8]) -> DesktopEntry? {
        bytes.withUnsafeBufferPointer { text -> DesktopEntry? in
            var entry = DesktopEntry()
            var inGroup = false
            var sawGroup = false
            var i = text.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0  // a UTF-8 byte-order mark
            while i < text.count {
                var end = i
                while end < text.count, text[end] != UInt8(ascii: "\n") { end += 1 }
                var lineEnd = end
                if lineEnd > i, text[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
                let line = UnsafeBufferPointer(rebasing: text[i..<lineEnd])
                i = end + 1
                let start = line.firstIndex { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") } ?? line.count
                guard start < line.count else { continue }
                if line[start] == UInt8(ascii: "[") {
                    if sawGroup { break }  // the group has ended
                    inGroup = trimmedText(line, from: start, to: line.count) == "[Desktop Entry]"
                    sawGroup = inGroup
                    continue
                }
                guard inGroup, line[start] != UInt8(ascii: "#"),
                      let equals = line[start...].firstIndex(of: UInt8(ascii: "=")) else { continue }
                // Spaces around `=` are not part of the key or value; `Name[fr]` is a different (localised) key.
                let key = trimmedText(line, from: start, to: equals)
                guard key == "Name" || key == "Type" || key == "Hidden" else { continue }
                var valueStart = equals + 1
                while valueStart < line.count, line[valueStart] == UInt8(ascii: " ") || line[valueStart] == UInt8(ascii: "\t") {
                    valueStart += 1
                }
                let value = unescape(UnsafeBufferPointer(rebasing: line[valueStart...]))
                switch key {
                case "Name": entry.name = value
                case "Type": entry.type = trimmedSpaces(value)
                default: entry.hidden = ["true", "1"].contains(trimmedSpaces(value))  // GLib also reads 1 as true
                }
            }
            return sawGroup ? entry : nil
        }
    }

    private static func trimmedText(_ line: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> String {
        var e = end
        while e > start, line[e - 1] == UInt8(ascii: " ") || line[e - 1] == UInt8(ascii: "\t") { e -= 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: line[start..<e]), as: UTF8.self)
    }

    private static func trimmedSpaces(_ s: String) -> String {
        var s = s
        while let last = s.last, last == " " || last == "\t" { s.removeLast() }
        return s
    }

    /// `value` written as a string value with the specification's escapes (`\\`, `\n`, `\r`, `\t`, and `\s` for a
    /// leading space, which would otherwise be taken for the space around `=`): what `parse` reads back as `value`.
    /// Scalar by scalar, since as `Character`s a newline or backslash followed by a combining mark is one unit.
    static func escape(_ value: String) -> String {
        var out = String.UnicodeScalarView()
        for (i, c) in value.unicodeScalars.enumerated() {
            switch c {
            case "\\": out.append(contentsOf: "\\\\".unicodeScalars)
            case "\n": out.append(contentsOf: "\\n".unicodeScalars)
            case "\r": out.append(contentsOf: "\\r".unicodeScalars)
            case "\t": out.append(contentsOf: "\\t".unicodeScalars)
            case " " where i == 0: out.append(contentsOf: "\\s".unicodeScalars)
            default: out.append(c)
            }
        }
        return String(out)
    }

    /// The escapes of string values: `\s`, `\n`, `\t`, `\r`, `\\`. Undone on the bytes, before decoding: an escape
    /// is a backslash and one ASCII letter, whatever combining mark follows (as `Character`s, `n` and a following
    /// U+0301 are one).
    private static func unescape(_ value: UnsafeBufferPointer<UInt8>) -> String {
        guard value.contains(UInt8(ascii: "\\")) else { return String(decoding: value, as: UTF8.self) }
        var out: [UInt8] = []
        out.reserveCapacity(value.count)
        var i = 0
        while i < value.count {
            let b = value[i]
            i += 1
            guard b == UInt8(ascii: "\\"), i < value.count else {
                out.append(b)
                continue
            }
            let next = value[i]
            i += 1
            switch next {
            case UInt8(ascii: "s"): out.append(UInt8(ascii: " "))
            case UInt8(ascii: "n"): out.append(UInt8(ascii: "\n"))
            case UInt8(ascii: "t"): out.append(UInt8(ascii: "\t"))
            case UInt8(ascii: "r"): out.append(UInt8(ascii: "\r"))
            default: out.append(next)  // `\\`, and any other escaped byte stands for itself
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

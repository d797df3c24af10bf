import FoundationEssentials
import PlistKit

/// Input and output for `DefaultsCommand`, so the tool and tests share one implementation.
public struct DefaultsIO: Sendable {
    /// Writes to standard output.
    public var out: @Sendable (String) -> Void
    /// Writes to standard error.
    public var err: @Sendable (String) -> Void
    /// Reads standard input to its end, or to one byte past `StoreOptions.readLimit` (more is refused anyway).
    public var readStandardInput: @Sendable () -> [UInt8]

    public init(
        out: @escaping @Sendable (String) -> Void, err: @escaping @Sendable (String) -> Void,
        readStandardInput: @escaping @Sendable () -> [UInt8]
    ) {
        self.out = out
        self.err = err
        self.readStandardInput = readStandardInput
    }
}

/// Apple's `defaults` command line over the Preferences store, as its `defaults(1)` manual page and the tool itself
/// give them: verbs, domains, value flags, messages and exit codes (0 success, 1 error, 255 usage with no arguments).
public enum DefaultsCommand {
    public static let usage = """
        Command line interface to a user's defaults.
        Syntax:

        'defaults' [-currentHost | -host <hostname>] [-container <path> | -container <flatpak app id>]
                   followed by one of the following:

          read                                 shows all defaults
          read <domain>                        shows defaults for given domain
          read <domain> <key>                  shows defaults for given domain, key
          read-type <domain> <key>             shows the type for the given domain, key
          read-archived <domain> <key>         (extension) shows the NSKeyedArchiver archive at key, decoded
          write <domain> <domain_rep>          writes domain (overwrites existing)
          write <domain> <key> <value>         writes key for domain
          rename <domain> <old_key> <new_key>  renames old_key to new_key
          delete <domain>                      deletes domain
          delete <domain> <key>                deletes key in domain
          delete-all <domain>                  deletes the domain from all containers
          delete-all <domain> <key>            deletes key in domain from all containers
          import <domain> <path to plist>      writes the plist at path to domain
          import <domain> -                    writes a plist from stdin to domain
          export <domain> <path to plist>      saves domain as a binary plist to path
          export <domain> -                    writes domain as an xml plist to stdout
          domains                              lists all domains
          find <word>                          lists all entries containing word
          help                                 print this help
          --version                            (extension) print the version

        <domain> is ( <domain_name> | -app <application_name> | -globalDomain | -g )
                 or a path to a file omitting the '.plist' extension
        -app finds an installed desktop entry (by ID, Name, or last ID component) and uses its ID.
        A domain that has a Flatpak container (~/.var/app/<domain>/config) is read and written there.

        <value> is one of:
          <value_rep>
          -string <string_value>
          -data <hex_digits>
          -int[eger] <integer_value>
          -float  <floating-point_value>
          -bool[ean] (true | false | yes | no)
          -date <date_rep>
          -array <value1> <value2> ...
          -array-add <value1> <value2> ...
          -dict <key1> <value1> <key2> <value2> ...
          -dict-add <key1> <value1> ...

        Files: $XDG_CONFIG_HOME (default ~/.config)/<domain>.plist; -currentHost uses ByHost/<domain>.<machine-id>.plist.
        Managed (read-only) domains: $PREFERENCES_MANAGED_DIR (default /etc/preferences/managed).
        Containers: ~/.var/app/<id>/config (Flatpak); delete-all covers the files above, every
        container, and the one -container names.

        """

    /// Runs one command line (without the program name) and returns the exit status. `system` says where
    /// applications (for `-app`) and containers (for `-container <id>` and `delete-all`) are found.
    public static func run(
        _ arguments: [String], environment: PreferencesEnvironment, io: DefaultsIO,
        system: DefaultsSystem = .fromEnvironment()
    ) -> Int32 {
        var args = arguments[...]
        if args.first == "--version" {
            io.out(versionLine(tool: "defaults"))
            return 0
        }
        var host = PreferencesHost.any
        let uncontained = environment
        var environment = environment
        var containerGiven = false
        // Global options before the verb.
        while let first = args.first, first.hasPrefix("-") {
            switch first.lowercased() {
            case "-currenthost": host = .current; args = args.dropFirst()
            case "-host":
                guard args.count >= 2 else { io.err(usage); return 1 }
                host = .named(args[args.startIndex + 1]); args = args.dropFirst(2)
            case "-container":
                // A container path, or a Flatpak app id (its config directory is ~/.var/app/<id>/config).
                guard args.count >= 2 else { io.err(usage); return 1 }
                let id = args[args.startIndex + 1]
                environment = contained(environment, in: id.contains("/") ? id : system.containerRoot(id))
                containerGiven = true
                args = args.dropFirst(2)
            case "-verbose": args = args.dropFirst()
            default:
                io.err(usage)
                return 1
            }
        }
        guard let verb = args.first?.lowercased() else {
            io.err(usage)
            return 255
        }
        var operands = Array(args.dropFirst())
        // `-app <name>` stands for the domain operand (always the first) of the verbs that take one.
        if domainVerbs.contains(verb), operands.first?.lowercased() == "-app" {
            guard operands.count >= 2 else { io.err(usage); return 1 }
            guard let domain = system.applicationDomain(named: operands[1]) else {
                io.err("Couldn't find an application named \"\(operands[1])\"; defaults unchanged\n")
                return 1
            }
            operands.replaceSubrange(0..<2, with: [domain])
        }
        let tool = Runner(environment: environment, io: io, host: host, appContainers: containerGiven ? nil : system)
        switch verb {
        case "read": return tool.read(operands)
        case "read-type": return tool.readType(operands)
        case "read-archived": return tool.readArchived(operands)
        case "write": return tool.write(operands)
        case "rename": return tool.rename(operands)
        case "delete", "remove": return tool.delete(operands)
        case "delete-all":
            // The user's own files, every app container, and whatever `-container` named.
            let everywhere = [uncontained] + system.containerRoots().map { contained(uncontained, in: $0) }
                + (environment === uncontained ? [] : [environment])
            return Runner.deleteAll(operands, in: everywhere.map { Runner(environment: $0, io: io, host: host, appContainers: nil) })
        case "domains": return tool.domains(operands)
        case "find": return tool.find(operands)
        case "export": return tool.export(operands)
        case "import": return tool.importDomain(operands)
        case "printhostidentifier": io.out(environment.locations.hostID + "\n"); return 0
        case "help", "-help", "--help": io.out(usage); return 0
        default:
            io.err(usage)
            return 1
        }
    }

    /// The verbs whose first operand is a domain (and may be `-app <name>`).
    static let domainVerbs: Set<String> = ["read", "read-type", "read-archived", "write", "rename", "delete", "remove", "delete-all", "import", "export"]

    /// `environment` with the user's files in `root` instead.
    static func contained(_ environment: PreferencesEnvironment, in root: String) -> PreferencesEnvironment {
        PreferencesEnvironment(
            locations: environment.locations.contained(in: root), options: environment.options,
            applicationDomain: environment.applicationDomain, logsToStandardError: environment.events.logsToStandardError)
    }

    /// One invocation's state.
    struct Runner {
        let environment: PreferencesEnvironment
        let io: DefaultsIO
        let host: PreferencesHost
        /// When set, a domain named like an app container that exists is read and written in that container: a
        /// Flatpak app keeps its preferences there, as a sandboxed Mac app does in its own, where Apple's tool
        /// finds them.
        let appContainers: DefaultsSystem?

        /// A resolved `<domain>` operand.
        struct Target {
            var name: String
            var file: DomainFile
            var managed: [DomainFile]
        }

        func target(_ operand: String) -> Target? {
            let global = PreferencesLocations.globalDomain
            switch operand {
            case "-g", "-globalDomain", "NSGlobalDomain", "Apple Global Domain":
                return Target(
                    name: global, file: environment.persistentFile(global, host: host),
                    managed: [environment.managedFile(global)])
            default:
                if operand.contains("/") {
                    // A path to a plist, with or without the extension.
                    let path = operand.hasSuffix(".plist") ? operand : operand + ".plist"
                    let absolute = path.hasPrefix("/") ? path : FileSystemPaths.currentDirectory() + "/" + path
                    let file = environment.file(domain: operand, path: absolute, readOnly: false, movesDamagedAside: false)
                    return Target(name: operand, file: file, managed: [])
                }
                guard PreferencesLocations.isValidDomainName(operand), !operand.hasPrefix("-") else { return nil }
                var environment = environment
                if let root = appContainers?.containerRoot(operand), FileSystem.isDirectory(root) {
                    environment = DefaultsCommand.contained(environment, in: root)
                }
                return Target(
                    name: operand, file: environment.persistentFile(operand, host: host),
                    managed: [environment.managedFile(operand), environment.managedFile(global)])
            }
        }

        func fail(_ message: String) -> Int32 {
            io.err(message + "\n")
            return 1
        }

        func usageError() -> Int32 {
            io.err(usage)
            return 1
        }

        func save(_ target: Target) -> Int32 {
            do {
                try target.file.synchronize()
                return 0
            } catch {
                // Reported here once; the exit-time flush would only fail again with the same reason.
                target.file.discardPendingChanges()
                if let error = error as? PreferencesError {
                    return fail("Could not write domain \(target.name); exiting (\(error))")
                }
                return fail("Could not write domain \(target.name); exiting")
            }
        }

        func managedKey(_ target: Target, _ key: String) -> Bool {
            target.managed.contains { $0.value(forKey: key) != nil }
        }

        // MARK: read

        func read(_ operands: [String]) -> Int32 {
            switch operands.count {
            case 0:
                var all = PlistDictionary()
                for name in domainNames(includeGlobal: true) {
                    guard let t = target(name == PreferencesLocations.globalDomain ? "-g" : name) else { continue }
                    let values = t.file.snapshot()
                    if !values.isEmpty { all[name] = .dictionary(values) }
                }
                io.out(DescriptionFormatter.describe(.dictionary(all)) + "\n")
                return 0
            case 1, 2:
                guard let t = target(operands[0]) else { return fail("Domain \(operands[0]) does not exist") }
                let values = t.file.snapshot(force: true)
                if operands.count == 1 {
                    guard !values.isEmpty else { return fail("Domain \(t.name) does not exist") }
                    io.out(DescriptionFormatter.describe(.dictionary(values)) + "\n")
                    return 0
                }
                guard let value = values[operands[1]] else {
                    return fail("The domain/default pair of (\(t.name), \(operands[1])) does not exist")
                }
                io.out(DescriptionFormatter.describeTopLevel(value) + "\n")
                return 0
            default:
                return usageError()
            }
        }

        func readType(_ operands: [String]) -> Int32 {
            guard operands.count == 2 else { return usageError() }
            guard let t = target(operands[0]), let value = t.file.snapshot(force: true)[operands[1]] else {
                return fail("The domain/default pair of (\(operands[0]), \(operands[1])) does not exist")
            }
            let name: String
            switch value {
            case .bool: name = "boolean"
            default: name = value.typeName
            }
            io.out("Type is \(name)\n")
            return 0
        }

        // MARK: write

        func write(_ operands: [String]) -> Int32 {
            guard operands.count >= 2, let t = target(operands[0]) else { return usageError() }
            if operands.count == 2 {
                // write <domain> <domain_rep>: replaces the whole domain.
                let rep: PlistValue
                do { rep = try DefaultsValueParser.valueRep(operands[1]) } catch { return report(error) }
                guard case .dictionary(let values) = rep else {
                    return fail("Rep argument is not a dictionary\nDefaults have not been changed.")
                }
                for (k, _) in values where managedKey(t, k) { return notWritable(t, k) }
                t.file.replaceAll(with: values)
                return save(t)
            }
            let key = operands[1]
            let rest = operands[2...]
            guard !managedKey(t, key) else { return notWritable(t, key) }
            let flag = rest.first!.lowercased()
            let value: PlistValue
            do {
                switch flag {
                case "-array", "-array-add":
                    var elements: [PlistValue] = []
                    var i = rest.index(after: rest.startIndex)
                    while i < rest.endIndex {
                        let (v, used) = try element(rest[i...])
                        elements.append(v)
                        i += used
                    }
                    if flag == "-array-add", let existing = t.file.snapshot(force: true)[key] {
                        guard case .array(let old) = existing else {
                            return fail("Value for key \(key) is not an array; cannot append.  Leaving defaults unchanged.")
                        }
                        elements = old + elements
                    }
                    value = .array(elements)
                case "-dict", "-dict-add":
                    var dict = PlistDictionary()
                    if flag == "-dict-add", let existing = t.file.snapshot(force: true)[key] {
                        guard case .dictionary(let old) = existing else {
                            return fail("Value for key \(key) is not a dictionary; cannot append.  Leaving defaults unchanged.")
                        }
                        dict = old
                    }
                    var i = rest.index(after: rest.startIndex)
                    while i < rest.endIndex {
                        let k = rest[i]
                        guard i + 1 < rest.endIndex else { return fail("Key \(k) lacks a corresponding value") }
                        let (v, used) = try element(rest[(i + 1)...])
                        dict[k] = v
                        i += 1 + used
                    }
                    value = .dictionary(dict)
                default:
                    let (v, used) = try DefaultsValueParser.scalar(rest)
                    if rest.count > used {
                        return fail("Unexpected argument \(rest[rest.startIndex + used]); leaving defaults unchanged.")
                    }
                    value = v
                }
            } catch {
                return report(error)
            }
            t.file.set(value, forKey: key)
            return save(t)
        }

        /// An element of `-array` / `-dict`: a typed scalar, or a plain string (nested composites refused).
        func element(_ args: ArraySlice<String>) throws(DefaultsValueParser.Failure) -> (PlistValue, Int) {
            let first = args.first!
            if first.hasPrefix("-"), first.count > 1 { return try DefaultsValueParser.scalar(args) }
            let (v, used) = try DefaultsValueParser.scalar(args)
            switch v {
            case .array, .dictionary: throw .message("Cannot nest composite types")
            default: return (v, used)
            }
        }

        func report(_ error: DefaultsValueParser.Failure) -> Int32 {
            switch error {
            case .usage: return usageError()
            case .message(let m): return fail(m)
            }
        }

        func notWritable(_ t: Target, _ key: String) -> Int32 {
            fail("Key \(key) in domain \(t.name) is managed and not writable; leaving defaults unchanged.")
        }

        // MARK: rename, delete

        func rename(_ operands: [String]) -> Int32 {
            guard operands.count == 3, let t = target(operands[0]) else { return usageError() }
            let (old, new) = (operands[1], operands[2])
            guard let value = t.file.snapshot(force: true)[old] else {
                return fail("Key \(old) does not exist in domain \(t.name); leaving defaults unchanged")
            }
            guard !managedKey(t, old), !managedKey(t, new) else { return notWritable(t, managedKey(t, old) ? old : new) }
            t.file.set(nil, forKey: old)
            t.file.set(value, forKey: new)
            return save(t)
        }

        func delete(_ operands: [String]) -> Int32 {
            guard (1...2).contains(operands.count), let t = target(operands[0]) else { return usageError() }
            let values = t.file.snapshot(force: true)
            if operands.count == 1 {
                guard !values.isEmpty else { return fail("Domain (\(t.name)) not found.\nDefaults have not been changed.") }
                do { try t.file.discardChangesAndDelete() } catch { return fail("Could not write domain \(t.name); exiting") }
                return 0
            }
            let key = operands[1]
            guard values[key] != nil else { return fail("Domain (\(t.name)) not found.\nDefaults have not been changed.") }
            guard !managedKey(t, key) else { return notWritable(t, key) }
            t.file.set(nil, forKey: key)
            return save(t)
        }

        /// `delete-all <domain> [<key>]`: `delete` in each of `runners` (one per container) that has the domain
        /// or key. Fails, changing nothing, when none has it or the key is managed.
        static func deleteAll(_ operands: [String], in runners: [Runner]) -> Int32 {
            guard let first = runners.first else { return 1 }
            guard (1...2).contains(operands.count) else { return first.usageError() }
            var targets: [Target] = []
            var name = operands[0]
            for (i, runner) in runners.enumerated() {
                guard let t = runner.target(operands[0]) else { return first.usageError() }
                if i == 0 { name = t.name }
                // A domain given as a path is one file, whichever container is asked.
                guard !targets.contains(where: { $0.file.path == t.file.path }) else { continue }
                let values = t.file.snapshot(force: true)
                if operands.count == 1 ? !values.isEmpty : values[operands[1]] != nil { targets.append(t) }
            }
            guard !targets.isEmpty else {
                return first.fail("Domain (\(name)) not found.\nDefaults have not been changed.")
            }
            if operands.count == 2, first.managedKey(targets[0], operands[1]) { return first.notWritable(targets[0], operands[1]) }
            var status: Int32 = 0
            for t in targets {
                if operands.count == 1 {
                    do { try t.file.discardChangesAndDelete() } catch { status = first.fail("Could not write domain \(t.name); exiting") }
                } else {
                    t.file.set(nil, forKey: operands[1])
                    if first.save(t) != 0 { status = 1 }
                }
            }
            return status
        }

        // MARK: domains, find

        func domainNames(includeGlobal: Bool) -> [String] {
            var names: Set<String> = []
            let root = environment.locations.userDirectory
            let suffix: String
            let directory: String
            switch host {
            case .any: directory = root; suffix = ".plist"
            case .current: directory = root + "/ByHost"; suffix = ".\(environment.locations.hostID).plist"
            case .named(let h): directory = root + "/ByHost"; suffix = ".\(h).plist"
            }
            for entry in FileSystem.listDirectory(directory) where entry.hasSuffix(suffix) {
                let base = String(entry.dropLast(suffix.count))
                if base == PreferencesLocations.globalFileName {
                    if includeGlobal { names.insert(PreferencesLocations.globalDomain) }
                    continue
                }
                // Every `<domain>.plist` is a domain, `com.plist.app` and `.hidden` too (temporary files end in
                // random letters and moved-aside ones in `-<ns>`, so neither has the suffix).
                guard PreferencesLocations.isValidDomainName(base) else { continue }
                names.insert(base)
            }
            // A Flatpak app's own domain, which `target` reads and writes in its container (other files there are
            // not reached by name, so they are not listed).
            let below = String(directory.dropFirst(root.count))  // "" or "/ByHost"
            for container in appContainers?.containerRoots() ?? [] {
                let id = AtomicFile.lastComponent(AtomicFile.directoryName(container))
                guard PreferencesLocations.isValidDomainName(id) else { continue }
                if FileSystem.isRegularFile(container + below + "/" + id + suffix) { names.insert(id) }
            }
            return names.sorted()
        }

        func domains(_ operands: [String]) -> Int32 {
            guard operands.isEmpty else { return usageError() }
            io.out(domainNames(includeGlobal: false).joined(separator: ", ") + "\n")
            return 0
        }

        func find(_ operands: [String]) -> Int32 {
            guard operands.count == 1 else { return usageError() }
            let word = operands[0].lowercased()
            var found = false
            for name in domainNames(includeGlobal: true) {
                guard let t = target(name == PreferencesLocations.globalDomain ? "-g" : name) else { continue }
                let values = t.file.snapshot()
                let domainMatches = name.lowercased().contains(word)
                var matches = PlistDictionary()
                for (k, v) in values where domainMatches || k.lowercased().contains(word) || contains(v, word) {
                    matches[k] = v
                }
                guard !matches.isEmpty else { continue }
                found = true
                io.out("Found \(matches.count) keys in domain '\(name)': \(DescriptionFormatter.describe(.dictionary(matches)))\n")
            }
            if !found { io.out("No domain, key, nor value containing '\(operands[0])'\n") }
            return 0
        }

        func contains(_ value: PlistValue, _ word: String) -> Bool {
            switch value {
            case .string(let s): return s.lowercased().contains(word)
            case .array(let a): return a.contains { contains($0, word) }
            case .dictionary(let d): return d.contains { $0.key.lowercased().contains(word) || contains($0.value, word) }
            default: return false
            }
        }

        // MARK: import, export

        func export(_ operands: [String]) -> Int32 {
            guard operands.count == 2, let t = target(operands[0]) else { return usageError() }
            let values = t.file.snapshot(force: true)
            guard !values.isEmpty else { return fail("Domain \(t.name) does not exist") }
            do {
                if operands[1] == "-" {
                    let bytes = try environment.options.codec.encode(.dictionary(values), format: .xml)
                    io.out(String(decoding: bytes, as: UTF8.self))
                } else {
                    let bytes = try environment.options.codec.encode(.dictionary(values), format: .binary)
                    // Through links and into devices (`/dev/stdout`), atomically into a regular file.
                    var options = AtomicFile.Options()
                    options.newFileMode = 0o644
                    options.appliesUmask = false
                    options.syncsDirectory = false
                    try AtomicFile.writeFollowingLinks(operands[1], with: bytes, options: options)
                }
                return 0
            } catch {
                return fail("Could not export domain \(t.name) to \(operands[1]): \(error)")
            }
        }

        func importDomain(_ operands: [String]) -> Int32 {
            guard operands.count == 2, let t = target(operands[0]) else { return usageError() }
            let bytes: [UInt8]
            if operands[1] == "-" {
                bytes = io.readStandardInput()
                guard bytes.count <= environment.options.readLimit else {
                    return fail("Could not read data from -: more than \(environment.options.readLimit) bytes")
                }
            } else {
                do {
                    guard let file = try FileSystem.readFile(operands[1], limit: environment.options.readLimit) else {
                        return fail("Could not read data from \(operands[1])")
                    }
                    bytes = file.bytes
                } catch {
                    return fail("Could not read data from \(operands[1])")
                }
            }
            guard let value = try? PropertyList.read(bytes).value else {
                return fail("Could not parse property list from \(operands[1])")
            }
            guard case .dictionary(let values) = value else {
                return fail("Rep argument is not a dictionary\nDefaults have not been changed.")
            }
            for (k, _) in values where managedKey(t, k) { return notWritable(t, k) }
            t.file.replaceAll(with: values)
            return save(t)
        }
    }
}

/// The working directory, for domain operands given as relative paths.
enum FileSystemPaths {
    static func currentDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getcwd(&buffer, buffer.count) != nil else { return "." }
        return FileSystem.cString(buffer)
    }
}
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

import Foundation
import PlistKit
import Testing
import TestSupport
@testable import Preferences

/// The `defaults` verbs in-process. Expected messages and output are Apple's tool's; stored
/// values are checked by reading the file with Foundation.
@Suite struct DefaultsCommandTests {
    final class Capture: @unchecked Sendable {
        let lock = NSLock()
        var out = "", err = ""
        var stdin: [UInt8] = []
        var io: DefaultsIO {
            DefaultsIO(
                out: { s in self.lock.lock(); self.out += s; self.lock.unlock() },
                err: { s in self.lock.lock(); self.err += s; self.lock.unlock() },
                readStandardInput: { self.stdin })
        }
    }

    struct Tool {
        let dir = TempDirectory("defaults")
        /// Applications under `<dir>/data-home` then `<dir>/data`, containers under `<dir>/containers`.
        var system: DefaultsSystem {
            DefaultsSystem(dataDirectories: [dir.path + "/data-home", dir.path + "/data"], containersDirectory: dir.path + "/containers")
        }
        func run(_ args: String...) -> (status: Int32, out: String, err: String) {
            run(args)
        }
        func run(_ args: [String], stdin: [UInt8] = []) -> (status: Int32, out: String, err: String) {
            let capture = Capture()
            capture.stdin = stdin
            // A fresh environment per invocation, as a fresh process would have.
            let status = DefaultsCommand.run(args, environment: dir.environment(), io: capture.io, system: system)
            return (status, capture.out, capture.err)
        }
        /// Installs a desktop entry `applications/<relativePath>` under data directory `data`.
        func install(_ relativePath: String, in data: String = "data", _ text: String) throws {
            try writeCreatingDirectories(text, to: dir.path + "/\(data)/applications/\(relativePath)")
        }
        func file(_ domain: String) throws -> PlistValue {
            try dir.readPlistWithFoundation(dir.locations.path(domain: domain))
        }
    }

    @Test func writeIntThenReadPrintsFive() throws {
        let t = Tool()
        #expect(t.run("write", "com.example.demo", "k", "-int", "5").status == 0)
        #expect(t.run("read", "com.example.demo", "k") == (0, "5\n", ""))
        #expect(try t.file("com.example.demo") == ["k": 5])
        #expect(t.run("read-type", "com.example.demo", "k").out == "Type is integer\n")
    }

    @Test func typedFlags() throws {
        let t = Tool()
        let d = "com.example.types"
        #expect(t.run("write", d, "s", "-string", "hello world").status == 0)
        #expect(t.run("write", d, "i", "-integer", " 42abc").status == 0) // longLongValue is lenient
        #expect(t.run("write", d, "f", "-float", "0.1").status == 0)
        #expect(t.run("write", d, "b", "-bool", "YES").status == 0)
        #expect(t.run("write", d, "b2", "-boolean", "false").status == 0)
        #expect(t.run("write", d, "data", "-data", "abc").status == 0) // odd length allowed
        #expect(t.run("write", d, "date", "-date", "2024-01-02 03:04:05 +0000").status == 0)
        #expect(t.run("write", d, "plain", "1").status == 0) // no special characters: a string
        let f = try t.file(d)
        #expect(f["s"] == "hello world")
        #expect(f["i"] == 42)
        #expect(f["f"]?.realValue?.value == Double(Float(0.1))) // single precision, as floatValue
        #expect(f["b"] == true)
        #expect(f["b2"] == false)
        #expect(f["data"] == .data(Data([0x0a, 0xbc])))
        let expectedDate = ISO8601DateFormatter().date(from: "2024-01-02T03:04:05Z")!
        #expect(f["date"]?.dateValue?.date == expectedDate)
        #expect(f["plain"] == "1")
        #expect(t.run("read", d, "s").out == "hello world\n")
        #expect(t.run("read", d, "b").out == "1\n")
        #expect(t.run("read-type", d, "b").out == "Type is boolean\n")
        #expect(t.run("read-type", d, "f").out == "Type is float\n")
        #expect(t.run("read-type", d, "data").out == "Type is data\n")
        #expect(t.run("read-type", d, "date").out == "Type is date\n")
        #expect(t.run("read-type", d, "s").out == "Type is string\n")
        #expect(t.run("read", d, "date").out == "2024-01-02 03:04:05 +0000\n")
        #expect(t.run("read", d, "data").out == "{length = 2, bytes = 0x0abc}\n")
    }

    @Test func badBoolPrintsUsage() {
        let t = Tool()
        let r = t.run("write", "d", "k", "-bool", "maybe")
        #expect(r.status == 1)
        #expect(r.err.contains("Command line interface to a user's defaults."))
    }

    @Test func extraArgumentIsRefused() {
        let t = Tool()
        let r = t.run("write", "d", "k", "-int", "1", "2")
        #expect(r == (1, "", "Unexpected argument 2; leaving defaults unchanged.\n"))
        #expect(!FileManager.default.fileExists(atPath: t.dir.locations.path(domain: "d")))
    }

    @Test func arraysAndDicts() throws {
        let t = Tool()
        #expect(t.run("write", "d", "a", "-array", "x", "-int", "2", "-bool", "no").status == 0)
        #expect(try t.file("d")["a"] == ["x", 2, false])
        #expect(t.run("write", "d", "a", "-array-add", "y").status == 0)
        #expect(try t.file("d")["a"] == ["x", 2, false, "y"])
        #expect(t.run("write", "d", "h", "-dict", "k1", "v1", "k2", "-int", "3").status == 0)
        #expect(t.run("write", "d", "h", "-dict-add", "k3", "v3").status == 0)
        #expect(try t.file("d")["h"] == ["k1": "v1", "k2": 3, "k3": "v3"])
        #expect(t.run("write", "d", "h", "-array", "-array", "x").err == "Cannot nest composite types\n")
        #expect(t.run("write", "d", "s", "-string", "x").status == 0)
        #expect(t.run("write", "d", "s", "-array-add", "y").status == 1)
    }

    @Test func readMissingMessages() {
        let t = Tool()
        #expect(t.run("read", "com.nothing") == (1, "", "Domain com.nothing does not exist\n"))
        _ = t.run("write", "com.some", "k", "-int", "1")
        #expect(t.run("read", "com.some", "nokey") == (1, "", "The domain/default pair of (com.some, nokey) does not exist\n"))
    }

    @Test func renameAndDelete() throws {
        let t = Tool()
        _ = t.run("write", "d", "old", "-string", "v")
        _ = t.run("write", "d", "other", "-string", "w")
        #expect(t.run("rename", "d", "old", "new").status == 0)
        #expect(try t.file("d") == ["new": "v", "other": "w"])
        #expect(t.run("rename", "d", "old", "x") == (1, "", "Key old does not exist in domain d; leaving defaults unchanged\n"))
        #expect(t.run("delete", "d", "new").status == 0)
        #expect(try t.file("d") == ["other": "w"])
        #expect(t.run("delete", "d").status == 0)
        #expect(!FileManager.default.fileExists(atPath: t.dir.locations.path(domain: "d")))
        #expect(t.run("delete", "d") == (1, "", "Domain (d) not found.\nDefaults have not been changed.\n"))
    }

    /// Every `<name>.plist` is a domain (as in Apple's tool, `domains` lists all domains but the global one; `find` and
    /// `read` see them too), whatever dots its name has.
    @Test func domainsWithDotsInTheirNamesAreListed() throws {
        let t = Tool()
        for d in ["com.plist.app", ".hidden", "com.ok"] { #expect(t.run("write", d, "k", "-string", "needle").status == 0) }
        #expect(t.run("domains").out == ".hidden, com.ok, com.plist.app\n")
        let found = t.run("find", "needle").out
        #expect(["com.plist.app", ".hidden", "com.ok"].allSatisfy { found.contains("Found 1 keys in domain '\($0)'") })
    }

    /// A file named by its path is someone else's: one that is not a dictionary is reported, never renamed by a read
    /// and never replaced by a write.
    @Test func aPathDomainThatIsNotADictionaryIsLeftAlone() throws {
        let t = Tool()
        let file = t.dir.path + "/elsewhere/list.plist"
        try t.dir.writePlist([1, 2], to: file)
        let before = try Data(contentsOf: URL(fileURLWithPath: file))
        let stem = String(file.dropLast(".plist".count))
        #expect(t.run("read", stem).status == 1)
        #expect(t.run("write", stem, "k", "v").status == 1)
        #expect(t.run("read-type", stem, "k").status == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: t.dir.path + "/elsewhere").filter { $0.contains("corrupt") }.isEmpty)
        // The store's own damaged files are still moved aside (DomainFileTests.corruptFileIsMovedAsideAndReported).
        // An empty file holds nothing to lose: it is written like a new domain.
        let empty = t.dir.path + "/elsewhere/empty.plist"
        #expect(FileManager.default.createFile(atPath: empty, contents: Data()))
        #expect(t.run("write", String(empty.dropLast(".plist".count)), "k", "-int", "1").status == 0)
        #expect(try t.dir.readPlistWithFoundation(empty) == ["k": 1])
    }

    /// After a write that failed, the tool's environment shows what is on disk, not the value it could not write.
    @Test func aFailedWriteLeavesNothingInMemory() throws {
        let t = Tool()
        let env = t.dir.environment { $0.sizeLimit = 200 }
        let capture = Capture()
        #expect(DefaultsCommand.run(["write", "d", "small", "-int", "1"], environment: env, io: capture.io, system: t.system) == 0)
        let big = String(repeating: "z", count: 400)
        #expect(DefaultsCommand.run(["write", "d", "big", "-string", big], environment: env, io: capture.io, system: t.system) == 1)
        let read = Capture()
        #expect(DefaultsCommand.run(["read", "d", "big"], environment: env, io: read.io, system: t.system) == 1)
        #expect(read.err.contains("does not exist"))
        #expect(try t.file("d") == ["small": 1])
    }

    /// The store's own entry and a file named by the same path are separate, so the order they are opened in does
    /// not decide whether a damaged file is moved aside.
    @Test func theSameFileByNameAndByPathAreCachedApart() throws {
        let t = Tool()
        let env = t.dir.environment()
        let path = t.dir.locations.path(domain: "same")
        let own = env.persistentFile("same")
        let named = env.file(domain: path, path: path, readOnly: false, movesDamagedAside: false)
        #expect(own !== named)
        #expect(own.movesDamagedAside && !named.movesDamagedAside)
        #expect(env.persistentFile("same") === own)
    }

    @Test func domainsAndGlobalAndCurrentHost() throws {
        let t = Tool()
        _ = t.run("write", "com.b", "k", "-int", "1")
        _ = t.run("write", "com.a", "k", "-int", "1")
        _ = t.run("write", "-g", "gk", "-string", "global")
        _ = t.run("-currentHost", "write", "com.h", "hk", "-string", "host")
        #expect(t.run("domains").out == "com.a, com.b\n")
        #expect(try t.dir.readPlistWithFoundation(t.dir.locations.path(domain: "NSGlobalDomain")) == ["gk": "global"])
        #expect(t.dir.locations.path(domain: "NSGlobalDomain").hasSuffix("/.GlobalPreferences.plist"))
        #expect(t.run("read", "NSGlobalDomain", "gk").out == "global\n")
        #expect(t.run("read", "-globalDomain", "gk").out == "global\n")
        let byHost = t.dir.locations.path(domain: "com.h", host: .current)
        #expect(byHost.hasSuffix("/ByHost/com.h.testhost.plist"))
        #expect(try t.dir.readPlistWithFoundation(byHost) == ["hk": "host"])
        #expect(t.run("-currentHost", "read", "com.h", "hk").out == "host\n")
        #expect(t.run("read", "com.h", "hk").status == 1)
        _ = t.run("-host", "box", "write", "com.h", "k", "-int", "1")
        #expect(FileManager.default.fileExists(atPath: t.dir.locations.path(domain: "com.h", host: .named("box"))))
    }

    @Test func containerOption() throws {
        let t = Tool()
        let box = t.dir.path + "/box"
        #expect(t.run("-container", box, "write", "com.other", "k", "-string", "inside").status == 0)
        #expect(try t.dir.readPlistWithFoundation(box + "/com.other.plist") == ["k": "inside"])
        #expect(!FileManager.default.fileExists(atPath: t.dir.locations.path(domain: "com.other")))
        #expect(t.run("-container", box, "read", "com.other", "k").out == "inside\n")
        #expect(t.run("read", "com.other", "k").status == 1)
    }

    @Test func appNamesADesktopEntry() throws {
        let t = Tool()
        try t.install("org.example.Calc.desktop", "# comment\n[Desktop Entry]\nType=Application\nName = Pocket\\sCalculator\nName[fr]=Calculette\n# Name=Commented\nExec=calc\n\n[Desktop Action Sci]\nName=Scientific\n")
        try t.install("tools/grep.desktop", "[Desktop Entry]\r\nName=Finder\r\n")
        try t.install("org.example.Bom.desktop", "\u{FEFF}[Desktop Entry]\nName=Marked\n")
        try t.install("org.example.Link.desktop", "[Desktop Entry]\nType=Link\nName=Site\n")
        try t.install("notes.desktop", "[Desktop Action New]\nName=Notes\n")
        // By name (spaces in the value are escaped as \s), by ID and by the ID's last component, case aside.
        #expect(t.run("write", "-app", "pocket calculator", "k", "-string", "v").status == 0)
        #expect(try t.file("org.example.Calc") == ["k": "v"])
        #expect(t.run("read", "-app", "ORG.example.calc", "k").out == "v\n")
        #expect(t.run("read-type", "-app", "calc", "k").out == "Type is string\n")
        #expect(t.run("read", "-app", "org.example.Calc.desktop", "k").out == "v\n")
        // A file in a subdirectory has the subdirectory in its ID; CRLF lines and a byte-order mark are read.
        #expect(t.run("write", "-APP", "finder", "k", "-int", "1").status == 0)
        #expect(try t.file("tools-grep") == ["k": 1])
        #expect(t.run("write", "-app", "Marked", "k", "-int", "2").status == 0)
        #expect(try t.file("org.example.Bom") == ["k": 2])
        // Not applications or not names: a link, a file without a [Desktop Entry] group, a localised name, a comment,
        // a name in another group.
        for name in ["Site", "Notes", "Calculette", "Commented", "Scientific", ""] {
            #expect(t.run("read", "-app", name) == (1, "", "Couldn't find an application named \"\(name)\"; defaults unchanged\n"))
        }
        #expect(t.run("read", "-app") == (1, "", DefaultsCommand.usage))
        // Verbs without a domain operand take `-app` literally.
        #expect(t.run("find", "-app") == (0, "No domain, key, nor value containing '-app'\n", ""))
        #expect(t.run("help", "-app", "Nope").status == 0)
    }

    @Test func appEntriesFollowDataDirectoryPrecedence() throws {
        let t = Tool()
        try t.install("org.example.Shadow.desktop", in: "data-home", "[Desktop Entry]\nName=Mine\nHidden=1\n")
        try t.install("org.example.Shadow.desktop", "[Desktop Entry]\nName=Shadow\n")
        try t.install("org.example.Z.desktop", in: "data-home", "[Desktop Entry]\nName=Editor\n")
        try t.install("org.example.B.desktop", "[Desktop Entry]\nName=Editor\n")
        // The user's Hidden entry removes the system one with the same ID.
        #expect(t.run("write", "org.example.Shadow", "k", "-int", "1").status == 0)
        for name in ["Shadow", "org.example.Shadow", "Mine"] {
            #expect(t.run("read", "-app", name, "k") == (1, "", "Couldn't find an application named \"\(name)\"; defaults unchanged\n"))
        }
        // Two entries with one name: the more important directory wins, though its ID sorts after the other.
        #expect(t.run("write", "-app", "Editor", "k", "-string", "z").status == 0)
        #expect(try t.file("org.example.Z") == ["k": "z"])
        // An exact ID beats a name match elsewhere.
        try t.install("Editor.desktop", "[Desktop Entry]\nName=Other\n")
        #expect(t.run("write", "-app", "editor", "k", "-string", "e").status == 0)
        #expect(try t.file("Editor") == ["k": "e"])
    }

    @Test func appDirectoryLoopsAreWalkedOnce() throws {
        let t = Tool()
        try t.install("a.desktop", "[Desktop Entry]\nName=A\n")
        let applications = t.dir.path + "/data/applications"
        for i in 0..<12 {
            try FileManager.default.createSymbolicLink(atPath: applications + "/l\(i)", withDestinationPath: ".")
        }
        try FileManager.default.createDirectory(atPath: applications + "/sub", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: applications + "/sub/up", withDestinationPath: "..")
        #expect(t.system.entryFiles().map(\.id) == ["a"])
        #expect(t.system.applicationDomain(named: "A") == "a")
    }

    @Test func aFlatpakDomainLivesInItsContainer() throws {
        let t = Tool()
        try t.install("org.example.Flat.desktop", "[Desktop Entry]\nName=Flat\n")
        let container = t.dir.path + "/containers/org.example.Flat/config"
        try FileManager.default.createDirectory(atPath: container, withIntermediateDirectories: true)
        #expect(t.run("write", "-app", "Flat", "k", "-int", "1").status == 0)
        #expect(try t.dir.readPlistWithFoundation(container + "/org.example.Flat.plist") == ["k": 1])
        #expect(!FileManager.default.fileExists(atPath: t.dir.locations.path(domain: "org.example.Flat")))
        // By its name too, as Apple's tool reaches a sandboxed app's container; other domains stay outside.
        #expect(t.run("read", "org.example.Flat", "k").out == "1\n")
        #expect(t.run("-container", "org.example.Flat", "read", "org.example.Flat", "k").out == "1\n")
        #expect(t.run("write", "org.example.Plain", "k", "-int", "3").status == 0)
        #expect(try t.file("org.example.Plain") == ["k": 3])
        // `domains` and `find` list the container's own domain, which `read` reaches by name.
        #expect(t.run("domains").out == "org.example.Flat, org.example.Plain\n")
        #expect(t.run("find", "Flat").out.contains("Found 1 keys in domain 'org.example.Flat'"))
        // An explicit container wins over the app's own.
        let box = t.dir.path + "/box"
        #expect(t.run("-container", box, "write", "-app", "Flat", "k", "-int", "2").status == 0)
        #expect(try t.dir.readPlistWithFoundation(box + "/org.example.Flat.plist") == ["k": 2])
    }

    @Test func deleteAllReachesEveryContainer() throws {
        let t = Tool()
        let d = "com.example.shared"
        #expect(t.run("write", d, "k", "-int", "1").status == 0)
        #expect(t.run("write", d, "keep", "-int", "0").status == 0)
        for id in ["org.example.One", "org.example.Two"] {
            #expect(t.run("-container", id, "write", d, "k", "-int", "2").status == 0)
            #expect(try t.dir.readPlistWithFoundation(t.dir.path + "/containers/\(id)/config/\(d).plist") == ["k": 2])
        }
        #expect(t.run("-container", "org.example.Three", "write", "com.example.other", "k", "-int", "3").status == 0)
        // A key: removed wherever it is; the other keys stay.
        #expect(t.run("delete-all", d, "k") == (0, "", ""))
        #expect(try t.file(d) == ["keep": 0])
        for id in ["org.example.One", "org.example.Two"] {
            #expect(t.run("-container", id, "read", d, "k").status == 1)
        }
        #expect(t.run("delete-all", d, "k") == (1, "", "Domain (\(d)) not found.\nDefaults have not been changed.\n"))
        // The domain: gone from every container; other domains untouched.
        #expect(t.run("-container", "org.example.Two", "write", d, "x", "-int", "4").status == 0)
        #expect(t.run("delete-all", d).status == 0)
        #expect(!FileManager.default.fileExists(atPath: t.dir.locations.path(domain: d)))
        #expect(!FileManager.default.fileExists(atPath: t.dir.path + "/containers/org.example.Two/config/\(d).plist"))
        #expect(t.run("-container", "org.example.Three", "read", "com.example.other", "k").out == "3\n")
        #expect(t.run("delete-all", d).status == 1)
        #expect(t.run("delete-all") == (1, "", DefaultsCommand.usage))
    }

    @Test func deleteAllNamedContainerGlobalPathAndManaged() throws {
        let t = Tool()
        // A container given as a path is covered too.
        let box = t.dir.path + "/box"
        #expect(t.run("-container", box, "write", "com.b", "k", "-int", "1").status == 0)
        #expect(t.run("-container", box, "delete-all", "com.b", "k") == (0, "", ""))
        #expect(t.run("-container", box, "read", "com.b", "k").status == 1)
        // The global domain, under its API name in messages.
        #expect(t.run("write", "-g", "gk", "-int", "1").status == 0)
        #expect(t.run("delete-all", "-g", "gk") == (0, "", ""))
        #expect(t.run("read", "-g", "gk").status == 1)
        #expect(t.run("delete-all", "-g", "gk") == (1, "", "Domain (NSGlobalDomain) not found.\nDefaults have not been changed.\n"))
        // A domain given as a path is one file, deleted once.
        let path = t.dir.path + "/elsewhere/custom"
        #expect(t.run("write", path, "k", "-int", "1").status == 0)
        #expect(t.run("delete-all", path) == (0, "", ""))
        #expect(!FileManager.default.fileExists(atPath: path + ".plist"))
        // A managed key (here also left in the user's file from before it was managed) is refused, and nothing changes.
        try t.dir.writePlist(["locked": "admin"], to: t.dir.locations.managedPath(domain: "com.m"))
        try t.dir.writePlist(["locked": "mine", "other": 1], to: t.dir.locations.path(domain: "com.m"))
        let r = t.run("delete-all", "com.m", "locked")
        #expect(r.status == 1)
        #expect(r.err == "Key locked in domain com.m is managed and not writable; leaving defaults unchanged.\n")
        #expect(try t.file("com.m") == ["locked": "mine", "other": 1])
    }

    @Test func domainGivenAsPath() throws {
        let t = Tool()
        let path = t.dir.path + "/elsewhere/custom"
        #expect(t.run("write", path, "k", "-string", "v").status == 0)
        #expect(try t.dir.readPlistWithFoundation(path + ".plist") == ["k": "v"])
        #expect(t.run("read", path, "k").out == "v\n")
    }

    @Test func findMatchesKeysValuesAndDomains() {
        let t = Tool()
        _ = t.run("write", "com.one", "Needle", "-string", "x")
        _ = t.run("write", "com.two", "k", "-array", "a", "haystack-NEEDLE")
        _ = t.run("write", "com.three", "k", "-string", "nothing")
        let r = t.run("find", "needle")
        #expect(r.status == 0)
        #expect(r.out.contains("Found 1 keys in domain 'com.one': {\n    Needle = x;\n}"))
        #expect(r.out.contains("Found 1 keys in domain 'com.two': "))
        #expect(!r.out.contains("com.three"))
        #expect(t.run("find", "zzz").out == "No domain, key, nor value containing 'zzz'\n")
    }

    @Test func managedKeyIsNotWritable() throws {
        let t = Tool()
        try t.dir.writePlist(["locked": "admin"], to: t.dir.locations.managedPath(domain: "com.m"))
        let r = t.run("write", "com.m", "locked", "-string", "mine")
        #expect(r.status == 1)
        #expect(r.err.contains("not writable"))
        #expect(!FileManager.default.fileExists(atPath: t.dir.locations.path(domain: "com.m")))
        #expect(t.run("write", "com.m", "free", "-string", "mine").status == 0)
    }

    @Test func noArgumentsIsUsage255() {
        let t = Tool()
        let r = t.run([])
        #expect(r.status == 255)
        #expect(r.err.contains("Syntax:"))
        #expect(t.run("help").status == 0)
    }

    @Test func readDomainDescriptionMatchesFoundationLayout() throws {
        // Foundation's NSDictionary description (corelibs) uses the same layout as Apple for a one-key dictionary:
        // 4-space indent, the nested container's indentation after " = ", quotes around "y z".
        let t = Tool()
        _ = t.run("write", "com.desc", "arr", "-array", "x", "y z", "-int", "3")
        let r = t.run("read", "com.desc")
        let foundation = (["arr": ["x", "y z", 3]] as NSDictionary).description
        #expect(r.out == foundation + "\n")
    }
}

/// The real `defaults` binary end to end (it uses PlistKit's codecs: binary domain files, OpenStep for raw values).
@Suite
struct DefaultsToolEndToEndTests {
    @Test func writeIntThenReadPrintsFiveAsProcesses() throws {
        let dir = TempDirectory("defaults-e2e")
        let runner = ProcessRunner(directory: dir)
        let w = try runner.run("defaults", ["write", "com.example.demo", "k", "-int", "5"])
        #expect(w.status == 0, "\(w.stderr)")
        let r = try runner.run("defaults", ["read", "com.example.demo", "k"])
        #expect(r.stdout == "5\n", "\(r.stderr)")
        #expect(try dir.readPlistWithFoundation(dir.locations.path(domain: "com.example.demo")) == ["k": 5])
    }

    @Test
    func rawPlistValuesAndDomainRep() throws {
        let dir = TempDirectory("defaults-raw")
        let runner = ProcessRunner(directory: dir)
        var r = try runner.run("defaults", ["write", "d", "a", "(1, two, \"three four\")"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try dir.readPlistWithFoundation(dir.locations.path(domain: "d"))["a"] == ["1", "two", "three four"])
        r = try runner.run("defaults", ["write", "d", "x", "(unclosed"])
        #expect(r.status == 1)
        #expect(r.stderr == "Could not parse: (unclosed.  Try single-quoting it.\n")
        r = try runner.run("defaults", ["write", "d", "{ only = here; }"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try dir.readPlistWithFoundation(dir.locations.path(domain: "d")) == ["only": "here"])
        r = try runner.run("defaults", ["write", "d", "(not, a, dict)"])
        #expect(r.stderr == "Rep argument is not a dictionary\nDefaults have not been changed.\n")
    }

    /// `-app` and Flatpak containers where a real process finds them: `~/.local/share` and `$XDG_DATA_DIRS`, and
    /// `~/.var/app`.
    @Test func appAndContainersFromTheEnvironment() throws {
        let dir = TempDirectory("defaults-app")
        let runner = ProcessRunner(directory: dir)
        func install(_ path: String, _ text: String) throws { try writeCreatingDirectories(text, to: dir.path + "/" + path) }
        try install("home/.local/share/applications/org.example.Flat.desktop", "[Desktop Entry]\nName=Flat App\n")
        try install("share/applications/org.example.Sys.desktop", "[Desktop Entry]\nName=System App\n")
        let container = dir.path + "/home/.var/app/org.example.Flat/config"
        try FileManager.default.createDirectory(atPath: container, withIntermediateDirectories: true)
        var r = try runner.run("defaults", ["write", "-app", "Flat App", "k", "-int", "7"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try dir.readPlistWithFoundation(container + "/org.example.Flat.plist") == ["k": 7])
        r = try runner.run("defaults", ["write", "-app", "system app", "k", "-int", "1"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try dir.readPlistWithFoundation(dir.locations.path(domain: "org.example.Sys")) == ["k": 1])
        r = try runner.run("defaults", ["delete-all", "org.example.Flat", "k"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: container + "/org.example.Flat.plist"), "an emptied domain's file goes")
    }

    @Test func exportAndImport() throws {
        let dir = TempDirectory("defaults-io")
        let runner = ProcessRunner(directory: dir)
        _ = try runner.run("defaults", ["write", "d", "k", "-string", "v"])
        let out = try runner.run("defaults", ["export", "d", "-"])
        #expect(out.stdout.hasPrefix("<?xml"))
        #expect(try FoundationCodec().decode(Array(out.stdout.utf8)) == ["k": "v"])
        let exported = dir.path + "/exported.plist"
        #expect(try runner.run("defaults", ["export", "d", exported]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: exported)).starts(with: Array("bplist00".utf8)))
        #expect(try runner.run("defaults", ["import", "e", exported]).status == 0)
        #expect(try dir.readPlistWithFoundation(dir.locations.path(domain: "e")) == ["k": "v"])
        let xml = Data(try FoundationCodec().encode(["from": "stdin"], format: .xml))
        #expect(try runner.run("defaults", ["import", "f", "-"], stdin: xml).status == 0)
        #expect(try dir.readPlistWithFoundation(dir.locations.path(domain: "f")) == ["from": "stdin"])
    }

    @Test func exportWritesMode0644WhateverTheUmask() throws {
        let dir = TempDirectory("defaults-umask")
        let runner = ProcessRunner(directory: dir)
        _ = try runner.run("defaults", ["write", "d", "k", "-string", "v"])
        let tool = try ProcessRunner.requiredExecutable("defaults")
        let out = dir.path + "/exported.plist"
        let r = try ExternalTool.run(
            "/bin/sh", ["-c", "umask 077 && exec \"$0\" export d \"$1\"", tool, out], environment: runner.environment)
        #expect(r.status == 0, "\(String(decoding: r.stderr, as: UTF8.self))")
        var st = stat()
        #expect(stat(out, &st) == 0)
        #expect(st.st_mode & 0o777 == 0o644)
        // `/dev/stdout` is written to, not renamed over.
        let piped = try ExternalTool.run(tool, ["export", "d", "/dev/stdout"], environment: runner.environment)
        #expect(piped.status == 0)
        #expect(piped.stdout == (try Data(contentsOf: URL(fileURLWithPath: out))))
    }

    @Test func importFromAnEndlessStandardInputStopsAtTheReadLimit() throws {
        let dir = TempDirectory("defaults-endless")
        let runner = ProcessRunner(directory: dir)
        _ = try runner.run("defaults", ["write", "d", "k", "-string", "v"])
        let tool = try ProcessRunner.requiredExecutable("defaults")
        let r = try ExternalTool.run(
            "/bin/sh", ["-c", "exec \"$0\" import d - < /dev/zero", tool], environment: runner.environment)
        #expect(r.status == 1)
        #expect(String(decoding: r.stderr, as: UTF8.self).contains("more than \(StoreOptions().readLimit) bytes"))
        #expect(try dir.readPlistWithFoundation(dir.locations.path(domain: "d")) == ["k": "v"])
    }

    @Test func foundationProgramReadsWhatDefaultsWrote() throws {
        let dir = TempDirectory("defaults-fdn")
        let runner = ProcessRunner(directory: dir)
        _ = try runner.run("defaults", ["write", "com.example.fdn", "greeting", "-string", "hi"])
        let r = try runner.run("PreferencesTestHelper", ["foundation-get", "com.example.fdn", "greeting"])
        #expect(r.stdout == "hi\n")
    }
}

/// Writes `text` to `path`, creating the directories above it (desktop entries for the `-app` tests).
private func writeCreatingDirectories(_ text: String, to path: String) throws {
    let url = URL(fileURLWithPath: path)
    try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url)
}

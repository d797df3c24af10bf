import Foundation
import PlistKit
import Testing
@testable import Preferences

/// The `UserDefaults`-shaped API. Expected values come from Apple's documented semantics (`UserDefaults`, `NSString`, `NSNumber`).
@Suite struct DefaultsTests {
    /// Found by a differential run against Foundation's `UserDefaults`: values Foundation hands out (JSON, property
    /// lists, NSArray) and empty arrays keep their type; expected values are what `UserDefaults` returns.
    @Test func foundationValuesAndEmptyArraysKeepTheirType() throws {
        let dir = TempDirectory()
        let d = try #require(Defaults(suiteName: nil, environment: dir.environment()))
        d.set([String](), forKey: "strings")
        d.set([Int](), forKey: "ints")
        d.set(["inner": [Any]()] as [String: Any], forKey: "nested")
        let json = try #require(try JSONSerialization.jsonObject(
            with: Data(#"{"count": 1, "zero": 0, "flag": true, "small": [1, 0, 2], "ratio": 1.0, "negative zero": -0.0}"#.utf8)) as? [String: Any])
        d.set(json, forKey: "json")
        let fromPlist = try PropertyListSerialization.propertyList(
            from: Data("<plist><array><integer>1</integer><integer>2</integer><true/></array></plist>".utf8), format: nil)
        d.register(defaults: ["registered": fromPlist, "emptyDefault": [String]()])
        d.set([UInt8](arrayLiteral: 1, 2), forKey: "bytes")
        #expect(d.synchronize())
        for reader in [d, try #require(Defaults(suiteName: nil, environment: dir.environment()))] {
            #expect(reader.stringArray(forKey: "strings") == [])
            #expect(reader.array(forKey: "ints")?.isEmpty == true)
            #expect((reader.dictionary(forKey: "nested")?["inner"] as? [Any])?.isEmpty == true)
            let j = try #require(reader.dictionary(forKey: "json"))
            #expect(j["count"] as? Int == 1 && !(j["count"] is Bool))
            #expect(j["zero"] as? Int == 0 && !(j["zero"] is Bool))
            #expect(j["flag"] as? Bool == true)
            #expect((j["small"] as? [Any])?.compactMap { $0 as? Int } == [1, 0, 2])
            #expect(j["ratio"] as? Double == 1.0 && !(j["ratio"] is Int))
            #expect((j["negative zero"] as? Double).map { $0 == 0 && $0.sign == .minus } == true)
            #expect(reader.plistValue(forKey: "bytes") == [1, 2])
        }
        // Registration is per process (never stored): read where it was registered.
        #expect(d.plistValue(forKey: "registered") == [1, 2, true])
        #expect(d.stringArray(forKey: "emptyDefault") == [])
        // Foundation reads the file's types back the same way.
        let file = try dir.readPlistWithFoundation(dir.locations.path(domain: "com.example.app"))
        #expect(file["json"] == ["count": 1, "flag": true, "small": [1, 0, 2], "zero": 0, "ratio": 1.0, "negative zero": .real(PlistReal(-0.0))])
        #expect(file["strings"] == [])
    }

    /// What Apple bridges to NSNumber is stored as a number; a Float reads back as its own text, as NSNumber gives.
    @Test func otherNumericTypesAreStoredAsNumbers() throws {
        let dir = TempDirectory()
        let d = try #require(Defaults(suiteName: nil, environment: dir.environment()))
        d.set(CGFloat(1.5), forKey: "cg")
        d.set(Decimal(string: "1.25") as Decimal?, forKey: "decimal")
        d.set(Int128(7), forKey: "wide")
        d.set(Float(1.1), forKey: "float")
        d.set(NSDecimalNumber(string: "1"), forKey: "decimal one")
        d.set(NSDecimalNumber(string: "2.5"), forKey: "decimal real")
        d.set(NSNumber(value: Float(1)), forKey: "float one")
        #expect(d.double(forKey: "cg") == 1.5)
        #expect(d.double(forKey: "decimal") == 1.25)
        #expect(d.integer(forKey: "wide") == 7)
        #expect(d.string(forKey: "float") == NSNumber(value: Float(1.1)).stringValue)
        #expect(d.string(forKey: "float") == "1.1")
        #expect(d.object(forKey: "decimal one") as? Int == 1 && !(d.object(forKey: "decimal one") is Bool))
        #expect(d.object(forKey: "decimal real") as? Double == 2.5)
        #expect(d.object(forKey: "float one") as? Double == 1.0)
    }

    /// `Defaults()` is the application domain, as `UserDefaults()` is.
    @Test func plainInitialiserIsTheApplicationDomain() {
        #expect(Defaults().domain == Defaults.standard.domain)
    }

    /// `setVolatileDomain(_:forName: argumentDomain)` replaces the arguments, as it does for `UserDefaults`.
    @Test func theArgumentDomainCanBeReplaced() throws {
        let dir = TempDirectory()
        let d = try #require(Defaults(suiteName: nil, environment: dir.environment(arguments: ["-k", "from-args"])))
        #expect(d.string(forKey: "k") == "from-args")
        d.setVolatileDomain(["av": 8], forName: Defaults.argumentDomain)
        #expect(d.integer(forKey: "av") == 8)
        #expect(d.object(forKey: "k") == nil)
        #expect(d.volatileDomain(forName: Defaults.argumentDomain)["av"] as? Int == 8)
        d.removeVolatileDomain(forName: Defaults.argumentDomain)
        #expect(d.object(forKey: "av") == nil)
    }

    @Test func setGetRoundTripsEveryPlistTypeThroughTheFile() throws {
        let dir = TempDirectory()
        let env = dir.environment()
        let d = try #require(Defaults(suiteName: nil, environment: env))
        let date = Date(timeIntervalSinceReferenceDate: 1234.5)
        d.set("s", forKey: "string")
        d.set(42, forKey: "int")
        d.set(2.5, forKey: "double")
        d.set(Float(1.5), forKey: "float")
        d.set(true, forKey: "bool")
        d.set(date, forKey: "date")
        d.set(Data([1, 2, 3]), forKey: "data")
        d.set(["a", 1, true] as [Any], forKey: "array")
        d.set(["x": 1, "y": ["z"]] as [String: Any], forKey: "dict")
        d.set(Int64.max, forKey: "i64max")
        d.set(Int64.min, forKey: "i64min")
        d.set(UInt64.max, forKey: "u64max")
        d.setPlistValue(["nested": ["deep": 1]], forKey: "plist")
        #expect(d.synchronize())
        // A second environment reads the file fresh (as another process would).
        let fresh = try #require(Defaults(suiteName: nil, environment: dir.environment()))
        #expect(fresh.string(forKey: "string") == "s")
        #expect(fresh.integer(forKey: "int") == 42)
        #expect(fresh.double(forKey: "double") == 2.5)
        #expect(fresh.float(forKey: "float") == 1.5)
        #expect(fresh.bool(forKey: "bool"))
        #expect(fresh.object(forKey: "date") as? Date == date)
        #expect(fresh.data(forKey: "data") == Data([1, 2, 3]))
        #expect(fresh.plistValue(forKey: "array") == ["a", 1, true])
        #expect(fresh.plistValue(forKey: "dict") == ["x": 1, "y": ["z"]])
        #expect(fresh.integer(forKey: "i64max") == Int.max)
        #expect(fresh.object(forKey: "i64max") as? Int == Int.max)
        #expect(fresh.integer(forKey: "i64min") == Int.min)
        #expect(fresh.object(forKey: "u64max") as? UInt64 == UInt64.max)
        #expect(fresh.string(forKey: "u64max") == "18446744073709551615")
        #expect(fresh.plistValue(forKey: "plist") == ["nested": ["deep": 1]])
        #expect(fresh.stringArray(forKey: "array") == nil)
        #expect(fresh.array(forKey: "dict") == nil)
        #expect(fresh.dictionary(forKey: "dict")?["x"] as? Int == 1)
    }

    @Test func typedGettersCoerceStoredStrings() throws {
        let dir = TempDirectory()
        let d = try #require(Defaults(suiteName: nil, environment: dir.environment()))
        d.set("YES", forKey: "yes")
        d.set(" 42", forKey: "sp42")
        d.set("0.5", forKey: "half")
        d.set("42", forKey: "n")
        #expect(d.bool(forKey: "yes"))
        #expect(d.bool(forKey: "sp42"))
        #expect(!d.bool(forKey: "half"))
        #expect(d.double(forKey: "half") == 0.5)
        #expect(d.integer(forKey: "n") == 42)
        #expect(d.integer(forKey: "absent") == 0)
        #expect(d.string(forKey: "absent") == nil)
        d.set(["a", "b"], forKey: "strings")
        #expect(d.stringArray(forKey: "strings") == ["a", "b"])
    }

    @Test func searchListOrder() throws {
        let dir = TempDirectory()
        let loc = dir.locations
        let app = "com.example.app"
        // Each layer holds key "k" = its own name, plus a key only it has.
        let layers: [(String, String)] = [
            ("managed", loc.managedPath(domain: app)),
            ("appByHost", loc.path(domain: app, host: .current)),
            ("app", loc.path(domain: app)),
            ("suiteByHost", loc.path(domain: "com.example.suite", host: .current)),
            ("suite", loc.path(domain: "com.example.suite")),
            ("globalByHost", loc.path(domain: Defaults.globalDomain, host: .current)),
            ("global", loc.path(domain: Defaults.globalDomain)),
            ("anyUser", loc.path(domain: app, user: .any)),
        ]
        // Layer i also sets from_<layer j> for every j <= i, so from_<X> is present in X and every lower layer.
        for (i, (name, path)) in layers.enumerated() {
            var d: PlistDictionary = ["only_\(name)": .string(name)]
            if i > 0 { d["argKey"] = "file" }
            for (other, _) in layers.prefix(i + 1) { d["from_\(other)"] = .string(name) }
            try dir.writePlist(.dictionary(d), to: path)
        }
        #expect(FileManager.default.fileExists(atPath: loc.path(domain: Defaults.globalDomain)))
        #expect(loc.path(domain: Defaults.globalDomain).hasSuffix("/.GlobalPreferences.plist"))
        let env = dir.environment(arguments: ["-from_managed", "args", "-argKey", "args"])
        let d = try #require(Defaults(suiteName: nil, environment: env))
        d.addSuite(named: "com.example.suite")
        d.register(defaults: ["from_anyUser": "registration", "registered": "r"])
        #expect(d.string(forKey: "from_anyUser") == "anyUser") // registration is last
        // from_X is in X and every lower layer: X must win. Managed beats arguments; arguments beat every file.
        for (name, _) in layers {
            #expect(d.string(forKey: "only_\(name)") == name)
            #expect(d.string(forKey: "from_\(name)") == name, "from_\(name)")
        }
        #expect(d.string(forKey: "argKey") == "args")
        #expect(!d.objectIsForced(forKey: "argKey"))
        #expect(d.string(forKey: "registered") == "r")
        #expect(d.objectIsForced(forKey: "only_managed"))
        #expect(!d.objectIsForced(forKey: "only_app"))
        let rep = d.plistRepresentation()
        for key in rep.keys { #expect(rep[key] == d.plistValue(forKey: key), "dictionaryRepresentation[\(key)]") }
        #expect(rep["only_anyUser"] == "anyUser")
        d.removeSuite(named: "com.example.suite")
        #expect(d.string(forKey: "only_suite") == nil)
    }

    @Test func argumentDomainParsesPlistValuesAndBeatsApp() throws {
        let dir = TempDirectory()
        try dir.writePlist(["k": "file"], to: dir.locations.path(domain: "com.example.app"))
        let env = dir.environment(arguments: ["-k", "arg", "-skipped", "-alsoSkipped", "-plain", "YES", "-n", "42"])
        let d = try #require(Defaults(suiteName: nil, environment: env))
        #expect(d.string(forKey: "k") == "arg")
        #expect(d.plistValue(forKey: "plain") == "YES")
        #expect(d.bool(forKey: "plain"))
        #expect(d.plistValue(forKey: "n") == "42") // a string, coerced by getters
        #expect(d.integer(forKey: "n") == 42)
        #expect(d.plistValue(forKey: "skipped") == nil)
    }

    @Test func managedKeysAreForcedAndRefuseWrites() throws {
        let dir = TempDirectory()
        try dir.writePlist(["locked": "admin"], to: dir.locations.managedPath(domain: "com.example.app"))
        try dir.writePlist(["globalLock": 1], to: dir.locations.managedPath(domain: Defaults.globalDomain))
        let env = dir.environment()
        let log = EventLog(env)
        let d = try #require(Defaults(suiteName: nil, environment: env))
        #expect(d.objectIsForced(forKey: "locked"))
        #expect(d.objectIsForced(forKey: "globalLock"))
        #expect(d.objectIsForced(forKey: "locked", inDomain: "com.example.app"))
        #expect(!d.objectIsForced(forKey: "locked", inDomain: "com.other"))
        d.set("user", forKey: "locked")
        #expect(d.string(forKey: "locked") == "admin")
        #expect(throws: PreferencesError.self) { try d.trySet("user", forKey: "locked") }
        #expect(log.events.contains(.notWritable(domain: "com.example.app", key: "locked")))
        #expect(d.synchronize())
        #expect(!FileManager.default.fileExists(atPath: dir.locations.path(domain: "com.example.app")))
    }

    @Test func suiteInitRules() {
        let dir = TempDirectory()
        let env = dir.environment()
        #expect(Defaults(suiteName: Defaults.globalDomain, environment: env) == nil)
        #expect(Defaults(suiteName: "com.example.app", environment: env) == nil)
        #expect(Defaults(suiteName: "a/b", environment: env) == nil)
        #expect(Defaults(suiteName: "group.x", environment: env)?.domain == "group.x")
    }

    @Test func volatileDomainsAreNotSearched() throws {
        let dir = TempDirectory()
        let d = try #require(Defaults(suiteName: nil, environment: dir.environment()))
        d.setVolatileDomain(["v": 1], forName: "Scratch")
        #expect(d.volatileDomain(forName: "Scratch")["v"] as? Int == 1)
        #expect(d.object(forKey: "v") == nil)
        #expect(d.volatileDomainNames.contains("Scratch"))
        #expect(d.volatileDomainNames.contains(Defaults.registrationDomain))
        d.removeVolatileDomain(forName: "Scratch")
        #expect(d.volatileDomain(forName: "Scratch").isEmpty)
    }

    @Test func persistentDomainAPI() throws {
        let dir = TempDirectory()
        let d = try #require(Defaults(suiteName: nil, environment: dir.environment()))
        d.setPersistentDomain(["a": 1, "b": "two"], forName: "com.example.other")
        #expect(try dir.readPlistWithFoundation(dir.locations.path(domain: "com.example.other")) == ["a": 1, "b": "two"])
        d.setPersistentDomain(["c": true], forName: "com.example.other")
        #expect(d.persistentDomain(forName: "com.example.other")?.keys.sorted() == ["c"])
        #expect(d.persistentDomainNames.contains("com.example.other"))
        d.removePersistentDomain(forName: "com.example.other")
        #expect(d.persistentDomain(forName: "com.example.other") == nil)
        #expect(!FileManager.default.fileExists(atPath: dir.locations.path(domain: "com.example.other")))
    }

    @Test func urlsKeepTheirFullText() throws {
        let dir = TempDirectory()
        let d = try #require(Defaults(suiteName: nil, environment: dir.environment()))
        let web = try #require(URL(string: "https://example.com/a?b=c#frag"))
        d.set(web, forKey: "web")
        #expect(d.url(forKey: "web") == web) // Foundation on Linux returns file:///a here
        let file = URL(fileURLWithPath: "/tmp/some dir/file.txt")
        d.set(file, forKey: "file")
        #expect(d.url(forKey: "file")?.path == "/tmp/some dir/file.txt")
        #expect(d.url(forKey: "file")?.isFileURL == true)
        d.set("/etc/hosts", forKey: "pathString")
        #expect(d.url(forKey: "pathString") == URL(fileURLWithPath: "/etc/hosts"))
        d.set("https://example.org/x", forKey: "urlString")
        #expect(d.url(forKey: "urlString")?.absoluteString == "https://example.org/x")
        // Data that is not a URL must give nil, not a crash (Foundation aborts here).
        d.set(Data([0xff, 0x00, 0x13]), forKey: "junk")
        #expect(d.url(forKey: "junk") == nil)
        d.set(12, forKey: "number")
        #expect(d.url(forKey: "number") == nil)
        #expect(d.synchronize())
        let fresh = try #require(Defaults(suiteName: nil, environment: dir.environment()))
        #expect(fresh.url(forKey: "web") == web)
        #expect(fresh.url(forKey: "file")?.path == "/tmp/some dir/file.txt")
    }

    @Test func unsupportedValueIsReportedNotStored() throws {
        let dir = TempDirectory()
        let env = dir.environment()
        let log = EventLog(env)
        let d = try #require(Defaults(suiteName: nil, environment: env))
        struct NotAPlist {}
        d.set(NotAPlist(), forKey: "bad")
        #expect(d.object(forKey: "bad") == nil)
        #expect(log.events.contains { if case .unsupportedValue(key: "bad", _) = $0 { true } else { false } })
    }

    @Test func hammeredFromManyTasks() async throws {
        let dir = TempDirectory()
        let env = dir.environment { $0.flushDelay = 0.01 }
        let d = try #require(Defaults(suiteName: nil, environment: env))
        await withTaskGroup(of: Void.self) { group in
            for t in 0..<16 {
                group.addTask {
                    for i in 0..<300 {
                        d.set(i, forKey: "t\(t)")
                        _ = d.integer(forKey: "t\((t + 1) % 16)")
                        if i % 50 == 0 { d.synchronize() }
                        if i % 97 == 0 { _ = d.dictionaryRepresentation() }
                    }
                }
            }
        }
        #expect(d.synchronize())
        for t in 0..<16 { #expect(d.integer(forKey: "t\(t)") == 299) }
        let onDisk = try dir.readPlistWithFoundation(dir.locations.path(domain: "com.example.app"))
        for t in 0..<16 { #expect(onDisk["t\(t)"] == 299) }
    }
}

/// URL reading rules of `LocationURLArchiver` (string paths become file URLs; unknown data
/// gives nil instead of Foundation's abort).
@Suite struct URLArchiverTests {
    let archiver = LocationURLArchiver()

    @Test func storedForms() throws {
        let web = try #require(URL(string: "https://example.com/a?b=c"))
        #expect(archiver.archive(web) == "https://example.com/a?b=c")
        let file = URL(fileURLWithPath: "/tmp/x/../y.txt")
        #expect(archiver.archive(file) == ["path": "/tmp/y.txt", "url": "file:///tmp/y.txt"])
        #expect(LocationURLArchiver(pathOnly: true).archive(file) == "/tmp/y.txt")
    }

    @Test func readForms() {
        #expect(archiver.unarchive("/etc/hosts") == URL(fileURLWithPath: "/etc/hosts"))
        #expect(archiver.unarchive("file:///etc/hosts")?.path == "/etc/hosts")
        #expect(archiver.unarchive("~/notes.txt")?.path == PreferencesLocations.homeDirectory() + "/notes.txt")
        #expect(archiver.unarchive(["path": "/a b"])?.path == "/a b")
        #expect(archiver.unarchive(.data(Data("https://example.org/".utf8)))?.absoluteString == "https://example.org/")
        #expect(archiver.unarchive(.data(Data([0xff, 0xfe]))) == nil)
        #expect(archiver.unarchive(["unrelated": 1]) == nil)
        #expect(archiver.unarchive("") == nil)
        #expect(archiver.unarchive(.bool(true)) == nil)
    }

    @Test func readsFoundationKeyedArchiveOfNSURL() throws {
        // Oracle: Foundation's own NSKeyedArchiver (the form Apple's set(_: URL, forKey:) stores).
        for text in ["https://example.com/x?y=1", "file:///tmp/some%20file.txt"] {
            let url = try #require(URL(string: text))
            let data = try NSKeyedArchiver.archivedData(withRootObject: url as NSURL, requiringSecureCoding: false)
            #expect(archiver.unarchive(.data(data))?.absoluteString == text)
        }
        let relative = try #require(NSURL(string: "b/c", relativeTo: URL(string: "https://example.com/a/")))
        let data = try NSKeyedArchiver.archivedData(withRootObject: relative, requiringSecureCoding: false)
        #expect(archiver.unarchive(.data(data))?.absoluteString == "https://example.com/a/b/c")
        // A keyed archive of something else is not a URL.
        let other = try NSKeyedArchiver.archivedData(withRootObject: NSString(string: "x"), requiringSecureCoding: false)
        #expect(archiver.unarchive(.data(other)) == nil)
    }
}

import Foundation
import PlistKit
import Testing
@testable import Preferences

/// CFPreferences-style scopes and containers (issue 7, item 8).
@Suite struct ScopesTests {
    @Test func perHostValueWrittenThroughScopeIsReadBySearchList() throws {
        let dir = TempDirectory()
        let env = dir.environment()
        let d = try #require(Defaults(suiteName: nil, environment: env))
        d.set("any host", forKey: "k")
        try env.setValue("this host", forKey: "k", domain: "com.example.app", user: .current, host: .current)
        try env.synchronize(domain: "com.example.app", user: .current, host: .current)
        #expect(d.string(forKey: "k") == "this host") // byHost is above any-host in the search list
        let byHost = dir.locations.path(domain: "com.example.app", host: .current)
        #expect(byHost.hasSuffix("/ByHost/com.example.app.testhost.plist"))
        #expect(try dir.readPlistWithFoundation(byHost) == ["k": "this host"])
        #expect(d.synchronize())
        #expect(env.value(forKey: "k", domain: "com.example.app", user: .current, host: .any) == "any host")
    }

    @Test func anyUserScopeIsWorldReadableAndBelowUser() throws {
        let dir = TempDirectory()
        let env = dir.environment()
        try env.setValue("site", forKey: "s", domain: "com.example.app", user: .any, host: .any)
        try env.synchronize(domain: "com.example.app", user: .any, host: .any)
        let path = dir.locations.path(domain: "com.example.app", user: .any)
        #expect((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) == 0o644)
        let d = try #require(Defaults(suiteName: nil, environment: env))
        #expect(d.string(forKey: "s") == "site")
        d.set("mine", forKey: "s")
        #expect(d.string(forKey: "s") == "mine")
    }

    @Test func scopeWriteToManagedKeyIsRefused() throws {
        let dir = TempDirectory()
        try dir.writePlist(["m": 1], to: dir.locations.managedPath(domain: "com.x"))
        let env = dir.environment()
        #expect(throws: PreferencesError.self) {
            try env.setValue(2, forKey: "m", domain: "com.x", user: .current, host: .current)
        }
    }

    @Test func containerConfinesSuitesNamingOtherApps() throws {
        let dir = TempDirectory()
        // The user's real file of another app.
        let realOther = dir.locations.path(domain: "com.other.app")
        try dir.writePlist(["secret": "real"], to: realOther)
        let before = try Data(contentsOf: URL(fileURLWithPath: realOther))
        var options = StoreOptions()
        options.codec = TestCodec.current
        let container = dir.path + "/containers/com.example.sandboxed/config"
        let env = PreferencesEnvironment(
            locations: dir.locations.contained(in: container), options: options,
            applicationDomain: "com.example.sandboxed", logsToStandardError: false)
        let suite = try #require(Defaults(suiteName: "com.other.app", environment: env))
        #expect(suite.string(forKey: "secret") == nil)
        suite.set("inside", forKey: "secret")
        #expect(suite.synchronize())
        #expect(try dir.readPlistWithFoundation(container + "/com.other.app.plist") == ["secret": "inside"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: realOther)) == before)
        // The standard search list of the contained app also stays inside.
        let app = try #require(Defaults(suiteName: nil, environment: env))
        app.addSuite(named: "com.other.app")
        #expect(app.string(forKey: "secret") == "inside")
    }

    @Test func containerFromEnvironmentVariable() throws {
        let dir = TempDirectory("prefs-container")
        let container = dir.path + "/box"
        var runner = ProcessRunner(directory: dir).environment
        runner["PREFERENCES_CONTAINER"] = container
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(ProcessRunner.executable("PreferencesTestHelper")))
        process.arguments = ["set-exit", "com.other.app", "k", "v"]
        process.environment = runner
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(try dir.readPlistWithFoundation(container + "/com.other.app.plist") == ["k": "v"])
        #expect(!FileManager.default.fileExists(atPath: dir.locations.path(domain: "com.other.app")))
    }
}

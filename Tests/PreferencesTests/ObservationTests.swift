import Foundation
import PlistKit
import Testing
@testable import Preferences

/// Observers: per-key closures with old and new values, AsyncSequence, did-change, and changes from other processes.
@Suite struct ObservationTests {
    final class Box: @unchecked Sendable {
        let lock = NSLock()
        var changes: [PreferenceChange] = []
        func add(_ c: PreferenceChange) { lock.lock(); changes.append(c); lock.unlock() }
        var all: [PreferenceChange] { lock.lock(); defer { lock.unlock() }; return changes }
    }

    @Test func closureGetsOldAndNewValues() throws {
        let dir = TempDirectory()
        let d = try #require(Defaults(suiteName: nil, environment: dir.environment()))
        d.set(1, forKey: "k")
        let box = Box()
        let token = d.observe("k") { box.add($0) }
        d.set(2, forKey: "k")
        d.set(2, forKey: "k") // unchanged value: no call
        d.removeObject(forKey: "k")
        d.set("x", forKey: "other")
        #expect(box.all == [
            PreferenceChange(key: "k", oldValue: 1, newValue: 2),
            PreferenceChange(key: "k", oldValue: 2, newValue: nil),
        ])
        token.cancel()
        d.set(3, forKey: "k")
        #expect(box.all.count == 2)
    }

    @Test func shadowedChangeDoesNotFire() throws {
        let dir = TempDirectory()
        try dir.writePlist(["k": "managed"], to: dir.locations.managedPath(domain: Defaults.globalDomain))
        let env = dir.environment()
        let d = try #require(Defaults(suiteName: nil, environment: env))
        let box = Box()
        let token = d.observe("g") { box.add($0) }
        let global = Defaults(validatedDomain: Defaults.globalDomain, environment: env)
        global.set("from global", forKey: "g")
        #expect(box.all == [PreferenceChange(key: "g", oldValue: nil, newValue: "from global")])
        d.set("app wins", forKey: "g")
        global.set("hidden", forKey: "g") // the app domain shadows it
        #expect(box.all.map(\.newValue) == ["from global", "app wins"])
        _ = token
    }

    @Test func asyncSequenceDeliversChanges() async throws {
        let dir = TempDirectory()
        let d = try #require(Defaults(suiteName: nil, environment: dir.environment()))
        let stream = d.changes(forKey: "n")
        let reader = Task { () -> [PlistValue?] in
            var seen: [PlistValue?] = []
            for await change in stream {
                seen.append(change.newValue)
                if seen.count == 3 { break }
            }
            return seen
        }
        d.set(1, forKey: "n")
        d.set(2, forKey: "n")
        d.set(3, forKey: "n")
        #expect(await reader.value == [1, 2, 3])
    }

    /// The kernel's own overflow: more events than `fs.inotify.max_queued_events` queued before a read. The watcher's
    /// reader reports it as "anything may have changed" (nil), and the store then re-reads every cached file.
    @Test func anInotifyOverflowRereadsEveryFile() throws {
        let dir = TempDirectory("overflow", memoryBacked: true)
        let watched = dir.path + "/watched"
        try FileManager.default.createDirectory(atPath: watched, withIntermediateDirectories: true)
        let fd = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        try #require(fd >= 0)
        defer { close(fd) }
        let table = WatchTable()
        let wd = inotify_add_watch(fd, watched, DirectoryWatcher.mask)
        try #require(wd >= 0)
        table.directories.withLock { $0[wd] = watched }
        let limitText = (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8)) ?? "16384"
        let limit = Int(limitText.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 16384
        // Create, close and remove: three events each, none merged with the one before.
        for _ in 0..<(limit / 3 + 100) {
            let f = open(watched + "/a.plist", O_WRONLY | O_CREAT, 0o600)
            close(f)
            unlink(watched + "/a.plist")
        }
        let box = Box2()
        DirectoryWatcher.drain(fd: fd, table: table) { box.add($0) }
        #expect(box.all.contains(nil), "an overflow reported as nil")
        #expect(box.all.contains(watched + "/a.plist"), "the events that were queued reported as usual")

        // What nil does: a store whose cache would otherwise hold the old value for a minute sees the new file at once.
        let env = dir.environment { $0.recheckInterval = 60 }
        let d = try #require(Defaults(suiteName: nil, environment: env))
        d.set(1, forKey: "k")
        #expect(d.synchronize())
        let other = try #require(Defaults(suiteName: nil, environment: dir.environment()))
        other.set(2, forKey: "k")
        #expect(other.synchronize())
        #expect(d.integer(forKey: "k") == 1, "cached for the recheck interval")
        env.fileChanged(nil)
        #expect(d.integer(forKey: "k") == 2)
    }

    final class Box2: @unchecked Sendable {
        let lock = NSLock()
        var paths: [String?] = []
        func add(_ p: String?) { lock.lock(); paths.append(p); lock.unlock() }
        var all: [String?] { lock.lock(); defer { lock.unlock() }; return paths }
    }

    @Test func otherProcessChangeReachesObserverViaInotify() async throws {
        let dir = TempDirectory("prefs-watch")
        // The helper writes domain "com.example.watch" as its own; our instance reads it as a suite.
        let d = try #require(Defaults(suiteName: "com.example.watch", environment: dir.environment()))
        let box = Box()
        let didChange = Box()
        let token = d.observe("remote") { box.add($0) }
        let token2 = d.onDidChange { domain, keys, external in
            if external { didChange.add(PreferenceChange(key: domain + ":" + keys.joined(separator: ","), oldValue: nil, newValue: nil)) }
        }
        let r = try ProcessRunner(directory: dir).run("PreferencesTestHelper", ["set-exit", "com.example.watch", "remote", "hello"])
        #expect(r.status == 0, "\(r.stderr)")
        var waited = 0
        while box.all.isEmpty, waited < 250 {
            try await Task.sleep(for: .milliseconds(20))
            waited += 1
        }
        #expect(box.all == [PreferenceChange(key: "remote", oldValue: nil, newValue: "hello")])
        #expect(didChange.all.map(\.key) == ["com.example.watch:remote"])
        _ = (token, token2)
    }

    @Test(.timeLimit(.minutes(1)))
    func changeFoundByAReadFiresObserverThatReadsAgain() throws {
        let dir = TempDirectory()
        let d = try #require(Defaults(suiteName: nil, environment: dir.environment { $0.recheckInterval = 0 }))
        let box = Box()
        // The handler reads the same instance: a re-entrant lookup must not deadlock.
        let token = d.observe("k") { change in
            _ = d.string(forKey: "k")
            box.add(change)
        }
        // Another "process" (its own environment and cache) writes the file.
        let other = try #require(Defaults(suiteName: nil, environment: dir.environment()))
        other.set("outside", forKey: "k")
        #expect(other.synchronize())
        #expect(d.string(forKey: "k") == "outside")
        // The change may instead be picked up first by the inotify watcher on its own queue: wait for delivery.
        var waited = 0
        while box.all.isEmpty, waited < 200 {
            usleep(10_000)
            waited += 1
        }
        #expect(box.all == [PreferenceChange(key: "k", oldValue: nil, newValue: "outside")])
        _ = token
    }
}

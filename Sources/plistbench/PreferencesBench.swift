import Foundation
import PlistKit
import Preferences

/// `plistbench preferences [--seconds S] [--dir D]`: Preferences' `Defaults` against Foundation's `UserDefaults` in
/// one process, on the same machine and directory: cached read, set, synchronize with one changed key in a
/// 10,000-key domain, and a cold start reading a 1 MB domain. Prints a Markdown table with the ratio
/// (Foundation time / ours; above 1 means we are faster).
///
/// Call `PreferencesBench.run(arguments)` from `main.swift`. `--dir` picks the directory (default: a new one under
/// the temp dir); the disk matters for synchronize, which fsyncs.
enum PreferencesBench {
    static func run(_ args: [String]) -> Int32 {
        var seconds = 0.5
        var base = NSTemporaryDirectory() + "plistbench-prefs-\(getpid())"
        var i = 0
        while i < args.count {
            if args[i] == "--seconds", i + 1 < args.count, let s = Double(args[i + 1]) { seconds = s; i += 2; continue }
            if args[i] == "--dir", i + 1 < args.count { base = args[i + 1]; i += 2; continue }
            i += 1
        }
        // Foundation takes XDG_CONFIG_HOME from the environment the process started with, so a setenv here would
        // leave it writing the real ~/.config: re-run this process with the variable set instead.
        if ProcessInfo.processInfo.environment["PLISTBENCH_PREFS_DIR"] == nil {
            setenv("PLISTBENCH_PREFS_DIR", base, 1)
            setenv("XDG_CONFIG_HOME", base, 1)
            let argv = CommandLine.arguments.map { strdup($0) } + [nil]
            execv("/proc/self/exe", argv)
            print("cannot re-execute with XDG_CONFIG_HOME set: \(String(cString: strerror(errno)))")
            return 1
        }
        base = ProcessInfo.processInfo.environment["PLISTBENCH_PREFS_DIR"] ?? base
        guard ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"] == base else { print("XDG_CONFIG_HOME not set"); return 1 }
        let fm = FileManager.default
        try? fm.createDirectory(atPath: base, withIntermediateDirectories: true)
        defer { try? fm.removeItem(atPath: base) }
        let locations = PreferencesLocations(
            userDirectory: base, anyUserDirectory: base + "/any-user", managedDirectory: base + "/managed", hostID: "bench")


        // Binary is the store's default; until PlistKit's binary codec is in the build, measure with XML (and say so).
        var options = StoreOptions()
        let sample: PlistValue = ["k": "v"]
        if (try? PropertyList.read(PropertyList.writeBytes(sample, format: .binary)).value) != sample { options.writeFormat = .xml }
        let format = options.writeFormat == .binary ? "binary" : "XML"
        print("Preferences writes \(format); Foundation writes XML.\n")
        print("| operation | Preferences | Foundation UserDefaults | ratio |")
        print("|---|---:|---:|---:|")

        // Cached read and set on a small domain.
        let env = PreferencesEnvironment(
            locations: locations, options: options, applicationDomain: "plistbench", logsToStandardError: false)
        guard let ours = Defaults(suiteName: "bench.small", environment: env),
            let theirs = UserDefaults(suiteName: "bench.small.foundation")
        else { print("cannot create instances"); return 1 }
        for k in 0..<100 {
            ours.set("value \(k)", forKey: "key\(k)")
            theirs.set("value \(k)", forKey: "key\(k)")
        }
        let batch = 1000
        let readOurs = perCall(seconds, batch) { for _ in 0..<batch { _ = ours.string(forKey: "key42") } }
        let readTheirs = perCall(seconds, batch) { for _ in 0..<batch { _ = theirs.string(forKey: "key42") } }
        row("cached read (string(forKey:))", readOurs, readTheirs)
        var n = 0
        let setOurs = perCall(seconds, batch) { for _ in 0..<batch { n &+= 1; ours.set(n, forKey: "counter") } }
        let setTheirs = perCall(seconds, batch) { for _ in 0..<batch { n &+= 1; theirs.set(n, forKey: "counter") } }
        row("set(Int, forKey:)", setOurs, setTheirs)

        // synchronize() with one changed key in a 10,000-key domain.
        guard let bigOurs = Defaults(suiteName: "bench.big", environment: env),
            let bigTheirs = UserDefaults(suiteName: "bench.big.foundation")
        else { return 1 }
        for k in 0..<10_000 {
            bigOurs.set("value number \(k)", forKey: "key\(k)")
            bigTheirs.set("value number \(k)", forKey: "key\(k)")
        }
        _ = bigOurs.synchronize()
        _ = bigTheirs.synchronize()
        let syncOurs = perCall(seconds, 1) { n &+= 1; bigOurs.set(n, forKey: "key5"); _ = bigOurs.synchronize() }
        let syncTheirs = perCall(seconds, 1) { n &+= 1; bigTheirs.set(n, forKey: "key5"); _ = bigTheirs.synchronize() }
        row("synchronize(), 1 of 10,000 keys changed", syncOurs, syncTheirs)

        // Cold start: a new instance reading one key of a ~1 MB domain never loaded before by this process.
        var big = PlistDictionary()
        var k = 0
        while true {
            big["key\(k)"] = .string(String(repeating: "v", count: 90) + "\(k)")
            k += 1
            if k * 100 >= 1 << 20 { break }
        }
        guard let ourFile = try? PropertyList.write(.dictionary(big), format: options.writeFormat),
            let xml = try? PropertyList.write(.dictionary(big), format: .xml)
        else { print("| cold start | PlistKit codecs unavailable | | |"); return 0 }
        var round = 0
        // Both must really find the value, or the timing means nothing.
        _ = fm.createFile(atPath: "\(base)/cold.check.plist", contents: xml)
        let checkOurs = Defaults(suiteName: "cold.check", environment: PreferencesEnvironment(
            locations: locations, options: options, applicationDomain: "cold", logsToStandardError: false))?.string(forKey: "key7")
        let checkTheirs = UserDefaults(suiteName: "cold.check")?.string(forKey: "key7")
        guard checkOurs != nil, checkOurs == checkTheirs else {
            print("| cold start | value not found (ours: \(checkOurs ?? "nil"), Foundation: \(checkTheirs ?? "nil")) | | |")
            return 1
        }
        let coldOurs = perCall(seconds, 1, setup: {
            round += 1
            _ = fm.createFile(atPath: "\(base)/cold.ours.\(round).plist", contents: ourFile)
        }) {
            let freshEnv = PreferencesEnvironment(
                locations: locations, options: options, applicationDomain: "cold", logsToStandardError: false)
            _ = Defaults(suiteName: "cold.ours.\(round)", environment: freshEnv)?.string(forKey: "key7")
        }
        let coldTheirs = perCall(seconds, 1, setup: {
            round += 1
            // Foundation writes XML; give it the format it would have written itself.
            _ = fm.createFile(atPath: "\(base)/cold.theirs.\(round).plist", contents: xml)
        }) {
            _ = UserDefaults(suiteName: "cold.theirs.\(round)")?.string(forKey: "key7")
        }
        row("cold start, \(ourFile.count / 1024) KiB \(format) vs \(xml.count / 1024) KiB XML", coldOurs, coldTheirs)
        return 0
    }

    /// Median nanoseconds per operation over about `seconds` (at least 5 samples); `setup` runs untimed before each.
    static func perCall(_ seconds: Double, _ opsPerSample: Int, setup: () -> Void = {}, _ body: () -> Void) -> Double {
        setup()
        body()
        var samples: [UInt64] = []
        let deadline = nowNs() + UInt64(seconds * 1e9)
        repeat {
            setup()
            let t0 = nowNs()
            body()
            samples.append(nowNs() - t0)
        } while nowNs() < deadline || samples.count < 5
        return Stats(samples).median / Double(opsPerSample)
    }

    static func row(_ name: String, _ ours: Double, _ theirs: Double) {
        print("| \(name) | \(duration(ours)) | \(duration(theirs)) | \(fixed(theirs / ours, 2))× |")
    }

    static func duration(_ ns: Double) -> String {
        if ns < 1e3 { return "\(fixed(ns, 0)) ns" }
        if ns < 1e6 { return "\(fixed(ns / 1e3, 2)) µs" }
        return "\(fixed(ns / 1e6, 2)) ms"
    }
}

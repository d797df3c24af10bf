// A helper process for the Preferences reliability tests (not a product): each mode does one job as a separate
// process, so tests can run several writers at once, kill one with SIGKILL, or compare with Foundation's UserDefaults.
import Foundation
import PlistKit
import Preferences

let arguments = Array(CommandLine.arguments.dropFirst())

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

/// Our store over the roots given by the environment variables, with the default (PlistKit) codec.
func environment(flushDelay: Double = 60) -> PreferencesEnvironment {
    var options = StoreOptions()
    options.flushDelay = flushDelay
    return PreferencesEnvironment(locations: .fromEnvironment(), options: options, applicationDomain: "helper")
}

func store(_ domain: String, _ env: PreferencesEnvironment) -> Defaults {
    Defaults(validatedDomain: domain, environment: env)
}

guard let mode = arguments.first else { fail("usage: PreferencesTestHelper <mode> …") }
switch mode {
case "write-loop":
    // write-loop <domain> <writer id> <count>: each write its own key, synchronized at once.
    guard arguments.count == 4, let count = Int(arguments[3]) else { fail("write-loop <domain> <id> <count>") }
    let d = store(arguments[1], environment())
    for i in 0..<count {
        d.set(i, forKey: "w\(arguments[2])-\(i)")
        guard d.synchronize() else { fail("synchronize failed at \(i)") }
    }
case "crash-writer":
    // crash-writer <domain> <log>: forever: set k<i>, synchronize, then record i in the log (fsync'd), so every
    // logged key was acknowledged by a completed synchronize().
    guard arguments.count == 3 else { fail("crash-writer <domain> <log>") }
    let d = store(arguments[1], environment())
    let log = open(arguments[2], O_WRONLY | O_CREAT | O_APPEND, 0o644)
    guard log >= 0 else { fail("cannot open log") }
    var i = 0
    let start = d.integer(forKey: "next")
    i = start
    while true {
        d.set("value-\(i)-" + String(repeating: "x", count: i % 200), forKey: "k\(i)")
        d.set(i + 1, forKey: "next")
        guard d.synchronize() else { fail("synchronize failed") }
        let line = Array("\(i)\n".utf8)
        _ = line.withUnsafeBytes { write(log, $0.baseAddress, $0.count) }
        fsync(log)
        i += 1
    }
case "set-exit":
    // set-exit <domain> <key> <value>: set and exit without synchronize (the exit-time flush must save it).
    guard arguments.count == 4 else { fail("set-exit <domain> <key> <value>") }
    store(arguments[1], environment()).set(arguments[3], forKey: arguments[2])
case "get":
    // get <domain> <key>: print string(forKey:) or "(nil)".
    guard arguments.count == 3 else { fail("get <domain> <key>") }
    print(store(arguments[1], environment()).string(forKey: arguments[2]) ?? "(nil)")
case "foundation-set":
    // foundation-set <suite> <key> <string|int:N>: Foundation's UserDefaults writes.
    guard arguments.count == 4, let ud = UserDefaults(suiteName: arguments[1]) else { fail("foundation-set <suite> <key> <value>") }
    if arguments[3].hasPrefix("int:"), let n = Int(arguments[3].dropFirst(4)) {
        ud.set(n, forKey: arguments[2])
    } else {
        ud.set(arguments[3], forKey: arguments[2])
    }
    guard ud.synchronize() else { fail("Foundation synchronize failed") }
case "foundation-get":
    guard arguments.count == 3, let ud = UserDefaults(suiteName: arguments[1]) else { fail("foundation-get <suite> <key>") }
    print(ud.string(forKey: arguments[2]) ?? "(nil)")
default:
    fail("unknown mode \(mode)")
}

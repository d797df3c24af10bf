import PlistKit
import Synchronization

extension DefaultsCommand {
    /// Runs one command line over standard streams (the `defaults` executable passes `.standard`). A write to standard
    /// output that fails makes the status 1 and is reported once on standard error, and later output is dropped rather
    /// than written after the gap: `defaults export domain - > backup.plist` on a full disk must not pass for a backup.
    /// Standard input is read to one byte past the store's read limit (`import` refuses more).
    public static func run(
        _ arguments: [String], environment: PreferencesEnvironment, io: CommandIO,
        system: DefaultsSystem = .fromEnvironment()
    ) -> Int32 {
        let outputFailure = Mutex<Errno?>(nil)
        let streams = DefaultsIO(
            out: { text in
                guard outputFailure.withLock({ $0 == nil }) else { return }
                do throws(Errno) { try io.writeOutput(text) } catch { outputFailure.withLock { $0 = error } }
            },
            err: { io.writeError($0) },
            readStandardInput: { (try? io.readInput(environment.options.readLimit)) ?? [] })
        let status = run(arguments, environment: environment, io: streams, system: system)
        guard let failure = outputFailure.withLock({ $0 }) else { return status }
        io.writeError("defaults: cannot write to standard output: \(failure)\n")
        return status == 0 ? 1 : status
    }
}

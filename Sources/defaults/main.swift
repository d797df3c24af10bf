// `defaults`: Apple's command line over the Preferences store. All logic lives in `DefaultsCommand`.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import PlistKit
import Preferences
import Synchronization

/// The first errno a write to stdout failed with (0: none). A failed write makes the exit status 1: `defaults export
/// domain - > backup.plist` on a full disk must not pass for a backup.
let standardOutputError = Atomic<Int32>(0)

/// Writes all of `text` to `fd`; returns 0, or the errno that stopped it.
func writeAll(_ fd: Int32, _ text: String) -> Int32 {
    do {
        try FileOutput.writeAll(Array(text.utf8), to: fd, path: "")
        return 0
    } catch {
        return error.code
    }
}

let io = DefaultsIO(
    out: { text in
        // Once stdout has failed, later output is dropped rather than half-written after the gap.
        guard standardOutputError.load(ordering: .relaxed) == 0 else { return }
        let code = writeAll(1, text)
        if code != 0 { standardOutputError.store(code, ordering: .relaxed) }
    },
    err: { _ = writeAll(2, $0) },
    readStandardInput: {
        // At most one byte past the store's read limit: `import` refuses more, and an endless pipe must not grow
        // this array until the process dies.
        let limit = StoreOptions().readLimit
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while data.count <= limit {
            let n = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, min($0.count, limit + 1 - data.count)) }
            if n < 0, errno == EINTR { continue }
            if n <= 0 { break }
            data += chunk[0..<n]
        }
        return data
    })
let environment = PreferencesEnvironment(
    locations: .fromEnvironment(), options: StoreOptions(), applicationDomain: "defaults", arguments: [])
let status = DefaultsCommand.run(Array(CommandLine.arguments.dropFirst()), environment: environment, io: io)
let outputError = standardOutputError.load(ordering: .relaxed)
if outputError != 0 {
    _ = writeAll(2, "defaults: cannot write to standard output: \(String(cString: strerror(outputError)))\n")
    exit(status == 0 ? 1 : status)
}
exit(status)

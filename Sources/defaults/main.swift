// `defaults`: Apple's command line over the Preferences store. All logic lives in `DefaultsCommand`.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Preferences

func writeAll(_ fd: Int32, _ text: String) {
    var bytes = Array(text.utf8)
    var done = 0
    while done < bytes.count {
        let n = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress! + done, $0.count - done) }
        if n <= 0 { return }
        done += n
    }
}

let io = DefaultsIO(
    out: { writeAll(1, $0) },
    err: { writeAll(2, $0) },
    readStandardInput: {
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            data += chunk[0..<n]
        }
        return data
    })
let environment = PreferencesEnvironment(
    locations: .fromEnvironment(), options: StoreOptions(), applicationDomain: "defaults", arguments: [])
exit(DefaultsCommand.run(Array(CommandLine.arguments.dropFirst()), environment: environment, io: io))

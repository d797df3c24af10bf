import Glibc

// plutil: Apple's property-list tool over PlistKit. Parsing is in Arguments.swift, the verbs in Runner.swift.
let arguments = CommandLine.arguments
let programName = arguments.first.map { String($0.split(separator: "/").last ?? "plutil") } ?? "plutil"

do {
    let invocation = try Invocation(Array(arguments.dropFirst()))
    if case .help = invocation.verb {
        try? FileIO.printOut(usage(programName))
        exit(0)
    }
    exit(try Runner(invocation: invocation).run())
} catch let error as ArgumentError {
    FileIO.printError(error.message)
    exit(1)
} catch {
    FileIO.printError("\(error)")
    exit(1)
}

import Glibc
import PlistKit

// plutil: Apple's property-list tool. The command, with its rules and messages, is PlistKit's `PlutilCommand`.
let arguments = CommandLine.arguments
let programName = arguments.first.map { String($0.split(separator: "/").last ?? "plutil") } ?? "plutil"
exit(PlutilCommand.run(Array(arguments.dropFirst()), programName: programName, io: .standard))

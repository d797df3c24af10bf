// `defaults`: Apple's command line over the Preferences store. All logic lives in `DefaultsCommand`.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import PlistKit
import Preferences

let environment = PreferencesEnvironment(
    locations: .fromEnvironment(), options: StoreOptions(), applicationDomain: "defaults", arguments: [])
exit(DefaultsCommand.run(Array(CommandLine.arguments.dropFirst()), environment: environment, io: .standard))

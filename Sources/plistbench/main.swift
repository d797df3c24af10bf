#if canImport(Glibc)
import Glibc
#endif

// plistbench: benchmarks, never timed tests. Modes:
//   plistbench parse|write xml|binary|openstep FILE ITERATIONS   (shared harness contract, one JSON line)
//   plistbench compare [--seconds S] FILE...                      (PlistKit vs Foundation, same process, ratios)
//   plistbench codable [RECORDS]                                  (PlistEncoder/Decoder vs Foundation's)
//   plistbench codable-profile xml|binary encode|decode|document [RECORDS] [SECONDS]   (PlistKit only, for a profiler)
//   plistbench preferences [--seconds S]                          (Preferences vs Foundation's UserDefaults)
//   plistbench bookmark [DIR]                                     (bookmark create/resolve timings; `bookmark bench`)
//   plistbench keyed-archive [--records N] [write|unarchive FILE]  (KeyedArchive vs NSKeyedUnarchiver/Archiver)
//   plistbench generate|convert|lookup …                         (large files: streaming and the binary document)
//   plistbench text-document [--iterations N] FILE...             (PlistTextDocument parse+write vs the plain path)
//   plistbench phases FILE [SECONDS]                              (binary open / visit every value / materialise, apart)
let args = Array(CommandLine.arguments.dropFirst())
let usage = """
    usage: plistbench parse|write xml|binary|openstep FILE ITERATIONS
           plistbench compare [--seconds S] FILE...
           plistbench codable [RECORDS]
           plistbench codable-profile xml|binary encode|decode|document [RECORDS] [SECONDS]
           plistbench preferences [--seconds S]
           plistbench bookmark [DIR]
           plistbench keyed-archive [--records N] [--rounds R] [write FILE | unarchive FILE]
           plistbench generate xml|binary MIB FILE
           plistbench convert stream|tree FORMAT IN OUT
           plistbench lookup FILE KEYPATH [ITERATIONS]
           plistbench text-document [--iterations N] FILE...
           plistbench phases FILE [SECONDS]

    """
if args.first == "compare" {
    exit(Compare.run(Array(args.dropFirst())))
} else if args.first == "codable" {
    for line in runCodableBenchmark(records: args.dropFirst().first.flatMap { Int($0) } ?? 10_000) { print(line) }
    exit(0)
} else if args.first == "codable-profile" {
    exit(runCodableProfile(Array(args.dropFirst())))
} else if args.first == "keyed-archive" {
    exit(KeyedArchiveBench.run(Array(args.dropFirst())))
} else if args.first == "phases" {
    exit(PhasesBench.run(Array(args.dropFirst())))
} else if args.first == "text-document" {
    exit(TextDocumentBench.run(Array(args.dropFirst())))
} else if args.first == "preferences" {
    exit(PreferencesBench.run(Array(args.dropFirst())))
} else if let mode = args.first, ["generate", "convert", "lookup"].contains(mode) {
    exit(StreamBench.run(mode, Array(args.dropFirst())))
} else if args.first == "bookmark" {
    exit(BookmarkBench.main(Array(args.dropFirst())))
} else if args.count == 4 {
    exit(ContractRunner.run(args))
} else {
    _ = usage.withCString { write(2, $0, strlen($0)) }
    exit(64)
}

#if canImport(Glibc)
import Glibc
#endif
import PlistKit

/// `plistbench OP FORMAT FILE ITERATIONS`: the program contract of the shared benchmark harness (one JSON line).
enum ContractRunner {
    static func run(_ args: [String]) -> Int32 {
        let (opS, fmtS, path) = (args[0], args[1], args[2])

        func emit(_ code: Int32, error: String) -> Int32 {
            print("{\"impl\":\"plistkit\",\"op\":\(jsonString(opS)),\"format\":\(jsonString(fmtS)),\"file\":\(jsonString(path)),\"error\":\(jsonString(error))}")
            return code
        }

        guard opS == "parse" || opS == "write" else { return emit(64, error: "bad op") }
        let format: PlistFormat
        switch fmtS {
        case "xml": format = .xml
        case "binary": format = .binary
        case "openstep": format = .openStep
        default: return emit(64, error: "bad format")
        }
        guard let iterations = Int(args[3]), iterations >= 1 else { return emit(64, error: "iterations must be >= 1") }
        guard let bytes = readFile(path) else { return emit(1, error: "cannot read file") }

        do {
            let parseOnce = { () throws -> PlistValue in
                let (value, detected) = try bytes.withUnsafeBytes { try PropertyList.read($0) }
                let family: Set<PlistFormat> = format == .openStep ? [.openStep, .gnustep, .strings] : [format]
                guard family.contains(detected) else { throw PlistError(.unsupportedFormat, "detected \(detected), expected \(format)") }
                return value
            }
            // The warm-up tree gives the statistics; for parse it is freed before the timed loop (the contract),
            // so peak memory reflects one tree at a time.
            var stats = TreeStats()
            var outBytes = -1
            let samples: [UInt64]
            if opS == "parse" {
                do { stats.walk(try parseOnce()) }
                samples = try measure(iterations: iterations, parseOnce)
            } else {
                let tree = try parseOnce()
                stats.walk(tree)
                outBytes = try PropertyList.writeBytes(tree, format: format).count
                samples = try measure(iterations: iterations) { try PropertyList.writeBytes(tree, format: format) }
            }
            let s = Stats(samples)
            var line = "{\"impl\":\"plistkit\",\"impl_version\":\"0.1\""
            line += ",\"op\":\"\(opS)\",\"format\":\"\(fmtS)\",\"file\":\(jsonString(path))"
            line += ",\"bytes\":\(bytes.count),\"iterations\":\(iterations),\"warmup\":1"
            line += ",\"median_ns\":\(fixed(s.median, 0)),\"min_ns\":\(s.min),\"max_ns\":\(s.max),\"mean_ns\":\(fixed(s.mean, 0))"
            line += ",\"mb_per_s\":\(fixed(s.median > 0 ? Double(bytes.count) / s.median * 1e3 : 0, 3))"
            if outBytes >= 0 { line += ",\"out_bytes\":\(outBytes)" }
            line += ",\"nodes\":\(stats.nodes),\"str_bytes\":\(stats.strBytes),\"data_bytes\":\(stats.dataBytes)}"
            print(line)
            return 0
        } catch let error as PlistError where error.kind == .unsupportedFormat {
            return emit(2, error: "unsupported: \(error)")
        } catch {
            return emit(1, error: "\(error)")
        }
    }
}

import Foundation
import PlistKit

/// `plistbench compare [--seconds S] FILE...`: PlistKit and Foundation's `PropertyListSerialization` on the same
/// files in one process, interleaved, printing MB/s and the ratio.
enum Compare {
    static func run(_ args: [String]) -> Int32 {
        var seconds = 0.5
        var files: [String] = []
        var i = 0
        while i < args.count {
            if args[i] == "--seconds", i + 1 < args.count, let s = Double(args[i + 1]) { seconds = s; i += 2; continue }
            files.append(args[i])
            i += 1
        }
        print("| file | op | PlistKit MB/s | Foundation MB/s | ratio |")
        print("|---|---|---:|---:|---:|")
        for path in files {
            guard let bytes = readFile(path) else { print("cannot read \(path)"); return 1 }
            let data = Data(bytes)
            let name = (path as NSString).lastPathComponent
            do {
                let (tree, format) = try PropertyList.read(bytes)
                let fFormat: PropertyListSerialization.PropertyListFormat =
                    format == .binary ? .binary : format == .xml ? .xml : .openStep
                let ours = timePerCall(seconds) { _ = try? PropertyList.read(bytes) }
                let theirs = timePerCall(seconds) {
                    _ = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil)
                }
                row(name, "parse", bytes.count, ours, theirs)
                let foundationTree = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
                let oursW = timePerCall(seconds) { _ = try? PropertyList.writeBytes(tree, format: format) }
                if fFormat == .openStep {
                    row(name, "write", bytes.count, oursW, nil)
                } else {
                    let theirsW = timePerCall(seconds) {
                        _ = try? PropertyListSerialization.data(fromPropertyList: foundationTree, format: fFormat, options: 0)
                    }
                    row(name, "write", bytes.count, oursW, theirsW)
                }
            } catch {
                print("| \(name) | error | \(error) | | |")
            }
        }
        return 0
    }

    /// Median nanoseconds per call, over about `seconds` of calls (at least 3).
    static func timePerCall(_ seconds: Double, _ body: () -> Void) -> Double {
        body()
        var samples: [UInt64] = []
        let deadline = nowNs() + UInt64(seconds * 1e9)
        repeat {
            let t0 = nowNs()
            body()
            samples.append(nowNs() - t0)
        } while nowNs() < deadline || samples.count < 3
        return Stats(samples).median
    }

    static func row(_ name: String, _ op: String, _ bytes: Int, _ ours: Double, _ theirs: Double?) {
        let mbOurs = Double(bytes) / ours * 1e3
        if let theirs {
            let mbTheirs = Double(bytes) / theirs * 1e3
            print("| \(name) | \(op) | \(fixed(mbOurs, 1)) | \(fixed(mbTheirs, 1)) | \(fixed(theirs / ours, 2))× |")
        } else {
            print("| \(name) | \(op) | \(fixed(mbOurs, 1)) | — | — |")
        }
    }
}

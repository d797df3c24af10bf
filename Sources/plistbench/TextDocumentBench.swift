import PlistKit

/// `plistbench text-document [--iterations N] FILE...`: per file, the preserving document's parse + write
/// (`PlistTextDocument`) next to the plain path (`PropertyList.read` + the format's writer), in MB/s of input, and
/// one in-place edit; and the memory the document holds beside its value tree (its text and source map).
enum TextDocumentBench {
    static func run(_ args: [String]) -> Int32 {
        var iterations = 200
        var files: [String] = []
        var rest = args[...]
        while let a = rest.popFirst() {
            if a == "--iterations", let n = rest.popFirst().flatMap({ Int($0) }) { iterations = n } else { files.append(a) }
        }
        guard !files.isEmpty else {
            print("usage: plistbench text-document [--iterations N] FILE...")
            return 64
        }
        for path in files {
            guard let bytes = readFile(path) else {
                print("\(path): cannot read")
                return 1
            }
            do {
                let (value, format) = try PropertyList.read(bytes)
                let plainFormat: PlistFormat = format == .xml ? .xml : .openStep
                var options = PlistWriteOptions()
                options.lossy = true
                let plain = try measure(iterations: iterations) {
                    let v = try PropertyList.read(bytes).value
                    return try PropertyList.writeBytes(v, format: plainFormat, options: options)
                }
                let parseOnly = try measure(iterations: iterations) { try PropertyList.read(bytes).value }
                let preserving = try measure(iterations: iterations) { try PlistTextDocument(bytes).write() }
                let document = try PlistTextDocument(bytes)
                // An edit: the first string of the deepest first-entry chain, set to a new value.
                var editPath: [String] = []
                var v = value
                while case .dictionary(let d) = v, let first = d.first { editPath.append(first.key); v = first.value }
                let edit = try measure(iterations: max(1, iterations / 4)) { () -> [UInt8] in
                    var d = document
                    try d.replace(.string("bench-edited"), at: KeyPath(components: editPath))
                    return d.write()
                }
                let mb = Double(bytes.count) / 1e6
                let r = Stats(parseOnly).median / 1e6
                let p = Stats(plain).median / 1e6, q = Stats(preserving).median / 1e6, e = Stats(edit).median / 1e6
                let extra = Double(document.heldByteCount) / Double(bytes.count)
                print("\(path) (\(bytes.count) bytes, \(format.displayName)): plain read+write \(fixed(p, 3)) ms (\(fixed(mb / (p / 1e3), 0)) MB/s); "
                    + "plain parse \(fixed(r, 3)) ms (\(fixed(mb / (r / 1e3), 0)) MB/s); preserving parse+write \(fixed(q, 3)) ms (\(fixed(mb / (q / 1e3), 0)) MB/s, \(fixed(p / q, 2))x the plain read+write, \(fixed(r / q, 2))x the plain parse); "
                    + "one edit \(fixed(e, 3)) ms; held beside the tree \(fixed(extra, 2))x the file")
            } catch {
                print("\(path): \(error)")
                return 1
            }
        }
        return 0
    }
}

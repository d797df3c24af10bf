#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Apple's `plutil` command line over PlistKit: the arguments are parsed (`PlutilInvocation`), each file is read,
/// given to one library call and written or printed, with Apple's messages and exit statuses. The `plutil`
/// executable only passes its arguments and the process's standard streams.
public enum PlutilCommand {
    /// Runs one command line (without the program name, which `programName` gives for `-help`) and returns the exit
    /// status: 0 when every file succeeded, 1 otherwise or for a bad command line.
    public static func run(_ arguments: [String], programName: String = "plutil", io: CommandIO = .standard) -> Int32 {
        do {
            let invocation = try PlutilInvocation(arguments)
            if case .help = invocation.verb {
                try? io.writeOutput(usage(programName))
                return 0
            }
            if case .version = invocation.verb {
                do { try io.writeOutput(versionLine(tool: programName)) } catch {
                    io.writeError("\(programName): cannot write to standard output: \(error)\n")
                    return 1
                }
                return 0
            }
            return try PlutilRunner(invocation: invocation, io: io).run()
        } catch let error as PlutilArgumentError {
            io.writeError(error.message + "\n")
            return 1
        } catch {
            io.writeError("\(error)\n")
            return 1
        }
    }
}

/// A per-file failure: printed as `file: text` on stderr; the tool goes on with the next file and exits 1.
struct FileFailure: Error {
    let text: String
    init(_ text: String) { self.text = text }
}

/// Runs a parsed invocation over its files. Every verb is: read, one library call, write or print.
struct PlutilRunner {
    let invocation: PlutilInvocation
    let io: CommandIO

    /// Runs every file; returns the exit status (0 when every file succeeded).
    func run() throws -> Int32 {
        try validate()
        var failed = false
        for path in invocation.paths {
            let shown = path == "-" ? "<stdin>" : path
            do {
                try runOne(path)
            } catch let failure as FileFailure {
                failed = true
                printError("\(shown): \(failure.text)")
            } catch {
                failed = true
                printError("\(shown): \(error)")
            }
        }
        return failed ? 1 : 0
    }

    /// Option combinations Apple's tool refuses before touching any file.
    private func validate() throws {
        switch invocation.verb {
        case .lint, .print:
            let name = { if case .lint = invocation.verb { return "-lint" } else { return "-p" } }()
            if invocation.outputPath != nil { throw PlutilArgumentError("-o is not used with \(name).") }
            if invocation.outputExtension != nil { throw PlutilArgumentError("-e is not used with \(name).") }
            if case .print = invocation.verb, invocation.silent {
                printError("-s doesn't make a lot of sense with -p.")
            }
        default:
            break
        }
    }

    private func runOne(_ path: String) throws {
        switch invocation.verb {
        case .help, .version:
            break
        case .lint:
            _ = try read(path)
            if !invocation.silent { try standardOutput("\(path == "-" ? "<stdin>" : path): OK\n") }
        case .print:
            let input = try map(path)
            if try printStreaming(input) { return }
            try standardOutput(humanReadable(try read(path: path, input: input), shownAs: path == "-" ? "<stdin>" : path))
        case .convert(.xcode):
            try convertToXcode(path)
        case .convert(.plist(let format)) where format != .binary:
            try convertStreaming(path, to: format)
        case .convert(let format):
            try emit(try read(path).value, as: format, for: path)
        case .insert(let keyPath, let value, let append):
            try edit(path, { try $0.insert(value, at: keyPath, appending: append) }, { try $0.insert(value, at: keyPath, appending: append) })
        case .replace(let keyPath, let value):
            try edit(path, { try $0.replace(value, at: keyPath) }, { try $0.replace(value, at: keyPath) })
        case .remove(let keyPath):
            try edit(path, { try $0.remove(at: keyPath) }, { try $0.remove(at: keyPath) })
        case .extract(let keyPath, let format, let expect):
            let (typeName, value) = try lookUp(keyPath, in: path, materialising: format != .type)
            if let expect, expect.rawValue != typeName {
                // Apple's tool says "boolean" here (and "bool" in `-type`).
                func name(_ type: String) -> String { type == "bool" ? "boolean" : type }
                throw FileFailure("Value at [\(keyPath)] expected to be \(name(expect.rawValue)) but is \(name(typeName))")
            }
            if format == .type {
                try deliver(Array(typeName.utf8), as: .type, for: path)
            } else {
                try emit(value ?? .bool(false), as: format, for: path)
            }
        case .create(let format):
            try emit(.dictionary(PlistDictionary()), as: format, for: path, creating: true)
        case .unarchive(let format):
            try emit(try unarchived(read(path).value), as: format, for: path)
        case .archive(let format):
            try emit(try archived(read(path).value), as: .plist(format), for: path)
        }
    }

    /// `-insert`, `-replace`, `-remove`: in place as text when the file is OpenStep or XML (`editText`), else the
    /// value edited and the file rewritten whole in its format — or, for an Xcode project whose text could not take
    /// the edit, in Xcode's layout (`XcodeProjectWriter`), so the file stays an Xcode project.
    private func edit(
        _ path: String, _ inText: (inout PlistTextDocument) throws -> Void, _ inValue: (inout PlistValue) throws -> Void
    ) throws {
        let outcome = try editText(path, inText)
        if outcome == .done { return }
        var (document, format) = try read(path)
        try edit { try inValue(&document) }
        if outcome == .rewriteAsXcodeProject,
           let text = try? XcodeProjectWriter.write(
               document, projectName: invocation.projectName ?? XcodeComments.projectName(fromPath: path)
                   ?? map(path).withUnsafeBytes { XcodeComments.projectName(inCommentsOf: [UInt8]($0)) }),
           // Only text that reads back to the edited value (an isa holding `*/` would break a section marker).
           (try? PropertyList.read(text).value) == document {
            try deliver(text, as: .xcode, for: path)
            return
        }
        try emit(document, as: .plist(format), for: path)
    }

    /// What `editText` did.
    private enum TextEdit {
        /// The file was edited in place.
        case done
        /// Nothing was written: the file is no OpenStep or XML text, or the text could not take the edit.
        case rewrite
        /// Nothing was written: an Xcode project whose text could not take the edit.
        case rewriteAsXcodeProject
    }

    /// Edits an OpenStep or XML file in place as text (`PlistTextDocument`): only the edited entry's bytes change, and
    /// the file keeps its format. Writes nothing when the file is not such text or the edit cannot be made in the
    /// text (the caller then rewrites the file whole, as for binary and JSON); an edit the tree refuses (a missing key
    /// path, an existing key) is this file's failure, with `plutil`'s message.
    private func editText(_ path: String, _ body: (inout PlistTextDocument) throws -> Void) throws -> TextEdit {
        let input = try map(path)
        let bytes = input.withUnsafeBytes { [UInt8]($0) }
        let isText = bytes.withUnsafeBytes { raw in
            !raw.isEmpty && !Gzip.isGzip(raw) && [nil, .xml].contains(PlistFormat.detection(of: raw).format)
        }
        guard isText, var document = try? PlistTextDocument(bytes, projectName: invocation.projectName ?? XcodeComments.projectName(fromPath: path))
        else { return .rewrite }
        do {
            try body(&document)
        } catch let error as PlistError where error.kind == .keyPath || error.kind == .duplicateKey {
            throw FileFailure(error.message)
        } catch {
            return document.layout == .xcodeProject && document.format == .openStep ? .rewriteAsXcodeProject : .rewrite
        }
        try deliver(document.write(), as: .plist(document.format), for: path)
        return .done
    }

    /// `-convert xcode`: Xcode's `project.pbxproj` layout, with the project name from `-projectname`, the path's
    /// `.xcodeproj` folder (of the output, else of the input), or the input's own comments.
    private func convertToXcode(_ path: String) throws {
        let input = try map(path)
        let bytes = input.withUnsafeBytes { [UInt8]($0) }
        let value: PlistValue
        do {
            value = try PropertyList.read(bytes).value
        } catch let error as PlistError {
            throw FileFailure("(\(error))")
        }
        let name = invocation.projectName ?? invocation.outputPath.flatMap { XcodeComments.projectName(fromPath: $0) }
            ?? XcodeComments.projectName(fromPath: path) ?? XcodeComments.projectName(inCommentsOf: bytes)
        let text: [UInt8]
        do {
            text = try XcodeProjectWriter.write(value, projectName: name, lossy: invocation.lossy)
        } catch let error as PlistError {
            throw FileFailure(error.description)
        }
        try deliver(text, as: .xcode, for: path)
    }

    /// Reads and parses a file; failures print as `(explanation)`, as Apple's tool does.
    private func read(_ path: String) throws -> (value: PlistValue, format: PlistFormat) {
        let input = try map(path)
        do {
            return try input.withUnsafeBytes { try PropertyList.read($0) }
        } catch let error as PlistError {
            throw FileFailure("(\(error))")
        }
    }

    /// The file's bytes, a regular file mapped rather than read.
    private func map(_ path: String) throws -> MappedInput {
        do {
            return try PlutilFiles(io: io).map(path, limit: PlistReadOptions().maxInputSize)
        } catch {
            throw FileFailure("(\(error.message))")
        }
    }

    /// The type name and (when `materialising`) the value at `keyPath`. A binary file is opened as a
    /// `BinaryPlistDocument` and only the objects on the path (and the value's own) are read; other formats are
    /// read whole.
    private func lookUp(_ keyPath: KeyPath, in path: String, materialising: Bool) throws -> (String, PlistValue?) {
        let input = try map(path)
        let isBinary = input.withUnsafeBytes { $0.count >= 6 && PlistFormat.detection(of: $0) == .binary }
        guard isBinary else {
            let value: PlistValue
            do {
                value = try read(path: path, input: input).value(at: keyPath)
            } catch let error as PlistError where error.kind == .keyPath {
                throw FileFailure("Could not extract value, error: \(error.message)")
            }
            return (value.typeName, value)
        }
        do {
            let document = try BinaryPlistDocument(input)
            guard let object = try document.object(at: keyPath) else {
                throw FileFailure("Could not extract value, error: No value at that key path or invalid key path: \(keyPath)")
            }
            return (object.typeName, materialising ? try document.value(of: object) : nil)
        } catch let error as PlistError {
            throw FileFailure("(\(error))")
        }
    }

    private func read(path: String, input: MappedInput) throws -> PlistValue {
        do {
            return try input.withUnsafeBytes { try PropertyList.read($0) }.value
        } catch let error as PlistError {
            throw FileFailure("(\(error))")
        }
    }

    private func edit(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as PlistError {
            throw FileFailure(error.message)
        }
    }

    /// `-p` of a large input that is no keyed archive: printed as it is read, without its tree
    /// (`PropertyList.describeStreaming`; an error found late leaves what was printed before it). False, with
    /// nothing printed, when the input is to be printed from its tree.
    private func printStreaming(_ input: MappedInput) throws -> Bool {
        do {
            return try PropertyList.describeStreaming(input) { chunk in
                try PlutilFiles(io: io).writeStandardOutput(Array(chunk))
            } != nil
        } catch let error as PlistError {
            throw FileFailure("(\(error))")
        } catch let failure as PlutilFiles.Failure {
            throw FileFailure("(\(failure.message))")
        }
    }

    /// `-convert` to a text format: the reader's events go straight to the writer (`PropertyList.convert`), with no
    /// tree. A file that is replaced atomically gets the output as it is made (the input, even the same file, is
    /// mapped and stays whole until the rename); standard output, a FIFO, a device or a descriptor's name gets it
    /// once the whole input has converted, so a failure writes nothing there, as before.
    private func convertStreaming(_ path: String, to format: PlistFormat) throws {
        let input = try map(path)
        var options = PlistWriteOptions()
        options.prettyPrinted = invocation.readable
        options.lossy = invocation.lossy
        func convert(_ output: (UnsafeRawBufferPointer) throws -> Void) throws {
            do {
                // The mapped file itself: its pages are given back as the reader passes them.
                _ = try PropertyList.convert(input, to: format, options: options, readOptions: PlistReadOptions(),
                                             eventLogMemory: PropertyList.eventLogMemory, sharingAllowance: PropertyList.sharingAllowance,
                                             output: output)
            } catch let error as PlistError {
                throw FileFailure("(\(error))")
            } catch let failure as StreamWriteFailure {
                if format == .json, JSONWriterSink.isScalarRootRefusal(failure.error) {
                    throw FileFailure("Invalid object in plist for JSON format")
                }
                throw FileFailure(failure.error.description)
            }
        }
        let toStandardOutput = goesToStandardOutput(.plist(format), path)
        let destination = invocation.outputPath ?? destinationPath(for: path, format: .plist(format))
        guard !toStandardOutput, !destination.isEmpty, AtomicFile.replacesAtomically(destination) else {
            var bytes: [UInt8] = []
            try convert { bytes.append(contentsOf: $0) }
            try deliver(bytes, as: .plist(format), for: path)
            return
        }
        do {
            try AtomicFile.writeFollowingLinks(destination) { write in try convert(write) }
        } catch let error as FileWriteError {
            throw FileFailure("(\(error.systemError.description))")
        }
    }

    /// Renders `value` and sends it to stdout or a file: `-o` wins; raw and type output, and input read from
    /// stdin, go to stdout; otherwise the input file is rewritten (with its extension replaced by `-e`).
    private func emit(_ value: PlistValue, as format: PlutilOutputFormat, for inputPath: String, creating: Bool = false) throws {
        let bytes: [UInt8]
        switch format {
        case .plist(let plistFormat):
            if plistFormat == .json, value.dictionaryValue == nil, value.arrayValue == nil {
                throw FileFailure("Invalid object in plist for JSON format")
            }
            var options = PlistWriteOptions()
            options.prettyPrinted = invocation.readable
            options.lossy = invocation.lossy
            do {
                bytes = try PropertyList.writeBytes(value, format: plistFormat, options: options)
            } catch let error as PlistError {
                throw FileFailure(error.description)
            }
        case .swift, .objc:
            do {
                if format == .swift {
                    bytes = Array(try PlistLiteral.swift(value, sourceName: inputPath).utf8)
                } else {
                    let outputName = goesToStandardOutput(format, inputPath) ? "-" : invocation.outputPath ?? destinationPath(for: inputPath, format: format)
                    bytes = Array(try PlistLiteral.objc(value, sourceName: inputPath, outputName: outputName).utf8)
                }
            } catch let error as PlistError {
                throw FileFailure(error.message)
            }
        case .raw:
            bytes = creating ? [] : Array(PlistDescription.raw(value).utf8)
        case .type:
            bytes = Array(value.typeName.utf8)
        case .xcode:
            do {
                bytes = try XcodeProjectWriter.write(value, projectName: invocation.projectName, lossy: invocation.lossy)
            } catch let error as PlistError {
                throw FileFailure(error.description)
            }
        }
        try deliver(bytes, as: format, for: inputPath, value: value)
    }

    /// Sends rendered output where `emit` says; an Objective-C header for `value` goes beside its file.
    private func deliver(_ bytes: [UInt8], as format: PlutilOutputFormat, for inputPath: String, value: PlistValue? = nil) throws {
        let isText = format == .raw || format == .type
        let toStandardOutput = goesToStandardOutput(format, inputPath)
        let files = PlutilFiles(io: io)
        do {
            if toStandardOutput {
                try files.writeStandardOutput(isText && invocation.terminatingNewline ? bytes + [0x0A] : bytes)
            } else {
                let destination = invocation.outputPath ?? destinationPath(for: inputPath, format: format)
                try files.write(bytes, to: destination)
                if format == .objc(header: true), let value {
                    let header = try PlistLiteral.objcHeader(value, sourceName: inputPath)
                    try files.write(Array(header.utf8), to: withExtension(destination, "h"))
                }
            }
        } catch let error as PlutilFiles.Failure {
            throw FileFailure("(\(error.message))")
        }
    }

    /// `-o` wins; raw and type output, and input read from stdin, go to stdout; otherwise the input file is rewritten.
    private func goesToStandardOutput(_ format: PlutilOutputFormat, _ inputPath: String) -> Bool {
        invocation.outputPath.map { $0 == "-" } ?? (format == .raw || format == .type || inputPath == "-")
    }

    /// Prints `text`; a write that fails is this file's failure (Apple's tool traps on it).
    private func standardOutput(_ text: String) throws {
        do {
            try PlutilFiles(io: io).writeStandardOutput(Array(text.utf8))
        } catch {
            throw FileFailure("(\(error.message))")
        }
    }

    /// Writes a line to stderr.
    private func printError(_ line: String) {
        io.writeError(line + "\n")
    }

    /// Where output for `inputPath` goes without `-o`: the input itself, with the `-e` extension if given; source
    /// literals always get `.swift` / `.m` so the input is never overwritten with code.
    private func destinationPath(for inputPath: String, format: PlutilOutputFormat) -> String {
        var path = inputPath
        if let ext = invocation.outputExtension { path = withExtension(path, ext) }
        switch format {
        case .swift: path = withExtension(path, "swift")
        case .objc: path = withExtension(path, "m")
        default: break
        }
        return path
    }

    /// `path` with its extension replaced by (or, when it has none, extended with) `ext`.
    private func withExtension(_ path: String, _ ext: String) -> String {
        let nameStart = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        let name = path[nameStart...]
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            return path[..<dot] + "." + ext
        }
        return path + "." + ext
    }
}

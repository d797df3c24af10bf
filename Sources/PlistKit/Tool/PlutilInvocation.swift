
/// What an output is written as: a property-list format, source literals, `raw` text or the value's type name.
enum PlutilOutputFormat: Equatable {
    case plist(PlistFormat)
    case swift
    case objc(header: Bool)
    case raw
    case type
    /// Extension: OpenStep in Xcode's `project.pbxproj` layout (`XcodeProjectWriter`).
    case xcode

    /// Parses a format argument (`xml1`, `binary1`, `json`, `openstep`, `gnustep`, `strings`, `swift`, `objc`,
    /// `raw`, and the extension `xcode`).
    init(argument: String) throws {
        if argument == "raw" { self = .raw; return }
        if argument == "xcode" { self = .xcode; return }
        if argument == "swift" { self = .swift; return }
        if argument == "objc" { self = .objc(header: false); return }
        guard let format = PlistFormat(plutilName: argument) else {
            throw PlutilArgumentError("Unknown format specifier: \(argument)")
        }
        self = .plist(format)
    }
}

/// The verb and its own arguments.
enum PlutilVerb {
    case help
    /// Extension: `--version` prints the tool's version line.
    case version
    case lint
    case print
    case convert(PlutilOutputFormat)
    case insert(KeyPath, PlistValue, append: Bool)
    case replace(KeyPath, PlistValue)
    case remove(KeyPath)
    case extract(KeyPath, PlutilOutputFormat, expect: PlutilExpectType?)
    case create(PlutilOutputFormat)
    /// Extension: the plain decoding of a keyed archive, written as `-convert` writes.
    case unarchive(PlutilOutputFormat)
    /// Extension: the property list archived as `NSKeyedArchiver` archives its root object (XML or binary).
    case archive(PlistFormat)
}

/// A bad command line: the message is printed as is and the tool exits 1.
struct PlutilArgumentError: Error {
    let message: String
    init(_ message: String) { self.message = message }
}

/// A parsed command line.
struct PlutilInvocation {
    var verb: PlutilVerb
    var paths: [String] = []
    var readable = false
    /// Extension: `-lossy` lets OpenStep and `.strings` output hold numbers, Booleans and dates as strings.
    var lossy = false
    var terminatingNewline = true
    var outputPath: String?
    var outputExtension: String?
    var silent = false
    /// Extension: `-projectname NAME`, the project name of Xcode's reference comments (`-convert xcode`).
    var projectName: String?

    /// Parses the arguments after the program name, in Apple `plutil`'s shape: the verb and its operands first, then
    /// options and files in any order; `--` makes every later argument a file.
    init(_ arguments: [String]) throws {
        var args = arguments[...]
        guard let first = args.popFirst() else { throw PlutilArgumentError("No files specified.") }
        switch first {
        case "-help":
            verb = .help
            return
        case "--version":
            verb = .version
            return
        case "-lint": verb = .lint
        case "-p": verb = .print
        case "-convert":
            guard let name = args.popFirst() else { throw PlutilArgumentError("Missing format specifier for command.") }
            var format = try PlutilOutputFormat(argument: name)
            if format == .raw { throw PlutilArgumentError("Unknown format specifier: \(name)") }
            if args.first == "-header" {
                guard format == .objc(header: false) else {
                    throw PlutilArgumentError("-header is only valid for objc literal conversions.")
                }
                args.removeFirst()
                format = .objc(header: true)
            }
            verb = .convert(format)
        case "-insert", "-replace":
            let missing = PlutilArgumentError("'Insert' and 'Replace' require a key path, a type, and a value.")
            guard let path = args.popFirst(), let typeArgument = args.popFirst() else { throw missing }
            guard typeArgument.hasPrefix("-"), let type = PlutilValueType(rawValue: String(typeArgument.dropFirst()))
            else {
                throw PlutilArgumentError("Unknown insert or replace type \(typeArgument)")
            }
            var text = ""
            if type.takesValue {
                guard let next = args.popFirst() else { throw missing }
                text = next
            }
            let value: PlistValue
            do {
                value = try PlutilValueParser.parse(text, as: type)
            } catch let error as PlistError {
                switch type {
                case .xml: throw PlutilArgumentError("Unable to parse xml property list: \(error)")
                case .json: throw PlutilArgumentError("Unable to parse JSON: \(error)")
                default: throw PlutilArgumentError(error.message)
                }
            }
            var append = false
            if args.first == "-append" {
                args.removeFirst()
                append = true
            }
            if first == "-insert" {
                verb = .insert(KeyPath(path), value, append: append)
            } else {
                // Apple's tool accepts and ignores -append with -replace.
                verb = .replace(KeyPath(path), value)
            }
        case "-remove":
            guard let path = args.popFirst() else { throw PlutilArgumentError("'Remove' requires a key path.") }
            verb = .remove(KeyPath(path))
        case "-extract", "-type":
            let isType = first == "-type"
            let missing = PlutilArgumentError("'Extract' requires a key path and a plist format.")
            guard let path = args.popFirst() else { throw missing }
            var format = PlutilOutputFormat.type
            if !isType {
                guard let name = args.popFirst() else { throw missing }
                format = try PlutilOutputFormat(argument: name)
            }
            var expect: PlutilExpectType?
            if args.first == "-expect" {
                args.removeFirst()
                guard let name = args.popFirst() else { throw PlutilArgumentError("-expect requires a type argument.") }
                guard let type = PlutilExpectType(rawValue: name) else {
                    throw PlutilArgumentError("-expect type [\(name)] not valid.")
                }
                expect = type
            }
            verb = .extract(KeyPath(path), format, expect: expect)
        case "-create":
            guard let name = args.popFirst() else { throw PlutilArgumentError("'Create' requires a plist format.") }
            verb = .create(name == "NoConversion" ? .plist(.xml) : try PlutilOutputFormat(argument: name))
        case "-unarchive", "-archive":
            verb = try Self.keyedArchiveVerb(first, &args)
        default:
            verb = .lint
            args = arguments[...]
        }
        try parseOptions(args)
    }

    private mutating func parseOptions(_ arguments: ArraySlice<String>) throws {
        var args = arguments
        while let arg = args.popFirst() {
            switch arg {
            case "--":
                paths += args
                args = []
            case "-n": terminatingNewline = false
            case "-s": silent = true
            case "-r": readable = true
            case "-lossy": lossy = true
            case "-o":
                guard let next = args.popFirst() else { throw PlutilArgumentError("Missing argument for -o.") }
                outputPath = next
            case "-e":
                guard let next = args.popFirst() else { throw PlutilArgumentError("Missing argument for -e.") }
                outputExtension = next
            case "-projectname":
                guard let next = args.popFirst() else { throw PlutilArgumentError("Missing argument for -projectname.") }
                projectName = next
            default:
                if arg.hasPrefix("-") && arg != "-" { throw PlutilArgumentError("unrecognized option: \(arg)") }
                paths.append(arg)
            }
        }
        guard !paths.isEmpty else { throw PlutilArgumentError("No files specified.") }
    }
}

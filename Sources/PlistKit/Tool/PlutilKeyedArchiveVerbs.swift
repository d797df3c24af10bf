/// `plutil`'s keyed-archive extensions: `-unarchive fmt` writes an archive's plain decoding, `-archive fmt` writes a
/// property list as an `NSKeyedArchiver` archive of its root, and `-p` prints an archive decoded. Kept apart from the
/// verbs Apple's tool has; each is one `KeyedArchiveTool` call between `PlutilRunner`'s read and its write or print.
extension PlutilInvocation {
    /// Parses the operand of `-unarchive` or `-archive` (`verb`), which `args` starts with.
    static func keyedArchiveVerb(_ verb: String, _ args: inout ArraySlice<String>) throws -> PlutilVerb {
        guard let name = args.popFirst() else { throw PlutilArgumentError("Missing format specifier for command.") }
        let format = try PlutilOutputFormat(argument: name)
        if verb == "-unarchive" {
            // Every format -convert writes (raw is -extract's alone).
            if format == .raw { throw PlutilArgumentError("Unknown format specifier: \(name)") }
            return .unarchive(format)
        }
        // An archive refers to its objects by UID, which only XML and binary property lists can hold.
        guard case .plist(let plistFormat) = format, plistFormat == .xml || plistFormat == .binary else {
            throw PlutilArgumentError("-archive writes xml1 or binary1 (a keyed archive holds UIDs, which \(name) cannot hold).")
        }
        return .archive(plistFormat)
    }
}

extension PlutilRunner {
    /// The plain decoding of the archive `document` is (a property list whose root is the archive, or data holding
    /// one); a failure is this file's, as `(explanation)`.
    func unarchived(_ document: PlistValue) throws -> PlistValue {
        do {
            return try KeyedArchiveTool.plainValue(ofDocument: document)
        } catch let error as PlistError {
            throw FileFailure("(\(error))")
        }
    }

    /// `document` archived as its root object, as the property list of the archive. Only identical values share an
    /// entry (`.exact`): Foundation's own sharing would make `true` and `1.0` beside a `1` read back as `1`, and a
    /// file converted must read back as what it held (Foundation's unarchiver reads either).
    func archived(_ document: PlistValue) throws -> PlistValue {
        do {
            return try KeyedArchiver.archive(document, options: KeyedArchiverOptions(uniquing: .exact))
        } catch let error as PlistError {
            throw FileFailure("(\(error))")
        }
    }

    /// What `-p` prints: an archive decoded, with its objects' class names; anything else as Apple's tool prints it.
    /// A file that looks like an archive but does not decode is printed as stored, and the reason goes to stderr.
    func humanReadable(_ document: PlistValue, shownAs name: String) -> String {
        do {
            if let text = try KeyedArchiveTool.humanReadable(document) { return text }
        } catch {
            io.writeError("\(name): not decoded as a keyed archive (\(error)); printed as stored\n")
        }
        return PlistDescription.humanReadable(document)
    }
}

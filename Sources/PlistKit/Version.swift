/// The version of PlistKit and of the `plutil`, `defaults` and `bookmark` tools built from it: the one place it is
/// written. The tools print it for `--version`; `scripts/install` reads it from this file for the manual pages and
/// the install manifest; `CHANGELOG.md`'s newest heading names it.
public let version = "0.2.0"

/// The line each tool prints for `--version`: `name (PlistKit) version`.
public func versionLine(tool name: String) -> String {
    "\(name) (PlistKit) \(version)\n"
}

import PlistKit

/// An error from the Preferences library: what went wrong, which domain or file, and a message a user can act on.
public struct PreferencesError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: String, Sendable, Hashable {
        /// A system call failed (the message names it and the `errno` text).
        case io
        /// The domain file did not parse or its root is not a dictionary; it was moved aside (a file named by its path,
        /// as `defaults read /some/file` does, is left in place and not written).
        case corruptFile
        /// Writing the domain would make it larger than the per-domain size cap.
        case sizeLimitExceeded
        /// The key is managed (forced) and cannot be written.
        case notWritable
        /// The value cannot be stored in a property list.
        case unsupportedValue
        /// The domain name is empty, reserved, or would escape its directory.
        case invalidDomain
        /// The property-list codec failed to encode the domain.
        case encoding
    }

    /// What went wrong.
    public var kind: Kind
    /// A human-readable explanation.
    public var message: String
    /// The domain concerned, when known.
    public var domain: String?
    /// The file concerned, when known.
    public var path: String?
    /// The system's error, for an `.io` error a system call gave (the message names the call and gives its text).
    public var systemError: Errno?

    /// An error of `kind` with `message`, naming the domain, the file and the system's error when they are known.
    public init(_ kind: Kind, _ message: String, domain: String? = nil, path: String? = nil, systemError: Errno? = nil) {
        self.kind = kind
        self.message = message
        self.domain = domain
        self.path = path
        self.systemError = systemError
    }

    public var description: String {
        var text = message
        if let domain { text += " (domain \(domain))" }
        if let path { text += " [\(path)]" }
        return text
    }
}

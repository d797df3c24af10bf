import FoundationEssentials
import PlistKit

/// How `set(_: URL, forKey:)` stores a URL and how `url(forKey:)` reads one back. `BookmarkURLArchiver` (the default
/// of `Defaults`) stores file URLs as bookmarks; `LocationURLArchiver` stores locations only.
public protocol URLArchiver: Sendable {
    /// The stored form of `url`.
    func archive(_ url: URL) -> PlistValue
    /// A URL from any stored form; nil (never a crash) for values that do not describe one.
    func unarchive(_ value: PlistValue) -> URL?
    /// Like `unarchive`, plus the value to store in place of `value` when it is out of date (a stale bookmark).
    /// `Defaults.url(forKey:)` writes the replacement back. The default implementation never asks for one.
    func resolve(_ value: PlistValue) -> UnarchivedURL?
}

extension URLArchiver {
    public func resolve(_ value: PlistValue) -> UnarchivedURL? {
        unarchive(value).map { UnarchivedURL(url: $0) }
    }
}

/// Stores non-file URLs as their absolute string, and file URLs as `{ path = "/p"; url = "file:///p"; }` (the shape a
/// bookmark-backed archiver extends with a `bookmark` data entry) — or, with `pathOnly`, as the bare path string,
/// which Foundation's `url(forKey:)` also reads.
///
/// Reading accepts: that dictionary; a string that is an absolute path, a `~` path (expanded with `$HOME`) or an
/// absolute URL; a relative path (resolved against the current directory, as Foundation); the `NSKeyedArchiver`
/// `NSURL` archive Apple's `UserDefaults` stores; `Data` holding UTF-8 URL text. Anything else → nil.
public struct LocationURLArchiver: URLArchiver {
    /// Store file URLs as just the path string.
    public var pathOnly: Bool

    public init(pathOnly: Bool = false) {
        self.pathOnly = pathOnly
    }

    public func archive(_ url: URL) -> PlistValue {
        guard url.isFileURL else { return .string(url.absoluteString) }
        let path = url.standardizedFileURL.path
        if pathOnly { return .string(path) }
        return .dictionary([BookmarkURLArchiver.pathKey: .string(path), BookmarkURLArchiver.urlKey: .string(url.standardizedFileURL.absoluteString)])
    }

    public func unarchive(_ value: PlistValue) -> URL? {
        Self.url(from: value)
    }

    /// The reading rules above (shared with `BookmarkURLArchiver`).
    static func read(_ value: PlistValue) -> UnarchivedURL? {
        url(from: value).map { UnarchivedURL(url: $0) }
    }

    static func url(from value: PlistValue) -> URL? {
        switch value {
        case .string(let s): return Self.url(fromText: s)
        case .dictionary(let d):
            if case .string(let path)? = d[BookmarkURLArchiver.pathKey], !path.isEmpty { return URL(fileURLWithPath: path) }
            if case .string(let text)? = d[BookmarkURLArchiver.urlKey] { return Self.url(fromText: text) }
            return nil
        case .data(let data):
            if let archived = KeyedArchiveURL.url(from: data) { return archived }
            guard data.count <= 65536, let text = String(validating: data, as: UTF8.self) else { return nil }
            guard let url = URL(string: text), url.scheme != nil else { return nil }
            return url
        default: return nil
        }
    }

    static func url(fromText s: String) -> URL? {
        if s.isEmpty { return nil }
        if s.hasPrefix("/") { return URL(fileURLWithPath: s) }
        if s == "~" || s.hasPrefix("~/") {
            return URL(fileURLWithPath: PreferencesLocations.homeDirectory() + s.dropFirst())
        }
        if let url = URL(string: s), let scheme = url.scheme, !scheme.isEmpty, s.contains(":") { return url }
        return URL(fileURLWithPath: s)
    }
}

import CSystem
import FoundationEssentials
import PlistKit

/// Bookmark data on Linux: persistent references to files that survive renames and moves, in Apple's
/// `book` layout, with Linux identity (file handles, inode chain, birth time, volume) under reserved keys.
///
/// These are Apple's `URL.bookmarkData` / `URL(resolvingBookmarkData:)` semantics under this library's own
/// names, so they cannot clash with Foundation if it ever gains the API on Linux.
public enum Bookmark {
    /// Creates bookmark data for the object at `url` (a final symlink is bookmarked, not followed).
    ///
    /// - Parameters:
    ///   - url: a file URL naming the object.
    ///   - options: Apple's creation options (raw values match); `.minimalBookmark` omits optional fields.
    ///   - keys: resource keys whose current values are stored in the data (as Apple does, under string keys), for
    ///     `resourceValues(forKeys:fromBookmarkData:)` later. Supported: `NSURLFileSizeKey`,
    ///     `NSURLContentModificationDateKey`, `NSURLCreationDateKey`, `NSURLIsDirectoryKey`, `NSURLIsRegularFileKey`,
    ///     `NSURLIsSymbolicLinkKey`, `NSURLNameKey`; other keys are ignored.
    ///   - relativeTo: a directory; its relative path to the target is stored for `relocatedTree` resolution.
    ///   - customValues: extra string values stored under the given string keys.
    public static func create(for url: URL, options: BookmarkCreationOptions = [],
                              includingResourceValuesForKeys keys: Set<String> = [],
                              relativeTo: URL? = nil, customValues: [String: String] = [:]) throws(BookmarkError) -> [UInt8] {
        guard url.isFileURL else { throw .invalidArgument("not a file URL: \(url)") }
        return try create(path: url.path, options: options, includingResourceValuesForKeys: keys,
                          relativeTo: relativeTo?.path, customValues: customValues)
    }

    /// Path form of `create(for:…)`.
    public static func create(path: String, options: BookmarkCreationOptions = [],
                              includingResourceValuesForKeys keys: Set<String> = [],
                              relativeTo: String? = nil, customValues: [String: String] = [:],
                              limits: BookLimits = BookLimits()) throws(BookmarkError) -> [UInt8] {
        try create(pathBytes: Array(path.utf8), options: options, includingResourceValuesForKeys: keys,
                   relativeToBytes: relativeTo.map { Array($0.utf8) }, customValues: customValues, limits: limits)
    }

    /// Byte form of `create(path:…)`: Linux file names are bytes, and one that is not UTF-8 has no `String`.
    public static func create(pathBytes: [UInt8], options: BookmarkCreationOptions = [],
                              includingResourceValuesForKeys keys: Set<String> = [],
                              relativeToBytes: [UInt8]? = nil, customValues: [String: String] = [:],
                              limits: BookLimits = BookLimits()) throws(BookmarkError) -> [UInt8] {
        let record = try record(path: pathBytes, options: options, relativeTo: relativeToBytes)
        var container = record.container()
        var extra: [String: BookValue] = [:]
        for (k, v) in customValues { extra[k] = .string(v) }
        if !keys.isEmpty, case .success(let status) = Sys.statx(CSYSTEM_AT_FDCWD, record.pathBytes) {
            let kind = FileKind(mode: status.mode)
            for key in keys {
                switch key {
                case "NSURLFileSizeKey": extra[key] = .int64(Int64(clamping: status.size))
                case "NSURLContentModificationDateKey":
                    extra[key] = .date(Double(status.mtime_sec) + Double(status.mtime_nsec) / 1e9 - 978_307_200)
                case ResourceKey.creationDate:
                    if status.mask & CSYSTEM_STATX_BTIME != 0 { extra[key] = .date(Double(status.btime_sec) + Double(status.btime_nsec) / 1e9 - 978_307_200) }
                case ResourceKey.isDirectory: extra[key] = .bool(kind == .directory)
                case ResourceKey.isRegularFile: extra[key] = .bool(kind == .regular)
                case ResourceKey.isSymbolicLink: extra[key] = .bool(kind == .symlink)
                case ResourceKey.name: if let n = record.components.last { extra[key] = BookmarkRecord.component(n) }
                default: break
                }
            }
        }
        for (k, v) in extra.sorted(by: { $0.key < $1.key }) where !k.hasPrefix(BookmarkKey.namespace) {
            container.tocs[0].entries.append(.init(key: .string(k), value: v))
        }
        return try container.write(limits: limits)
    }

    /// Builds the record for an absolute (or cwd-relative) path given as bytes.
    static func record(path: [UInt8], options: BookmarkCreationOptions, relativeTo: [UInt8]?) throws(BookmarkError) -> BookmarkRecord {
        var absolute = try absolutePath(path)
        // A trailing slash names a directory, through a final symbolic link (POSIX): `link/` is the directory it points
        // to, `file/` is ENOTDIR.
        if absolute.count > 1, absolute.last == 0x2F { absolute = try realpath(absolute) }
        var components = PathBytes.split(absolute)
        guard let name = components.popLast() else { throw .invalidArgument("cannot bookmark /") }
        guard name != [0x2E], name != [0x2E, 0x2E] else { throw .invalidArgument("path ends in . or ..") }
        // Ancestors are canonicalised (symlinks in the parent resolved); the target itself is not followed.
        let parent = try realpath(PathBytes.join(components))
        components = PathBytes.split(parent) + [name]
        let pathBytes = PathBytes.join(components)
        let display = PathBytes.string(pathBytes)

        let target: FileIdentity
        switch FileIdentity.read(CSYSTEM_AT_FDCWD, pathBytes) {
        case .success(let id): target = id
        case .failure(let error): throw .failure("statx", error, path: display)
        }
        let minimal = options.contains(.minimalBookmark)
        var inodes: [UInt64] = []
        var ancestors: [FileHandleID?] = []
        for depth in 0..<(components.count - 1) {
            let prefix = PathBytes.join(Array(components[0...depth]))
            switch FileIdentity.read(CSYSTEM_AT_FDCWD, prefix, withHandle: !minimal) {
            case .success(let id):
                inodes.append(id.inode)
                ancestors.append(id.handle)
            case .failure(let error):
                throw .systemCall("statx", error, path: PathBytes.string(prefix))
            }
        }
        inodes.append(target.inode)

        var record = BookmarkRecord(components: components, inodes: inodes, kind: target.kind, options: options)
        record.formatVersion = BookmarkRecord.currentFormatVersion
        record.birthTimeNanoseconds = target.birthTimeNanoseconds
        record.handle = target.handle
        record.ancestorHandles = minimal ? [] : ancestors
        record.device = target.device
        let entry = MountEntry.viaStatmount(path: pathBytes)
            ?? target.mountID.flatMap { MountEntry.entry(mountID: $0) }
            ?? VolumeRecord.mount(for: nil, path: display, in: MountEntry.current())
        if let entry {
            record.volume = VolumeRecord.probe(entry)
        }
        record.creationTime = Double(SystemClock.realtimeNanoseconds()) / 1e9 - 978_307_200
        if !minimal {
            record.displayName = PathBytes.string(name)
            let uid = Sys.userID()
            record.userID = Int64(uid)
            record.userName = UserNames.name(of: uid)
        }
        if let base = relativeTo {
            let baseComponents = PathBytes.split(try realpath(try absolutePath(base)))
            var common = 0
            while common < baseComponents.count, common < components.count, baseComponents[common] == components[common] { common += 1 }
            record.relativePath = Array(repeating: [0x2E, 0x2E], count: baseComponents.count - common) + Array(components[common...])
        }
        return record
    }

    static func absolutePath(_ path: [UInt8]) throws(BookmarkError) -> [UInt8] {
        guard !path.isEmpty, !path.contains(0) else { throw .invalidArgument("empty path or NUL in path") }
        if path.first == 0x2F { return path }
        switch Sys.currentDirectory() {
        case .success(let workingDirectory): return workingDirectory + [0x2F] + path
        case .failure(let error): throw .systemCall("getcwd", error, path: ".")
        }
    }

    static func realpath(_ path: [UInt8]) throws(BookmarkError) -> [UInt8] {
        switch Sys.realPath(path) {
        case .success(let resolved): return resolved
        case .failure(let error): throw .failure("realpath", error, path: PathBytes.string(path))
        }
    }

    // MARK: - Inspection (no file-system access)

    /// Apple's standard resource keys understood by `resourceValues(forKeys:fromBookmarkData:)`.
    public enum ResourceKey {
        public static let path = "NSURLPathKey"
        public static let name = "NSURLNameKey"
        public static let localizedName = "NSURLLocalizedNameKey"
        public static let volumeURL = "NSURLVolumeURLKey"
        public static let volumeName = "NSURLVolumeNameKey"
        public static let volumeUUID = "NSURLVolumeUUIDStringKey"
        public static let creationDate = "NSURLCreationDateKey"
        public static let isDirectory = "NSURLIsDirectoryKey"
        public static let isRegularFile = "NSURLIsRegularFileKey"
        public static let isSymbolicLink = "NSURLIsSymbolicLinkKey"
    }

    /// Reads resource values straight from the data, touching no file (works on Apple blobs too).
    /// Standard keys map to their stored items; any other key is looked up as a custom string key.
    public static func resourceValues(forKeys keys: Set<String>, fromBookmarkData data: [UInt8],
                                      limits: BookLimits = BookLimits()) throws(BookmarkError) -> [String: BookValue] {
        let container = try BookContainer.read(data, limits: limits)
        let record = try BookmarkRecord(container: container)
        var out: [String: BookValue] = [:]
        for key in keys {
            switch key {
            case ResourceKey.path: out[key] = BookmarkRecord.component(record.pathBytes)
            case ResourceKey.name: if let n = record.components.last { out[key] = BookmarkRecord.component(n) }
            case ResourceKey.localizedName:
                if let d = container[BookmarkKey.displayName] { out[key] = d }
                else if let n = record.components.last { out[key] = BookmarkRecord.component(n) }
            case ResourceKey.volumeURL: if let v = container[BookmarkKey.volumeURL] { out[key] = v }
            case ResourceKey.volumeName: if let v = container[BookmarkKey.volumeName] { out[key] = v }
            case ResourceKey.volumeUUID: if let v = container[BookmarkKey.volumeUUID] { out[key] = v }
            case ResourceKey.creationDate: if let v = container[BookmarkKey.creationDate] { out[key] = v }
            case ResourceKey.isDirectory: if let k = record.kind { out[key] = .bool(k == .directory) }
            case ResourceKey.isRegularFile: if let k = record.kind { out[key] = .bool(k == .regular) }
            case ResourceKey.isSymbolicLink: if let k = record.kind { out[key] = .bool(k == .symlink) }
            default: if let v = container[key] { out[key] = v }
            }
        }
        return out
    }

    /// Every key present in the data (all TOCs), which Apple's API offers no way to list.
    public static func allKeys(fromBookmarkData data: [UInt8], limits: BookLimits = BookLimits()) throws(BookmarkError) -> [BookKey] {
        try BookContainer.read(data, limits: limits).tocs.flatMap { $0.entries.map(\.key) }
    }
}

/// The decoded content of a bookmark: what `create` stores and what `resolve` needs.
///
/// Apple (foreign) blobs decode too, with only the fields they have; `formatVersion == nil` marks them.
public struct BookmarkRecord: Sendable, Equatable {
    /// The version of the Linux layout this library writes.
    public static let currentFormatVersion = 1

    /// Absolute path components from `/` (raw bytes: Linux names need not be UTF-8).
    public var components: [[UInt8]]
    /// Inode of every component; the last is the target's.
    public var inodes: [UInt64]
    public var kind: FileKind?
    /// Birth time in nanoseconds since 1970.
    public var birthTimeNanoseconds: Int64?
    public var handle: FileHandleID?
    /// Handles of the ancestor directories, aligned with `components.dropLast()` (nil where unavailable).
    public var ancestorHandles: [FileHandleID?]
    public var volume: VolumeRecord?
    public var device: UInt64?
    public var options: BookmarkCreationOptions
    /// `org.plistkit.linux.format`, nil for blobs not written by this library.
    public var formatVersion: Int?
    /// Path relative to the `relativeTo` directory given at creation (may contain `..`).
    public var relativePath: [[UInt8]]?
    public var displayName: String?
    public var userName: String?
    public var userID: Int64?
    /// Bookmark creation time, seconds since 2001.
    public var creationTime: Double?

    public init(components: [[UInt8]], inodes: [UInt64], kind: FileKind?, options: BookmarkCreationOptions = []) {
        self.components = components
        self.inodes = inodes
        self.kind = kind
        self.ancestorHandles = []
        self.options = options
    }

    /// The stored absolute path.
    public var pathBytes: [UInt8] { PathBytes.join(components) }
    public var path: String { PathBytes.string(pathBytes) }

    /// The stored identity of the target.
    var identity: FileIdentity? {
        guard let ino = inodes.last, let kind else { return nil }
        return FileIdentity(inode: ino, kind: kind, birthTimeNanoseconds: birthTimeNanoseconds, handle: handle)
    }

    /// Stored identity of ancestor `index` (a directory).
    func ancestorIdentity(_ index: Int) -> FileIdentity? {
        guard index >= 0, index < inodes.count - 1 else { return nil }
        let h = index < ancestorHandles.count ? ancestorHandles[index] : nil
        return FileIdentity(inode: inodes[index], kind: .directory, birthTimeNanoseconds: nil, handle: h)
    }

    // MARK: - Decoding

    /// Decodes a parsed container. Linux blobs are checked strictly (components must be plain names);
    /// foreign blobs keep whatever path they carry, for display and a path-only check.
    public init(container c: BookContainer) throws(BookmarkError) {
        func bad(_ key: String, _ offset: Int = 0) -> BookmarkError { .corruptData(.unexpectedType(key: key), offset: offset) }
        func offset(_ key: BookKey) -> Int {
            for toc in c.tocs { if let e = toc.entries.first(where: { $0.key == key }) { return e.offset } }
            return 0
        }
        var version: Int? = nil
        if let v = c[BookmarkKey.formatVersion] {
            guard let n = v.integerValue else { throw bad(BookmarkKey.formatVersion, offset(.string(BookmarkKey.formatVersion))) }
            guard n >= 0, n <= Int64(BookmarkRecord.currentFormatVersion) else {
                throw .corruptData(.unsupportedFormatVersion(Int(clamping: n)), offset: offset(.string(BookmarkKey.formatVersion)))
            }
            version = Int(n)
        }
        guard let componentsValue = c[BookmarkKey.pathComponents] else {
            throw .corruptData(.missingKey("path components (0x1004)"), offset: 0)
        }
        let componentsOffset = offset(.numeric(BookmarkKey.pathComponents))
        guard let items = componentsValue.arrayValue else { throw bad("path components (0x1004)", componentsOffset) }
        var components: [[UInt8]] = []
        for (i, item) in items.enumerated() {
            let bytes: [UInt8]
            switch item {
            case .string(let s): bytes = Array(s.utf8)
            case .data(let d): bytes = d
            default: throw bad("path components (0x1004)", componentsOffset)
            }
            if version != nil {
                guard !bytes.isEmpty, bytes.count <= 255, bytes != [0x2E], bytes != [0x2E, 0x2E],
                      !bytes.contains(0x2F), !bytes.contains(0) else {
                    throw .corruptData(.badPathComponent(index: i), offset: componentsOffset)
                }
            } else {
                // Foreign blobs may carry `.` and `..` (kept for display; resolution refuses them), never a component
                // that would change which path is looked up: empty, or holding `/` or NUL.
                guard !bytes.isEmpty, !bytes.contains(0x2F), !bytes.contains(0) else {
                    throw .corruptData(.badPathComponent(index: i), offset: componentsOffset)
                }
            }
            components.append(bytes)
        }
        guard components.count <= 4096, components.reduce(0, { $0 + $1.count + 1 }) <= 4096 || version == nil else {
            throw .corruptData(.badPathComponent(index: components.count - 1), offset: componentsOffset)
        }
        var inodes: [UInt64] = []
        if let ids = c[BookmarkKey.fileIDs] {
            guard let arr = ids.arrayValue else { throw bad("file IDs (0x1005)", offset(.numeric(BookmarkKey.fileIDs))) }
            for v in arr {
                guard let n = v.integerValue else { throw bad("file IDs (0x1005)", offset(.numeric(BookmarkKey.fileIDs))) }
                inodes.append(UInt64(bitPattern: n))
            }
        }
        if version != nil, inodes.count != components.count {
            throw .corruptData(.unexpectedType(key: "file IDs (0x1005) count"), offset: offset(.numeric(BookmarkKey.fileIDs)))
        }
        var kind: FileKind? = nil
        if case .data(let props)? = c[BookmarkKey.fileProperties], props.count >= 8 {
            let flags = props[0..<8].enumerated().reduce(UInt64(0)) { $0 | UInt64($1.element) << (8 * UInt64($1.offset)) }
            kind = flags & 2 != 0 ? .directory : flags & 4 != 0 ? .symlink : flags & 1 != 0 ? .regular : .other
            if kind == .other, let code = c[BookmarkKey.fileType]?.integerValue, let bits = UInt32(exactly: code), bits < 0o20 {
                kind = FileKind(mode: bits << 12)
            }
        }
        self.init(components: components, inodes: inodes, kind: kind)
        formatVersion = version
        if let n = c[BookmarkKey.creationOptions]?.integerValue { options = BookmarkCreationOptions(rawValue: UInt(UInt32(truncatingIfNeeded: n))) }
        birthTimeNanoseconds = c[BookmarkKey.birthTimeNanoseconds]?.integerValue
        if let handleBytes = c[BookmarkKey.handle]?.dataValue, handleBytes.count <= 128, let t = c[BookmarkKey.handleType]?.integerValue,
           let type = Int32(exactly: t) {
            handle = FileHandleID(type: type, bytes: handleBytes, isFID: c[BookmarkKey.handleIsFID]?.boolValue ?? false)
        }
        if let ancestors = c[BookmarkKey.ancestorHandles]?.arrayValue {
            ancestorHandles = ancestors.map { v -> FileHandleID? in
                // Each ancestor: dictionary-free encoding as Data = 4-byte LE type + handle bytes (+ FID flag byte first).
                guard let d = v.dataValue, d.count >= 5, d.count <= 133 else { return nil }
                let type = Int32(bitPattern: UInt32(d[1]) | UInt32(d[2]) << 8 | UInt32(d[3]) << 16 | UInt32(d[4]) << 24)
                return FileHandleID(type: type, bytes: Array(d[5...]), isFID: d[0] != 0)
            }
        }
        if let mountPoint = c[BookmarkKey.volumePath]?.stringValue {
            var fsid: [UInt8] = []
            if let d = c[BookmarkKey.fsid]?.dataValue, d.count == 8 { fsid = d }
            volume = VolumeRecord(mountPoint: mountPoint, uuid: c[BookmarkKey.volumeUUID]?.stringValue, fsid: fsid,
                                  fsType: c[BookmarkKey.fsType]?.stringValue ?? "", source: c[BookmarkKey.mountSource]?.stringValue ?? "",
                                  root: c[BookmarkKey.mountRoot]?.stringValue ?? "/", size: c[BookmarkKey.volumeSize]?.integerValue)
        }
        if let d = c[BookmarkKey.device]?.integerValue { device = UInt64(bitPattern: d) }
        if let relativeItems = c[BookmarkKey.relativePath]?.arrayValue {
            relativePath = relativeItems.compactMap { v -> [UInt8]? in
                if case .string(let s) = v { return Array(s.utf8) }
                return v.dataValue
            }
            guard relativePath?.count == relativeItems.count, relativePath?.allSatisfy({ !$0.isEmpty && !$0.contains(0x2F) && !$0.contains(0) }) == true else {
                throw .corruptData(.unexpectedType(key: BookmarkKey.relativePath), offset: offset(.string(BookmarkKey.relativePath)))
            }
        }
        displayName = c[BookmarkKey.displayName]?.stringValue
        userName = c[BookmarkKey.userName]?.stringValue
        userID = c[BookmarkKey.userID]?.integerValue
        creationTime = c[BookmarkKey.bookmarkCreationTime]?.doubleValue
    }

    // MARK: - Encoding

    static func component(_ bytes: [UInt8]) -> BookValue {
        if let s = String(validating: bytes, as: UTF8.self) { return .string(s) }
        return .data(bytes)
    }

    /// The container this record is written as (TOC 1; the writer sorts the keys).
    public func container() -> BookContainer {
        var e: [BookContainer.Entry] = []
        func add(_ k: UInt32, _ v: BookValue) { e.append(.init(key: .numeric(k), value: v)) }
        func add(_ k: String, _ v: BookValue) { e.append(.init(key: .string(k), value: v)) }
        let minimal = options.contains(.minimalBookmark)
        add(BookmarkKey.pathComponents, .array(components.map(Self.component)))
        add(BookmarkKey.fileIDs, .array(inodes.map { .int64(Int64(bitPattern: $0)) }))
        let flags = (kind ?? .other).resourceFlags
        add(BookmarkKey.fileProperties, .data(BookWriter.le(flags, 8) + BookWriter.le(0x0F, 8) + BookWriter.le(0, 8)))
        if let code = kind?.specialTypeCode { add(BookmarkKey.fileType, .int32(code)) }
        if let ns = birthTimeNanoseconds {
            add(BookmarkKey.creationDate, .date(Double(ns) / 1e9 - 978_307_200))
            add(BookmarkKey.birthTimeNanoseconds, .int64(ns))
        }
        if let v = volume {
            add(BookmarkKey.volumePath, .string(v.mountPoint))
            add(BookmarkKey.volumeURL, .url("file://" + (v.mountPoint.hasSuffix("/") ? v.mountPoint : v.mountPoint + "/")))
            if let u = v.uuid { add(BookmarkKey.volumeUUID, .string(u)) }
            if !minimal, let s = v.size { add(BookmarkKey.volumeSize, .int64(s)) }
            add(BookmarkKey.volumeIsRoot, .bool(v.mountPoint == "/"))
            add(BookmarkKey.fsType, .string(v.fsType))
            add(BookmarkKey.mountSource, .string(v.source))
            add(BookmarkKey.mountRoot, .string(v.root))
            if v.fsid.count == 8 { add(BookmarkKey.fsid, .data(v.fsid)) }
        }
        if components.count >= 2 { add(BookmarkKey.containingFolderIndex, .int32(Int32(components.count - 2))) }
        if !minimal {
            if let n = userName { add(BookmarkKey.userName, .string(n)) }
            if let u = userID { add(BookmarkKey.userID, .int32(Int32(truncatingIfNeeded: u))) }
            if let d = displayName { add(BookmarkKey.displayName, .string(d)) }
        }
        add(BookmarkKey.creationOptions, .int32(Int32(truncatingIfNeeded: options.rawValue)))
        if let t = creationTime { add(BookmarkKey.bookmarkCreationTime, .real(t, subtype: 6)) }
        add(BookmarkKey.formatVersion, .int32(Int32(formatVersion ?? Self.currentFormatVersion)))
        if let h = handle {
            add(BookmarkKey.handle, .data(h.bytes))
            add(BookmarkKey.handleType, .int32(h.type))
            add(BookmarkKey.handleIsFID, .bool(h.isFID))
        }
        if !minimal, !ancestorHandles.isEmpty {
            add(BookmarkKey.ancestorHandles, .array(ancestorHandles.map { h in
                guard let h else { return .data([]) }
                return .data([h.isFID ? 1 : 0] + BookWriter.le(UInt64(UInt32(bitPattern: h.type)), 4) + h.bytes)
            }))
        }
        if let d = device { add(BookmarkKey.device, .int64(Int64(bitPattern: d))) }
        if let relativeComponents = relativePath { add(BookmarkKey.relativePath, .array(relativeComponents.map(Self.component))) }
        return BookContainer(tocs: [.init(id: 1, entries: e)])
    }
}

import CSystem
import FoundationEssentials
import PlistKit

extension Bookmark {
    /// Resolves bookmark data: stored path first, then identity, then a bounded search (see README).
    public static func resolve(_ data: [UInt8], options: BookmarkResolveOptions = BookmarkResolveOptions()) throws(BookmarkError) -> BookmarkResolution {
        let container = try BookContainer.read(data, limits: options.limits)
        let record = try BookmarkRecord(container: container)
        var resolver = Resolver(record: record, options: options)
        var result = try resolver.run()
        result.entriesSearched = resolver.entries
        if result.isStale, options.refreshWhenStale {
            // Carry custom values over; stored resource values are re-read from the file.
            var custom: [String: String] = [:]
            var keys: Set<String> = []
            for toc in container.tocs {
                for e in toc.entries {
                    guard case .string(let k) = e.key, !k.hasPrefix(BookmarkKey.namespace) else { continue }
                    if k.hasPrefix("NSURL") { keys.insert(k) } else if case .string(let v) = e.value { custom[k] = v }
                }
            }
            let opts = record.formatVersion == nil ? BookmarkCreationOptions() : record.options
            if let fresh = try? create(pathBytes: result.pathBytes, options: opts, includingResourceValuesForKeys: keys,
                                       relativeToBytes: options.relativeTo.map { Array($0.utf8) }, customValues: custom,
                                       limits: options.limits) {
                result.refreshedData = fresh
            }
        }
        return result
    }

    /// Resolves, then opens the result with `O_NOFOLLOW` and checks that the descriptor's handle is the
    /// identity that was resolved, so the caller never works on an object swapped in after the check.
    /// Returns the open descriptor (the caller closes it) and the resolution.
    public static func resolveAndOpen(_ data: [UInt8], flags: Int32, options: BookmarkResolveOptions = BookmarkResolveOptions()) throws(BookmarkError) -> (descriptor: Int32, resolution: BookmarkResolution) {
        let resolution = try resolve(data, options: options)
        let fd: Int32
        switch Sys.openAt(CSYSTEM_AT_FDCWD, resolution.pathBytes, flags | CSYSTEM_O_NOFOLLOW) {
        case .success(let opened): fd = opened
        case .failure(let error): throw .failure("open", error, path: resolution.path)
        }
        if let expected = resolution.identity {
            let now: FileIdentity
            do { now = try FileIdentity.read(descriptor: fd) } catch { Sys.close(fd); throw error }
            guard now.matches(expected) != nil else {
                Sys.close(fd)
                throw .identityChanged(path: resolution.path)
            }
        }
        return (fd, resolution)
    }
}

/// One resolution: the algorithm of reference §5.2 over the caller's budget.
struct Resolver {
    let record: BookmarkRecord
    let options: BookmarkResolveOptions
    var entries = 0
    var exhausted = false
    var deniedPath: [UInt8]? = nil
    let deadline: UInt64

    init(record: BookmarkRecord, options: BookmarkResolveOptions) {
        self.record = record
        self.options = options
        deadline = Sys.monotonicNanoseconds() &+ UInt64(max(0, options.budget.maxMilliseconds)) &* 1_000_000
    }

    func found(_ path: [UInt8], _ reason: StaleReason?, _ confidence: IdentityConfidence?, _ identity: FileIdentity?) -> BookmarkResolution {
        BookmarkResolution(pathBytes: path, reason: reason, confidence: confidence, refreshedData: nil, entriesSearched: 0, identity: identity)
    }

    mutating func run() throws(BookmarkError) -> BookmarkResolution {
        let lastKnown = record.path
        guard let version = record.formatVersion else { return try foreign() }
        guard let stored = record.identity else { throw .corruptData(.missingKey("file properties (0x1010)"), offset: 0) }

        // Fast path: the stored path holds the stored identity on the stored filesystem (non-zero f_fsid of
        // its directory), so the mount table need not be read.
        if let vol = record.volume, vol.fsid.count == 8, vol.fsid.contains(where: { $0 != 0 }),
           case .success(let now) = FileIdentity.read(CSYSTEM_AT_FDCWD, record.pathBytes), let c = now.matches(stored),
           VolumeRecord.fsid(of: PathBytes.join(record.components.dropLast())) == vol.fsid {
            return found(record.pathBytes, version < BookmarkRecord.currentFormatVersion ? .formatUpgraded : nil, c, now)
        }

        // Volume: still at its mount point, moved to another one, or gone.
        var comps = record.components
        var mountCount = 0
        var rebased = false
        if let vol = record.volume {
            let mp = PathBytes.split(Array(vol.mountPoint.utf8))
            guard comps.starts(with: mp) else { throw .corruptData(.unexpectedType(key: "volume path (0x2002)"), offset: 0) }
            mountCount = mp.count
            let table = MountEntry.current()
            if !table.isEmpty {
                let here = table.last(where: { $0.mountPoint == vol.mountPoint })
                let stillHere = here.map { $0.root == vol.root && vol.sameFilesystem(as: VolumeRecord.probe($0)) } ?? false
                if !stillHere {
                    let moved = table.last(where: { e in
                        e.mountPoint != vol.mountPoint && e.fsType == vol.fsType && e.root == vol.root
                            && vol.sameFilesystem(as: VolumeRecord.probe(e))
                    })
                    guard let moved else { throw .volumeNotMounted(volume: vol.uuid ?? "\(vol.source) (\(vol.fsType))", lastKnownPath: lastKnown) }
                    let newMP = PathBytes.split(Array(moved.mountPoint.utf8))
                    comps = newMP + comps.dropFirst(mp.count)
                    mountCount = newMP.count
                    rebased = true
                }
            }
        }
        let baseReason: StaleReason? = rebased ? .volumeMoved : (version < BookmarkRecord.currentFormatVersion ? .formatUpgraded : nil)
        let path = PathBytes.join(comps)

        // Exact path.
        var conflict: (path: [UInt8], identity: FileIdentity)? = nil
        switch FileIdentity.read(CSYSTEM_AT_FDCWD, path) {
        case .success(let now):
            if let c = now.matches(stored) { return found(path, baseReason, c, now) }
            if now.kind.isSameType(as: stored.kind) { conflict = (path, now) }
        case .failure(let e):
            if e == .permissionDenied { deniedPath = path }
        }

        // Relative candidate.
        var relocated: (path: [UInt8], identity: FileIdentity)? = nil
        if let rel = record.relativePath, let base = options.relativeTo {
            // Canonical, as at creation: a relative directory from the working directory, symbolic links resolved (so a
            // stored `..` climbs out of the real directory).
            let absolute = (try? Bookmark.absolutePath(Array(base.utf8))) ?? Array(base.utf8)
            var parts = PathBytes.split((try? Bookmark.realpath(absolute)) ?? absolute)
            for c in rel { if c == [0x2E, 0x2E] { _ = parts.popLast() } else if c != [0x2E] { parts.append(c) } }
            let candidate = PathBytes.join(parts)
            if case .success(let now) = FileIdentity.read(CSYSTEM_AT_FDCWD, candidate) {
                if let c = now.matches(stored) { return found(candidate, .moved, c, now) }
                if now.kind.isSameType(as: stored.kind) { relocated = (candidate, now) }
            }
        }

        let policy = options.policy ?? (record.options.contains(.preferFileIDResolution) ? .preferIdentity : .pathFirst)
        if policy == .pathFirst, let conflict { return found(conflict.path, .replaced, nil, conflict.identity) }

        if options.allowPrivilegedHandleLookup, let hit = privilegedLookup(stored, mountPoint: PathBytes.join(Array(comps.prefix(mountCount)))) {
            return found(hit.0, .moved, hit.1, hit.2)
        }

        if let hit = search(comps, stored: stored, mountCount: mountCount) {
            return found(hit.0, rebased && hit.0 == path ? .volumeMoved : .moved, hit.1, hit.2)
        }
        if let relocated { return found(relocated.path, .relocatedTree, nil, relocated.identity) }
        if let conflict { return found(conflict.path, .replaced, nil, conflict.identity) }
        if let deniedPath { throw .permissionDenied(path: PathBytes.string(deniedPath)) }
        if exhausted { throw .searchBudgetExhausted(lastKnownPath: lastKnown, entriesVisited: entries) }
        throw .fileNotFound(lastKnownPath: lastKnown)
    }

    /// Foreign (Apple) data: path only, always stale.
    func foreign() throws(BookmarkError) -> BookmarkResolution {
        guard !record.components.contains([0x2E, 0x2E]), !record.components.isEmpty else {
            throw .fileNotFound(lastKnownPath: record.path)
        }
        switch FileIdentity.read(CSYSTEM_AT_FDCWD, record.pathBytes) {
        case .success(let now): return found(record.pathBytes, .foreignFormat, nil, now)
        case .failure(let e):
            if e == .permissionDenied { throw .permissionDenied(path: record.path) }
            throw .fileNotFound(lastKnownPath: record.path)
        }
    }

    /// `open_by_handle_at` + `/proc/self/fd` — only with the caller's opt-in and an existing capability.
    func privilegedLookup(_ stored: FileIdentity, mountPoint: [UInt8]) -> ([UInt8], IdentityConfidence, FileIdentity)? {
        guard let h = stored.handle, !h.isFID, !h.bytes.isEmpty, ProcessCapabilities.holdsDacReadSearch() else { return nil }
        // open_by_handle_at rejects O_PATH mount descriptors (EBADF).
        guard case .success(let mfd) = Sys.openAt(CSYSTEM_AT_FDCWD, mountPoint, CSYSTEM_O_RDONLY | CSYSTEM_O_DIRECTORY) else { return nil }
        defer { Sys.close(mfd) }
        guard case .success(let fd) = Sys.openByHandle(mfd, h, CSYSTEM_O_PATH) else { return nil }
        defer { Sys.close(fd) }
        guard case .success(let path) = Sys.readLink(Array("/proc/self/fd/\(fd)".utf8)), !path.isEmpty else { return nil }
        guard path.first == 0x2F, case .success(let now) = FileIdentity.read(CSYSTEM_AT_FDCWD, path),
              let c = now.matches(stored) else { return nil }
        return (path, c, now)
    }

    // MARK: - Bounded search

    /// Finds the target by inode from the deepest surviving ancestor, widening upwards, within the budget.
    mutating func search(_ comps: [[UInt8]], stored: FileIdentity, mountCount: Int) -> ([UInt8], IdentityConfidence, FileIdentity)? {
        let n = comps.count
        guard n >= 1 else { return nil }
        // Deepest stored ancestor that is still where it was (the mount point path itself is already checked).
        var d = min(mountCount, n - 1) - 1
        var k = d + 1
        while k < n - 1 {
            let prefix = PathBytes.join(Array(comps[0...k]))
            guard case .success(let now) = FileIdentity.read(CSYSTEM_AT_FDCWD, prefix),
                  let want = record.ancestorIdentity(k), now.matches(want) != nil else { break }
            d = k
            k += 1
        }
        var dirPath = PathBytes.join(Array(comps.prefix(d + 1)))
        // Renamed ancestors: find each missing one below the last located directory.
        var j = d + 1
        while j < n - 1, !exhausted {
            guard let want = record.ancestorIdentity(j),
                  let hit = bfs(from: dirPath, inode: want.inode, depthLimit: 2, skip: nil, prefer: comps[j], verify: want) else { break }
            dirPath = hit.0
            j += 1
        }
        // Target below the located directory, then widening upwards (never above the mount root).
        var root = dirPath
        var skip: [UInt8]? = nil
        var level = 0
        while !exhausted {
            if let hit = bfs(from: root, inode: stored.inode, depthLimit: options.budget.maxDepth, skip: skip, prefer: comps[n - 1], verify: stored) {
                return hit
            }
            let parts = PathBytes.split(root)
            guard level < options.budget.maxLevelsUp, parts.count > mountCount else { break }
            skip = root
            root = PathBytes.join(Array(parts.dropLast()))
            level += 1
        }
        return nil
    }

    /// Breadth-first search below `root` for an entry whose `d_ino` is `inode`, verified against `verify`.
    /// Never follows symlinks, never crosses into another mount, skips unreadable directories.
    mutating func bfs(from root: [UInt8], inode: UInt64, depthLimit: Int, skip: [UInt8]?, prefer: [UInt8], verify: FileIdentity) -> ([UInt8], IdentityConfidence, FileIdentity)? {
        guard case .success(let rootFd) = Sys.openAt(CSYSTEM_AT_FDCWD, root, CSYSTEM_O_PATH | CSYSTEM_O_DIRECTORY | CSYSTEM_O_NOFOLLOW) else {
            return nil
        }
        let rootMount: UInt64?
        if case .success(let sx) = Sys.statx(rootFd, [], emptyPath: true), sx.mask & CSYSTEM_STATX_MNT_ID != 0 { rootMount = sx.mnt_id } else { rootMount = nil }
        let rootDev: UInt64
        if case .success(let sx) = Sys.statx(rootFd, [], emptyPath: true) { rootDev = UInt64(sx.dev_major) << 32 | UInt64(sx.dev_minor) } else { rootDev = 0 }
        Sys.close(rootFd)

        var queue: [([UInt8], Int)] = [(root, 0)]
        var head = 0
        // An exhausted budget ends the whole search, not just the directory being read.
        while head < queue.count, !exhausted {
            let (dir, level) = queue[head]
            head += 1
            // Unreadable or vanished: skip, record nothing.
            guard case .success(let fd) = Sys.openAt(CSYSTEM_AT_FDCWD, dir, CSYSTEM_O_RDONLY | CSYSTEM_O_DIRECTORY | CSYSTEM_O_NOFOLLOW) else {
                continue
            }
            // Same mount as the search root (bind mounts of the same fs share st_dev, so use the mount id when present).
            if case .success(let sx) = Sys.statx(fd, [], emptyPath: true) {
                let sameMount = rootMount.map { sx.mask & CSYSTEM_STATX_MNT_ID != 0 && sx.mnt_id == $0 }
                    ?? (UInt64(sx.dev_major) << 32 | UInt64(sx.dev_minor) == rootDev)
                guard sameMount else { Sys.close(fd); continue }
            }
            guard case .success(let stream) = Sys.openDirectory(fd) else { Sys.close(fd); continue }
            defer { Sys.closeDirectory(stream) }
            var best: ([UInt8], IdentityConfidence, FileIdentity)? = nil
            while !exhausted, case .success(let entry?) = Sys.readDirectory(stream) {
                let nameBytes = entry.name
                let ino = entry.inode
                let type = entry.type
                if nameBytes.count <= 2, nameBytes.allSatisfy({ $0 == 0x2E }) { continue }
                // The budget counts the entries examined (not `.` and `..`): the one past it is not.
                guard entries < options.budget.maxEntries else { exhausted = true; break }
                entries += 1
                if entries & 255 == 0, Sys.monotonicNanoseconds() > deadline { exhausted = true }
                let child = dir == [0x2F] ? [0x2F] + nameBytes : dir + [0x2F] + nameBytes
                if ino == inode, best == nil || nameBytes == prefer {
                    if case .success(let now) = FileIdentity.read(fd, nameBytes), let c = now.matches(verify) {
                        if nameBytes == prefer { return (child, c, now) }
                        best = (child, c, now)
                    }
                }
                let isDir = type == CSYSTEM_DT_DIR || (type == CSYSTEM_DT_UNKNOWN && { () -> Bool in
                    if case .success(let sx) = Sys.statx(fd, nameBytes) { return sx.mode & 0o170000 == 0o040000 }
                    return false
                }())
                if isDir, level + 1 <= depthLimit, child != skip { queue.append((child, level + 1)) }
            }
            if let best { return best }
        }
        return nil
    }
}

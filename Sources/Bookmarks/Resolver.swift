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
                for entry in toc.entries {
                    guard case .string(let key) = entry.key, !key.hasPrefix(BookmarkKey.namespace) else { continue }
                    if key.hasPrefix("NSURL") { keys.insert(key) } else if case .string(let value) = entry.value { custom[key] = value }
                }
            }
            let creationOptions = record.formatVersion == nil ? BookmarkCreationOptions() : record.options
            if let fresh = try? create(pathBytes: result.pathBytes, options: creationOptions, includingResourceValuesForKeys: keys,
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

/// An object a resolution found: where it is, how sure the match is (nil when the identity did not match: a
/// replacement or a relocated copy), and what it is.
struct ResolvedCandidate {
    var path: [UInt8]
    var confidence: IdentityConfidence?
    var identity: FileIdentity
}

/// One resolution over the caller's budget, in the order the README's "Resolution" list gives: the stored path,
/// the volume, the relative path, the path-first policy, the opt-in handle lookup, then the bounded search.
struct Resolver {
    let record: BookmarkRecord
    let options: BookmarkResolveOptions
    /// Directory entries the search has examined.
    var entries = 0
    /// Whether the budget (entries or time) ran out.
    var exhausted = false
    /// A stored path whose lookup hit `EACCES`.
    var deniedPath: [UInt8]? = nil
    let deadline: UInt64

    init(record: BookmarkRecord, options: BookmarkResolveOptions) {
        self.record = record
        self.options = options
        deadline = SystemClock.monotonicNanoseconds() &+ UInt64(max(0, options.budget.maxMilliseconds)) &* 1_000_000
    }

    func found(_ candidate: ResolvedCandidate, _ reason: StaleReason?) -> BookmarkResolution {
        BookmarkResolution(
            pathBytes: candidate.path, reason: reason, confidence: candidate.confidence, refreshedData: nil, entriesSearched: 0,
            identity: candidate.identity)
    }

    mutating func run() throws(BookmarkError) -> BookmarkResolution {
        let lastKnown = record.path
        guard let version = record.formatVersion else { return try foreign() }
        guard let stored = record.identity else { throw .corruptData(.missingKey("file properties (0x1010)"), offset: 0) }
        let upgraded: StaleReason? = version < BookmarkRecord.currentFormatVersion ? .formatUpgraded : nil

        // Fast path: the stored path holds the stored identity on the stored filesystem (non-zero f_fsid of
        // its directory), so the mount table need not be read.
        if let volume = record.volume, volume.fsid.count == 8, volume.fsid.contains(where: { $0 != 0 }),
           case .success(let now) = FileIdentity.read(CSYSTEM_AT_FDCWD, record.pathBytes), let confidence = now.matches(stored),
           VolumeRecord.fsid(of: PathBytes.join(record.components.dropLast())) == volume.fsid {
            return found(ResolvedCandidate(path: record.pathBytes, confidence: confidence, identity: now), upgraded)
        }

        // Volume: still at its mount point, moved to another one, or gone.
        var components = record.components
        var mountPointDepth = 0
        var rebased = false
        if let volume = record.volume {
            let storedMountPoint = PathBytes.split(Array(volume.mountPoint.utf8))
            guard components.starts(with: storedMountPoint) else {
                throw .corruptData(.unexpectedType(key: "volume path (0x2002)"), offset: 0)
            }
            mountPointDepth = storedMountPoint.count
            let table = MountEntry.current()
            if !table.isEmpty {
                let here = table.last(where: { $0.mountPoint == volume.mountPoint })
                let stillHere = here.map { $0.root == volume.root && volume.sameFilesystem(as: VolumeRecord.probe($0)) } ?? false
                if !stillHere {
                    let moved = table.last(where: { entry in
                        entry.mountPoint != volume.mountPoint && entry.fsType == volume.fsType && entry.root == volume.root
                            && volume.sameFilesystem(as: VolumeRecord.probe(entry))
                    })
                    guard let moved else {
                        throw .volumeNotMounted(volume: volume.uuid ?? "\(volume.source) (\(volume.fsType))", lastKnownPath: lastKnown)
                    }
                    let newMountPoint = PathBytes.split(Array(moved.mountPoint.utf8))
                    components = newMountPoint + components.dropFirst(storedMountPoint.count)
                    mountPointDepth = newMountPoint.count
                    rebased = true
                }
            }
        }
        let baseReason: StaleReason? = rebased ? .volumeMoved : upgraded
        let path = PathBytes.join(components)

        // Exact path.
        var conflict: ResolvedCandidate? = nil
        switch FileIdentity.read(CSYSTEM_AT_FDCWD, path) {
        case .success(let now):
            if let confidence = now.matches(stored) { return found(ResolvedCandidate(path: path, confidence: confidence, identity: now), baseReason) }
            if now.kind.isSameType(as: stored.kind) { conflict = ResolvedCandidate(path: path, confidence: nil, identity: now) }
        case .failure(let error):
            if error == .permissionDenied { deniedPath = path }
        }

        // Relative candidate.
        var relocated: ResolvedCandidate? = nil
        if let relativeComponents = record.relativePath, let base = options.relativeTo {
            // Canonical, as at creation: a relative directory from the working directory, symbolic links resolved (so a
            // stored `..` climbs out of the real directory).
            let absolute = (try? Bookmark.absolutePath(Array(base.utf8))) ?? Array(base.utf8)
            var parts = PathBytes.split((try? Bookmark.realpath(absolute)) ?? absolute)
            for component in relativeComponents {
                if component == [0x2E, 0x2E] { _ = parts.popLast() } else if component != [0x2E] { parts.append(component) }
            }
            let candidate = PathBytes.join(parts)
            if case .success(let now) = FileIdentity.read(CSYSTEM_AT_FDCWD, candidate) {
                if let confidence = now.matches(stored) {
                    return found(ResolvedCandidate(path: candidate, confidence: confidence, identity: now), .moved)
                }
                if now.kind.isSameType(as: stored.kind) { relocated = ResolvedCandidate(path: candidate, confidence: nil, identity: now) }
            }
        }

        let policy = options.policy ?? (record.options.contains(.preferFileIDResolution) ? .preferIdentity : .pathFirst)
        if policy == .pathFirst, let conflict { return found(conflict, .replaced) }

        if options.allowPrivilegedHandleLookup,
           let hit = privilegedLookup(stored, mountPoint: PathBytes.join(Array(components.prefix(mountPointDepth)))) {
            return found(hit, .moved)
        }

        if let hit = search(components, stored: stored, mountPointDepth: mountPointDepth) {
            return found(hit, rebased && hit.path == path ? .volumeMoved : .moved)
        }
        if let relocated { return found(relocated, .relocatedTree) }
        if let conflict { return found(conflict, .replaced) }
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
        case .success(let now): return found(ResolvedCandidate(path: record.pathBytes, confidence: nil, identity: now), .foreignFormat)
        case .failure(let error):
            if error == .permissionDenied { throw .permissionDenied(path: record.path) }
            throw .fileNotFound(lastKnownPath: record.path)
        }
    }

    /// `open_by_handle_at` + `/proc/self/fd` — only with the caller's opt-in and an existing capability.
    func privilegedLookup(_ stored: FileIdentity, mountPoint: [UInt8]) -> ResolvedCandidate? {
        guard let handle = stored.handle, !handle.isFID, !handle.bytes.isEmpty, ProcessCapabilities.holdsDacReadSearch() else {
            return nil
        }
        // open_by_handle_at rejects O_PATH mount descriptors (EBADF).
        guard case .success(let mountDescriptor) = Sys.openAt(CSYSTEM_AT_FDCWD, mountPoint, CSYSTEM_O_RDONLY | CSYSTEM_O_DIRECTORY) else {
            return nil
        }
        defer { Sys.close(mountDescriptor) }
        guard case .success(let fd) = Sys.openByHandle(mountDescriptor, handle, CSYSTEM_O_PATH) else { return nil }
        defer { Sys.close(fd) }
        guard case .success(let path) = Sys.readLink(Array("/proc/self/fd/\(fd)".utf8)), path.first == 0x2F,
              case .success(let now) = FileIdentity.read(CSYSTEM_AT_FDCWD, path), let confidence = now.matches(stored) else {
            return nil
        }
        return ResolvedCandidate(path: path, confidence: confidence, identity: now)
    }

    // MARK: - Bounded search

    /// Finds the target by inode from the deepest surviving ancestor, widening upwards, within the budget.
    mutating func search(_ components: [[UInt8]], stored: FileIdentity, mountPointDepth: Int) -> ResolvedCandidate? {
        let count = components.count
        guard count >= 1 else { return nil }
        // Deepest stored ancestor that is still where it was (the mount point path itself is already checked).
        var deepest = min(mountPointDepth, count - 1) - 1
        var next = deepest + 1
        while next < count - 1 {
            let prefix = PathBytes.join(Array(components[0...next]))
            guard case .success(let now) = FileIdentity.read(CSYSTEM_AT_FDCWD, prefix),
                  let want = record.ancestorIdentity(next), now.matches(want) != nil else { break }
            deepest = next
            next += 1
        }
        var directory = PathBytes.join(Array(components.prefix(deepest + 1)))
        // Renamed ancestors: find each missing one below the last located directory.
        var ancestor = deepest + 1
        while ancestor < count - 1, !exhausted {
            guard let want = record.ancestorIdentity(ancestor),
                  let hit = breadthFirstSearch(
                      from: directory, inode: want.inode, depthLimit: 2, skip: nil, prefer: components[ancestor], verify: want)
            else { break }
            directory = hit.path
            ancestor += 1
        }
        // Target below the located directory, then widening upwards (never above the mount root).
        var root = directory
        var skip: [UInt8]? = nil
        var level = 0
        while !exhausted {
            if let hit = breadthFirstSearch(
                from: root, inode: stored.inode, depthLimit: options.budget.maxDepth, skip: skip, prefer: components[count - 1],
                verify: stored) {
                return hit
            }
            let parts = PathBytes.split(root)
            guard level < options.budget.maxLevelsUp, parts.count > mountPointDepth else { break }
            skip = root
            root = PathBytes.join(Array(parts.dropLast()))
            level += 1
        }
        return nil
    }

    /// Breadth-first search below `root` for an entry whose `d_ino` is `inode`, verified against `verify`.
    /// Never follows symlinks, never crosses into another mount, skips unreadable directories.
    mutating func breadthFirstSearch(
        from root: [UInt8], inode: UInt64, depthLimit: Int, skip: [UInt8]?, prefer: [UInt8], verify: FileIdentity
    ) -> ResolvedCandidate? {
        guard case .success(let rootDescriptor) = Sys.openAt(CSYSTEM_AT_FDCWD, root, CSYSTEM_O_PATH | CSYSTEM_O_DIRECTORY | CSYSTEM_O_NOFOLLOW) else {
            return nil
        }
        let rootStatus = try? Sys.statx(rootDescriptor, [], emptyPath: true).get()
        let rootMount = rootStatus.flatMap { $0.mask & CSYSTEM_STATX_MNT_ID != 0 ? $0.mnt_id : nil }
        let rootDevice = rootStatus.map { UInt64($0.dev_major) << 32 | UInt64($0.dev_minor) } ?? 0
        Sys.close(rootDescriptor)

        var queue: [(directory: [UInt8], level: Int)] = [(root, 0)]
        var head = 0
        // An exhausted budget ends the whole search, not just the directory being read.
        while head < queue.count, !exhausted {
            let (directory, level) = queue[head]
            head += 1
            // Unreadable or vanished: skip, record nothing.
            guard case .success(let fd) = Sys.openAt(CSYSTEM_AT_FDCWD, directory, CSYSTEM_O_RDONLY | CSYSTEM_O_DIRECTORY | CSYSTEM_O_NOFOLLOW) else {
                continue
            }
            // Same mount as the search root (bind mounts of the same fs share st_dev, so use the mount id when present).
            if case .success(let status) = Sys.statx(fd, [], emptyPath: true) {
                let sameMount = rootMount.map { status.mask & CSYSTEM_STATX_MNT_ID != 0 && status.mnt_id == $0 }
                    ?? (UInt64(status.dev_major) << 32 | UInt64(status.dev_minor) == rootDevice)
                guard sameMount else { Sys.close(fd); continue }
            }
            guard case .success(let stream) = Sys.openDirectory(fd) else { Sys.close(fd); continue }
            defer { Sys.closeDirectory(stream) }
            var best: ResolvedCandidate? = nil
            while !exhausted, case .success(let entry?) = Sys.readDirectory(stream) {
                let name = entry.name
                if name.count <= 2, name.allSatisfy({ $0 == 0x2E }) { continue }
                // The budget counts the entries examined (not `.` and `..`): the one past it is not.
                guard entries < options.budget.maxEntries else { exhausted = true; break }
                entries += 1
                if entries & 255 == 0, SystemClock.monotonicNanoseconds() > deadline { exhausted = true }
                let child = directory == [0x2F] ? [0x2F] + name : directory + [0x2F] + name
                if entry.inode == inode, best == nil || name == prefer {
                    if case .success(let now) = FileIdentity.read(fd, name), let confidence = now.matches(verify) {
                        let candidate = ResolvedCandidate(path: child, confidence: confidence, identity: now)
                        if name == prefer { return candidate }
                        best = candidate
                    }
                }
                let isDirectory = entry.type == CSYSTEM_DT_DIR || (entry.type == CSYSTEM_DT_UNKNOWN && {
                    if case .success(let status) = Sys.statx(fd, name) { return status.mode & 0o170000 == 0o040000 }
                    return false
                }())
                if isDirectory, level + 1 <= depthLimit, child != skip { queue.append((child, level + 1)) }
            }
            if let best { return best }
        }
        return nil
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import PlistKit
import Synchronization

/// One domain file, cached in memory, written with the crash-safe protocol:
///
/// 1. writers take `flock` on `<file>.lock` (released by the kernel if the process dies);
/// 2. under the lock, re-read the file if its stamp (device, inode, size, mtime) changed, and apply only the keys
///    this process changed since its last flush (removals too) onto what is on disk;
/// 3. write a temp file in the same directory, fsync it, keep the old mode and owner, rename it over the target
///    (the symlink's target when the path is a symlink), fsync the directory.
///
/// A file that does not parse, or whose root is not a dictionary, is renamed to `<name>.corrupt-<time>…`, reported,
/// and the domain starts empty; it is never overwritten in place.
final class DomainFile: Sendable {
    /// The domain name used in messages and events.
    let domain: String
    /// The configured path (may be a symlink).
    let path: String
    /// Managed files are only read.
    let isReadOnly: Bool
    /// Whether a damaged file is moved aside (the store's own files) or left in place and not written (a file named by
    /// its path).
    let movesDamagedAside: Bool
    let options: StoreOptions
    let events: EventHub
    let scheduler: FlushScheduler?
    let recheckNanoseconds: UInt64
    /// Mode of the file when this process creates it (0600 for a user's files, 0644 for all-users files).
    let newFileMode: UInt32

    private struct State {
        var values = PlistDictionary()
        var stamp: FileStamp?
        var loaded = false
        var lastCheck: UInt64 = 0
        // Changes made here and not yet on disk: key -> new value (nil = removed). Exact-scalar keys.
        var dirty = PlistDictionary()
        var removed: [String] = []
        var flushScheduled = false
        // The read failure last reported, so a file that stays unreadable is reported once, not at every re-read.
        var reportedReadFailure: PreferencesError?
    }

    private let state = Mutex(State())
    // Serialises disk work (reload, flush) for this file within the process; the flock serialises across processes.
    private let diskLock = Mutex(())

    init(
        domain: String, path: String, readOnly: Bool, options: StoreOptions, events: EventHub, scheduler: FlushScheduler?,
        newFileMode: UInt32? = nil, movesDamagedAside: Bool = true
    ) {
        self.movesDamagedAside = movesDamagedAside
        self.newFileMode = newFileMode ?? options.newFileMode
        self.recheckNanoseconds = UInt64(max(0, options.recheckInterval) * 1e9)
        self.domain = domain
        self.path = path
        self.isReadOnly = readOnly
        self.options = options
        self.events = events
        self.scheduler = scheduler
    }

    // MARK: Reading

    /// The current values, re-checking the file when the recheck interval has passed (or `force`).
    func snapshot(force: Bool = false) -> PlistDictionary {
        refreshIfNeeded(force: force)
        return state.withLock { $0.values }
    }

    /// One value. `now` (monotonic ns) lets a search-list lookup read the clock once for all its layers.
    func value(forKey key: String, now: UInt64 = SystemClock.monotonicNanoseconds()) -> PlistValue? {
        if case .some(let value) = cachedValue(forKey: key, now: now) { return value }
        refreshIfNeeded(force: false)
        return state.withLock { $0.values[key] }
    }

    /// The cached value when the file was checked within the recheck interval (one lock, no I/O, no events);
    /// `.none` when it is due for a re-check.
    func cachedValue(forKey key: String, now: UInt64) -> PlistValue?? {
        state.withLock { s in
            guard s.loaded, now &- s.lastCheck < recheckNanoseconds else { return .none }
            return .some(s.values[key])
        }
    }

    /// Whether there are changes not yet written.
    var hasUnsavedChanges: Bool {
        state.withLock { !$0.dirty.isEmpty || !$0.removed.isEmpty }
    }

    private func refreshIfNeeded(force: Bool) {
        let interval = recheckNanoseconds
        let now = SystemClock.monotonicNanoseconds()
        let due = state.withLock { s -> Bool in
            if force || !s.loaded || now &- s.lastCheck >= interval {
                s.lastCheck = now
                return true
            }
            return false
        }
        guard due else { return }
        // Events are posted after the locks are released: handlers may read this file again.
        var pending: [PreferencesEvent] = []
        let changed: [String] = diskLock.withLock { _ in
            let known = state.withLock { $0.loaded ? $0.stamp : nil }
            let loadedBefore = state.withLock { $0.loaded }
            let current = try? FileSystem.stamp(targetPath)
            if loadedBefore, current == known { return [] }
            let disk = loadMovingDamagedFileAside(underLock: false, events: &pending)
            // An unreadable file keeps no stamp, so synchronize() re-reads it (and refuses to write) every time.
            return apply(disk: disk.values, stamp: disk.unreadable == nil ? disk.stamp : nil, external: loadedBefore)
        }
        for event in pending { events.post(event) }
        if !changed.isEmpty { events.post(.didChange(domain: domain, keys: changed, external: true)) }
    }

    /// The path actually written: the symlink's target when `path` is a symlink.
    var targetPath: String { AtomicFile.resolvingLinks(path) }

    /// Reads and decodes the file, moving a damaged one aside (under the writer lock, after re-checking that it is
    /// still the same damaged file) and reporting it.
    ///
    /// A file that exists but cannot be read (permissions, over the read limit, a format this build's codec does not
    /// support; a damaged file named by path, when `movesDamagedAside` is false) is reported in `unreadable` and as
    /// `readFailed` (once, while the failure stays the same), left in place, and writes to it are refused.
    private func loadMovingDamagedFileAside(
        underLock: Bool, events: inout [PreferencesEvent]
    ) -> (values: PlistDictionary, stamp: FileStamp?, unreadable: PreferencesError?) {
        let result = readMovingDamagedFileAside(underLock: underLock, events: &events)
        let isNew = state.withLock { s -> Bool in
            defer { s.reportedReadFailure = result.unreadable }
            return result.unreadable != s.reportedReadFailure
        }
        if isNew, let failure = result.unreadable { events.append(.readFailed(domain: domain, error: failure)) }
        return result
    }

    /// `loadMovingDamagedFileAside` without the `readFailed` report: one decode of the bytes decides.
    private func readMovingDamagedFileAside(
        underLock: Bool, events: inout [PreferencesEvent]
    ) -> (values: PlistDictionary, stamp: FileStamp?, unreadable: PreferencesError?) {
        let target = targetPath
        let file: (bytes: [UInt8], stamp: FileStamp)?
        do {
            file = try FileSystem.readFile(target, limit: options.readLimit)
        } catch {
            let failure = error as? PreferencesError ?? PreferencesError(.io, "\(error)", domain: domain, path: target)
            return (PlistDictionary(), nil, failure)
        }
        guard let file else { return (PlistDictionary(), nil, nil) }
        let contents = DomainFileContents(file.bytes, codec: options.codec)
        let reason: String
        switch contents {
        case .values(let values):
            return (values, file.stamp, nil)
        case .unsupported(let error):
            let failure = PreferencesError(.io, "cannot read the domain file: \(error)", domain: domain, path: target)
            return (PlistDictionary(), file.stamp, failure)
        case .empty, .damaged:
            reason = contents.damageReason ?? ""
        }
        if isReadOnly {
            // Managed files belong to the administrator: report, ignore, never move.
            events.append(.managedFileIgnored(domain: domain, path: target, reason: reason))
            return (PlistDictionary(), file.stamp, nil)
        }
        if !movesDamagedAside {
            // An empty file holds nothing to lose: it is an empty domain, written over like one.
            if case .empty = contents { return (PlistDictionary(), file.stamp, nil) }
            // Someone else's file: never renamed by a read, never replaced by a write.
            let failure = PreferencesError(
                .corruptFile, "not a property-list dictionary (\(reason)); left as it is", domain: domain, path: target)
            return (PlistDictionary(), file.stamp, failure)
        }
        var moved: PreferencesEvent?
        let moveAside = { () -> (PlistDictionary, FileStamp?) in
            // Another writer may have replaced the file since we read it: only move the bytes we judged damaged.
            guard let again = try? FileSystem.readFile(target, limit: self.options.readLimit) else { return (PlistDictionary(), nil) }
            if again.stamp == file.stamp, again.bytes == file.bytes {
                if let to = try? FileSystem.moveAside(target) {
                    moved = .corruptFileMovedAside(domain: self.domain, path: target, movedTo: to, reason: reason)
                }
                return (PlistDictionary(), nil)
            }
            return (DomainFileContents(again.bytes, codec: self.options.codec).valuesOrEmpty, again.stamp)
        }
        let result = underLock ? moveAside() : (try? FileSystem.withExclusiveLock(target + ".lock", moveAside)) ?? (PlistDictionary(), nil)
        if let moved { events.append(moved) }
        return (result.0, result.1, nil)
    }

    /// Installs disk values with this process's unsaved changes applied on top; returns the keys whose value
    /// changed when `external` (another process's edit).
    private func apply(disk: PlistDictionary, stamp: FileStamp?, external: Bool) -> [String] {
        state.withLock { s in
            var merged = disk
            for (k, v) in s.dirty { merged[k] = v }
            for k in s.removed { merged[k] = nil }
            let old = s.values
            s.values = merged
            s.stamp = stamp
            s.loaded = true
            guard external else { return [] }
            var keys: [String] = []
            for (k, v) in merged where old[k] != v { keys.append(k) }
            for (k, _) in old where merged[k] == nil { keys.append(k) }
            return keys
        }
    }

    // MARK: Writing (memory)

    /// Sets (or with nil removes) a key in memory and schedules a flush.
    func set(_ value: PlistValue?, forKey key: String) {
        _ = update(key, to: value) { _ in true }
    }

    /// Sets `key` to `value` only while it holds `expected` (compare-and-set for in-place rewrites such as a refreshed
    /// bookmark); schedules a flush. Returns whether it was set.
    func replace(_ expected: PlistValue, with value: PlistValue, forKey key: String) -> Bool {
        update(key, to: value) { $0.values[key] == expected }
    }

    /// Sets (nil: removes) `key` in memory when `condition` holds, under the same lock, and schedules a flush.
    private func update(_ key: String, to value: PlistValue?, when condition: (State) -> Bool) -> Bool {
        refreshIfNeeded(force: false)
        let (updated, schedule) = state.withLock { s -> (Bool, Bool) in
            guard condition(s) else { return (false, false) }
            s.values[key] = value
            if let value {
                s.dirty[key] = value
                s.removed.removeAll { $0.utf8.elementsEqual(key.utf8) }
            } else {
                s.dirty[key] = nil
                if !s.removed.contains(where: { $0.utf8.elementsEqual(key.utf8) }) { s.removed.append(key) }
            }
            let first = !s.flushScheduled
            s.flushScheduled = true
            return (true, first)
        }
        if schedule { scheduler?.schedule(self) }
        return updated
    }

    /// Replaces every value (keys not in `values` are removed) and schedules a flush.
    func replaceAll(with values: PlistDictionary) {
        refreshIfNeeded(force: true)
        let old = state.withLock { $0.values }
        for (k, _) in old where values[k] == nil { set(nil, forKey: k) }
        for (k, v) in values { set(v, forKey: k) }
    }

    // MARK: Writing (disk)

    /// Writes pending changes now with the lock / re-read / merge / atomic-replace protocol, and picks up changes
    /// other processes made. With no pending changes it only re-reads.
    func synchronize() throws {
        state.withLock { $0.flushScheduled = false }
        if isReadOnly || !hasUnsavedChanges {
            refreshIfNeeded(force: true)
            return
        }
        var pending: [PreferencesEvent] = []
        defer { for event in pending { events.post(event) } }
        try diskLock.withLock { _ in
            // Take the pending changes; if the write fails they are put back (unless re-changed meanwhile).
            let (dirty, removed) = state.withLock { s -> (PlistDictionary, [String]) in
                let taken = (s.dirty, s.removed)
                s.dirty = PlistDictionary()
                s.removed = []
                return taken
            }
            if dirty.isEmpty && removed.isEmpty { return }
            do {
                let target = targetPath
                // The store's own directories are created; those a symbolic link points into are not (a dangling
                // link into an unmounted disk fails with ENOENT instead of growing directories where it points).
                let createsDirectories = target == path
                let (merged, stamp) = try FileSystem.withExclusiveLock(target + ".lock", createsDirectory: createsDirectories) {
                    () throws -> (PlistDictionary, FileStamp?) in
                    let known = state.withLock { $0.stamp }
                    var base: PlistDictionary
                    let onDisk = try FileSystem.stamp(target)
                    if onDisk != nil, onDisk == known, state.withLock({ $0.loaded }) {
                        // Unchanged since we read it: our in-memory copy minus newer local edits is the disk state.
                        base = state.withLock { $0.values }
                    } else {
                        let disk = loadMovingDamagedFileAside(underLock: true, events: &pending)
                        if let unreadable = disk.unreadable {
                            // Never replace a file we could not read: its values would be lost.
                            throw unreadable
                        }
                        base = disk.values
                    }
                    for (k, v) in dirty { base[k] = v }
                    for k in removed { base[k] = nil }
                    if base.isEmpty {
                        // Foundation deletes the file of an empty domain; do the same so both agree.
                        try FileSystem.remove(target)
                        return (base, nil)
                    }
                    let bytes: [UInt8]
                    do {
                        bytes = try options.codec.encode(.dictionary(base), format: options.writeFormat)
                    } catch {
                        throw PreferencesError(.encoding, "could not encode the domain: \(error)", domain: domain, path: target)
                    }
                    guard bytes.count <= options.sizeLimit else {
                        pending.append(.sizeLimitExceeded(domain: domain, size: bytes.count, limit: options.sizeLimit))
                        throw PreferencesError(
                            .sizeLimitExceeded,
                            "the domain would be \(bytes.count) bytes, more than the limit of \(options.sizeLimit); nothing was written",
                            domain: domain, path: target)
                    }
                    let stamp = try FileSystem.atomicReplace(
                        target, with: bytes, newFileMode: mode_t(newFileMode), syncDirectory: options.syncDirectory,
                        createsDirectories: createsDirectories)
                    return (base, stamp)
                }
                _ = apply(disk: merged, stamp: stamp, external: false)
            } catch {
                state.withLock { s in
                    for (k, v) in dirty where s.dirty[k] == nil && !s.removed.contains(where: { $0.utf8.elementsEqual(k.utf8) }) {
                        s.dirty[k] = v
                    }
                    for k in removed where s.dirty[k] == nil && !s.removed.contains(where: { $0.utf8.elementsEqual(k.utf8) }) {
                        s.removed.append(k)
                    }
                }
                throw error as? PreferencesError ?? PreferencesError(.io, "\(error)", domain: domain, path: path)
            }
        }
    }

    /// Returns once no reload or flush of this file is running in this process.
    func waitUntilIdle() {
        diskLock.withLock { _ in }
    }

    /// Forgets the changes not yet written, so no later flush tries them again, and reads the file again on next use
    /// (so no value that is not on disk is shown). For the `defaults` tool, after it has reported the failed write.
    func discardPendingChanges() {
        state.withLock { s in
            s.dirty = PlistDictionary()
            s.removed = []
            s.loaded = false
            s.stamp = nil
        }
    }

    /// Drops pending changes without writing them (used when a whole domain is deleted).
    func discardChangesAndDelete() throws {
        try diskLock.withLock { _ in
            let target = targetPath
            try FileSystem.withExclusiveLock(target + ".lock", createsDirectory: target == path) {
                try FileSystem.remove(target)
            }
            state.withLock { s in
                s.values = PlistDictionary()
                s.dirty = PlistDictionary()
                s.removed = []
                s.stamp = nil
                s.loaded = true
            }
        }
    }
}

import Dispatch
import Synchronization

/// Debounced background flushing: a domain changed in memory is written `delay` seconds later, on a background
/// queue, and every store still dirty is written when the process exits normally (`atexit`).
final class FlushScheduler: Sendable {
    let delay: Double
    let events: EventHub
    /// The one live timer of each file with a flush queued: a timer fires only while it is still the file's latest, so
    /// a new change supersedes a queued retry instead of starting a second chain of them.
    private let pending = Mutex<(timers: [ObjectIdentifier: UInt64], next: UInt64)>(([:], 0))
    // Every file ever scheduled, so the exit flush can also wait for a background flush already under way.
    private let known = Mutex<[ObjectIdentifier: DomainFile]>([:])
    private let queue = DispatchQueue(label: "preferences.flush")

    init(delay: Double, events: EventHub) {
        self.delay = delay
        self.events = events
        ExitFlush.register(self)
    }

    func schedule(_ file: DomainFile) {
        schedule(file, after: delay, retry: 0)
    }

    private func schedule(_ file: DomainFile, after seconds: Double, retry: Int) {
        let id = ObjectIdentifier(file)
        let timer = pending.withLock { p -> UInt64 in
            p.next += 1
            p.timers[id] = p.next
            return p.next
        }
        known.withLock { $0[id] = file }
        queue.asyncAfter(deadline: .now() + max(0, seconds)) { [self] in
            let current = pending.withLock { p -> Bool in
                guard p.timers[id] == timer else { return false }
                p.timers[id] = nil
                return true
            }
            if current { flush(file, retry: retry) }
        }
    }

    /// Writes `file`. A write the system refused (`.io`: a full disk, an I/O error, a read-only remount) keeps its
    /// changes in memory and is tried again, at growing intervals up to a minute, so they reach the disk once it
    /// recovers even if nothing else changes; other failures wait for the next change or synchronize.
    private func flush(_ file: DomainFile, retry: Int = 0) {
        let failure: PreferencesError
        do {
            try file.synchronize()
            return
        } catch let error as PreferencesError {
            failure = error
        } catch {
            failure = PreferencesError(.io, "\(error)", domain: file.domain)
        }
        events.post(.flushFailed(domain: file.domain, error: failure))
        let superseded = pending.withLock { $0.timers[ObjectIdentifier(file)] != nil }
        if failure.kind == .io, file.hasUnsavedChanges, !superseded {
            schedule(file, after: Self.retryDelay(retry, base: delay), retry: retry + 1)
        }
    }

    /// The wait before retry number `retry`: doubling from the flush delay (at least 0.25 s), capped at 60 s.
    static func retryDelay(_ retry: Int, base: Double) -> Double {
        min(60, max(0.25, base) * Double(1 << min(retry, 10)))
    }

    /// Writes every domain with unsaved changes now, and waits for flushes already running (the exit path).
    func flushAll() {
        pending.withLock { $0.timers.removeAll() }
        let files = known.withLock { Array($0.values) }
        for file in files {
            if file.hasUnsavedChanges { flush(file) } else { file.waitUntilIdle() }
        }
    }
}

/// The process-exit hook: flushes every scheduler that was ever created.
enum ExitFlush {
    private static let schedulers = Mutex<[FlushScheduler]>([])
    private static let installed = Atomic<Bool>(false)

    static func register(_ scheduler: FlushScheduler) {
        schedulers.withLock { $0.append(scheduler) }
        if installed.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
            atexit {
                let all = ExitFlush.schedulers.withLock { $0 }
                for scheduler in all { scheduler.flushAll() }
            }
        }
    }
}
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

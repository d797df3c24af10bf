import Dispatch
import Synchronization

/// Debounced background flushing: a domain changed in memory is written `delay` seconds later, on a background
/// queue, and every store still dirty is written when the process exits normally (`atexit`).
final class FlushScheduler: Sendable {
    let delay: Double
    let events: EventHub
    private let pending = Mutex<[ObjectIdentifier: DomainFile]>([:])
    // Every file ever scheduled, so the exit flush can also wait for a background flush already under way.
    private let known = Mutex<[ObjectIdentifier: DomainFile]>([:])
    private let queue = DispatchQueue(label: "preferences.flush")

    init(delay: Double, events: EventHub) {
        self.delay = delay
        self.events = events
        ExitFlush.register(self)
    }

    func schedule(_ file: DomainFile) {
        pending.withLock { $0[ObjectIdentifier(file)] = file }
        known.withLock { $0[ObjectIdentifier(file)] = file }
        queue.asyncAfter(deadline: .now() + max(0, delay)) { [self] in
            flush(file)
        }
    }

    private func flush(_ file: DomainFile) {
        pending.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(file)) }
        do {
            try file.synchronize()
        } catch let error as PreferencesError {
            events.post(.flushFailed(domain: file.domain, error: error))
        } catch {
            events.post(.flushFailed(domain: file.domain, error: PreferencesError(.io, "\(error)", domain: file.domain)))
        }
    }

    /// Writes every domain with unsaved changes now, and waits for flushes already running (the exit path).
    func flushAll() {
        pending.withLock { $0.removeAll() }
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

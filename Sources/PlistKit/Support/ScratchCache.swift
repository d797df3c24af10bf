import Synchronization

/// Working memory a writer needs only while it writes, kept for the next write: one set per process, taken by one
/// writer at a time (a second writer at the same moment allocates its own). A program that writes many documents
/// then pays the page faults of that memory once instead of at every write — measured on the shared harness's M
/// files, fresh pages were a quarter of a binary or XML write's time, and where they came from (a reused heap
/// block, or new pages after the allocator had trimmed the heap) changed with unrelated allocations elsewhere.
///
/// Only sets up to `maxBytes` are kept, so the memory a process holds between writes stays small.
final class ScratchCache<Value: Sendable>: Sendable {
    private let slot = Mutex<Value?>(nil)

    /// The largest set kept between writes.
    static var maxBytes: Int { 8 << 20 }

    init() {}

    /// The kept set, if there is one and no other writer has it.
    func take() -> Value? {
        slot.withLock { $0.take() }
    }

    /// Keeps `value` for the next writer; returns the set it replaces (or `value` itself when it is larger than
    /// `maxBytes`), for the caller to free.
    func give(_ value: Value, bytes: Int) -> Value? {
        guard bytes <= Self.maxBytes else { return value }
        return slot.withLock { kept in
            let old = kept.take()
            kept = value
            return old
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The pages of a mapped input file that a reader has passed, given back to the kernel as it goes (`madvise(2)`,
/// `MADV_DONTNEED`), so a conversion's resident memory does not grow with the input: a file-backed page the reader
/// has touched otherwise stays resident until the mapping ends.
///
/// Only a private read-only file mapping (`MappedInput` of a regular file) may be given: there `MADV_DONTNEED` just
/// drops the page cache's pages from the process, and a later read (an error's line and column, counted from the
/// start) faults them in again from the file. On anonymous or heap memory it would zero the bytes, so pages are
/// released only for pointers inside the mapping; a reader that parses a copy (a converted encoding, a repaired
/// declaration, inflated gzip) passes pointers outside it, and nothing happens.
final class InputPages {
    /// The mapping (page-aligned, as `mmap` returns it) and its length.
    private let base: UnsafeRawPointer
    private let count: Int
    private let pageSize: Int
    /// How many bytes the reader passes between two releases.
    private let step: Int
    /// Everything below this offset (a multiple of the page size) has been released.
    private(set) var released = 0

    init(mapping base: UnsafeRawPointer, count: Int, pageSize: Int = InputPages.systemPageSize, step: Int = 4 << 20) {
        self.base = base
        self.count = count
        self.pageSize = pageSize
        self.step = step
    }

    static var systemPageSize: Int { max(Int(sysconf(Int32(_SC_PAGESIZE))), 1) }

    /// The byte range to release once a reader will never again read below `offset`, when at least `step` bytes of
    /// whole pages lie between the part already released (`released`, page-aligned) and `offset`; else nil.
    static func pagesToRelease(passed offset: Int, released: Int, count: Int, pageSize: Int, step: Int) -> Range<Int>? {
        let end = min(max(offset, 0), count) / pageSize * pageSize
        guard end > released, end - released >= step else { return nil }
        return released..<end
    }

    /// The reader will never read below `pointer` again: releases the whole pages before it, every `step` bytes.
    /// A pointer outside the mapping (the reader works on a copy) releases nothing.
    @inline(__always)
    func passed(_ pointer: UnsafeRawPointer) {
        guard pointer >= base, pointer <= base + count else { return }
        passed(offset: pointer - base)
    }

    /// A new pass over the input begins (after a scan of the whole, the parse): pages are released again from the
    /// start as the new pass passes them.
    func startOver() { released = 0 }

    /// `passed(_:)` by offset into the mapping. Readers call it after every element or entry: the common case, less
    /// than `step` bytes since the last release, is one comparison here.
    @inline(__always)
    func passed(offset: Int) {
        guard offset &- released >= step else { return }
        release(passed: offset)
    }

    @inline(never) private func release(passed offset: Int) {
        guard let range = Self.pagesToRelease(passed: offset, released: released, count: count, pageSize: pageSize, step: step)
        else { return }
        // Advice only: a failure leaves the pages resident, which is no error.
        _ = madvise(UnsafeMutableRawPointer(mutating: base + range.lowerBound), range.count, MADV_DONTNEED)
        released = range.upperBound
    }
}

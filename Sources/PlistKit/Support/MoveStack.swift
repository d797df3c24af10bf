/// A growable stack whose top elements can be moved out into an `Array` in one step, for parsers that collect a
/// container's children and then hand them over: an `Array` stack would retain every child on the copy and release
/// it again on removal. The owner calls `release()` exactly once (a struct cannot free its storage itself).
struct MoveStack<Element> {
    private(set) var base: UnsafeMutablePointer<Element>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 4)
        base = .allocate(capacity: self.capacity)
    }

    @inline(__always) var last: Element? { count > 0 ? base[count - 1] : nil }

    @inline(__always) var isEmpty: Bool { count == 0 }

    /// Element `i`, read in place (passing it to a function borrows it: no copy to retain and release).
    @inline(__always) subscript(i: Int) -> Element {
        unsafeAddress { UnsafePointer(base + i) }
        nonmutating unsafeMutableAddress { base + i }
    }

    @inline(__always) mutating func append(_ element: consuming Element) {
        if count == capacity { grow() }
        (base + count).initialize(to: element)
        count += 1
    }

    /// Makes room for `n` more elements, so `appendReserved` need not check.
    @inline(__always) mutating func reserve(_ n: Int) {
        while capacity - count < n { grow() }
    }

    /// Appends after `reserve` made room.
    @inline(__always) mutating func appendReserved(_ element: consuming Element) {
        assert(count < capacity, "appendReserved without reserve")
        (base + count).initialize(to: element)
        count += 1
    }

    /// Removes and returns the top element, or nil when the stack is empty.
    @inline(__always) mutating func popLast() -> Element? {
        guard count > 0 else { return nil }
        count -= 1
        return (base + count).move()
    }

    private mutating func grow() {
        let bigger = UnsafeMutablePointer<Element>.allocate(capacity: 2 * capacity)
        bigger.moveInitialize(from: base, count: count)
        base.deallocate()
        base = bigger
        capacity *= 2
    }

    /// Moves the elements from `start` to the top into a new array (in order) and pops them.
    @inline(__always) mutating func moveOut(from start: Int) -> [Element] {
        let n = count - start
        let source = base + start
        count = start
        // Not `Array(unsafeUninitializedCapacity:)`: its allocation is not inlinable, so for an element type the
        // standard library has no specialisation of (`PlistValue`) it looks the storage class's metadata up at run
        // time — measured: about 650 instructions per array, more than moving the elements one by one.
        var out = [Element]()
        out.reserveCapacity(n)
        for i in 0..<n { out.append((source + i).move()) }
        return out
    }

    /// Pops the elements from `start` to the top without deinitializing them, and returns where they are: the caller
    /// moves them out before anything is appended again. (A closure that moved them out and returned a dictionary
    /// made the compiler retain and release the dictionary once more on its way out.)
    @inline(__always) mutating func popLeavingInPlace(from start: Int) -> UnsafeMutablePointer<Element> {
        count = start
        return base + start
    }

    /// Pops (and frees) the elements from `start` to the top.
    @inline(__always) mutating func pop(from start: Int) {
        (base + start).deinitialize(count: count - start)
        count = start
    }

    /// Frees the elements and the storage.
    mutating func release() {
        base.deinitialize(count: count)
        base.deallocate()
        count = 0
        capacity = 0
    }
}

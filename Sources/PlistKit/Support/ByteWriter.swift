/// The growing output buffer every writer appends to.
struct ByteWriter {
    var bytes: [UInt8]

    init(capacity: Int = 4096) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    @inline(__always) mutating func append(_ byte: UInt8) { bytes.append(byte) }

    @inline(__always) mutating func append(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    @inline(__always) mutating func append(contentsOf buffer: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: buffer)
    }

    @inline(__always) mutating func append(utf8 s: String) {
        var s = s
        s.withUTF8 { bytes.append(contentsOf: $0) }
    }

    mutating func append(repeating byte: UInt8, count: Int) {
        if count > 0 { bytes.append(contentsOf: repeatElement(byte, count: count)) }
    }
}

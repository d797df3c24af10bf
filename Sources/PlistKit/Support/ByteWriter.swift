/// The growing output buffer every writer appends to.
///
/// Writers append whole runs (`append(contentsOf:)`) rather than single bytes where they can: each append pays a
/// capacity check, so fewer, longer appends are what make a writer fast.
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

    @inline(__always) mutating func append(contentsOf buffer: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: buffer)
    }

    @inline(__always) mutating func append(utf8 s: String) {
        var s = s
        s.withUTF8 { bytes.append(contentsOf: $0) }
    }

    mutating func append(repeating byte: UInt8, count: Int) {
        if count > 0 { bytes.append(contentsOf: repeatElement(byte, count: count)) }
    }

    /// Appends at most `maxCount` bytes produced by `body`, which writes into scratch space and returns how many
    /// bytes it wrote. The scratch lives on the stack when `maxCount` is small.
    @inline(__always)
    mutating func append(maxCount: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxCount) { scratch in
            let n = body(scratch.baseAddress!)
            bytes.append(contentsOf: UnsafeBufferPointer(start: scratch.baseAddress!, count: n))
        }
    }

    // MARK: Numbers

    /// Appends a signed decimal integer.
    @inline(__always) mutating func appendDecimal(_ v: Int64) {
        append(maxCount: NumberFormatting.maxDecimalLength) {
            NumberFormatting.writeDecimal(v < 0 ? 0 &- UInt64(bitPattern: v) : UInt64(v), negative: v < 0, into: $0)
        }
    }

    /// Appends an unsigned decimal integer.
    @inline(__always) mutating func appendDecimal(_ v: UInt64) {
        append(maxCount: NumberFormatting.maxDecimalLength) { NumberFormatting.writeDecimal(v, negative: false, into: $0) }
    }

    /// Appends a plist integer in decimal (values above `Int64.max` unsigned).
    @inline(__always) mutating func appendDecimal(_ v: PlistInteger) {
        append(maxCount: NumberFormatting.maxDecimalLength) { NumberFormatting.writeDecimal(v, into: $0) }
    }

    /// Appends a finite real as C's `%.17g` prints it.
    @inline(__always) mutating func appendG17(_ v: Double) {
        append(maxCount: NumberFormatting.maxG17Length) { NumberFormatting.writeG17(v, into: $0) }
    }

    // MARK: Indentation

    private static let tabs = [UInt8](repeating: 0x09, count: 64)

    /// Appends `count` tab characters.
    @inline(__always) mutating func appendTabs(_ count: Int) {
        var left = count
        while left > 0 {
            let n = min(left, 64)
            Self.tabs.withUnsafeBufferPointer { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0[0..<n])) }
            left -= n
        }
    }

    private static let spaces = [UInt8](repeating: 0x20, count: 64)

    /// Appends `count` spaces.
    @inline(__always) mutating func appendSpaces(_ count: Int) {
        var left = count
        while left > 0 {
            let n = min(left, 64)
            Self.spaces.withUnsafeBufferPointer { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: $0[0..<n])) }
            left -= n
        }
    }
}

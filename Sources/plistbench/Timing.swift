#if canImport(Glibc)
import Glibc
#endif

/// Monotonic nanoseconds.
@inline(__always) func nowNs() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
}

/// Per-iteration timings of `body`; the result of each call is released after the clock is read.
func measure<T>(iterations: Int, _ body: () throws -> T) rethrows -> [UInt64] {
    var samples = [UInt64](repeating: 0, count: iterations)
    for i in 0..<iterations {
        let t0 = nowNs()
        let r = try body()
        var t1: UInt64 = 0
        withExtendedLifetime(r) { t1 = nowNs() }
        samples[i] = t1 - t0
    }
    return samples
}

/// Per-iteration timings of `body` for about `seconds` (at least three iterations), after one untimed call.
func measure<T>(seconds: Double, _ body: () throws -> T) rethrows -> [UInt64] {
    let first = try body()
    withExtendedLifetime(first) {}
    let start = nowNs()
    var samples: [UInt64] = []
    while samples.count < 3 || Double(nowNs() - start) < seconds * 1e9 {
        samples += try measure(iterations: 1, body)
    }
    return samples
}

/// Summary statistics of timing samples.
struct Stats {
    var median: Double, min: UInt64, max: UInt64, mean: Double

    init(_ samples: [UInt64]) {
        let s = samples.sorted()
        let n = s.count
        median = n % 2 == 1 ? Double(s[n / 2]) : (Double(s[n / 2 - 1]) + Double(s[n / 2])) / 2
        min = s[0]
        max = s[n - 1]
        mean = s.reduce(0.0) { $0 + Double($1) } / Double(n)
    }
}

/// Reads a whole file into memory; nil on failure.
func readFile(_ path: String) -> [UInt8]? {
    guard let f = fopen(path, "rb") else { return nil }
    defer { fclose(f) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, f) }
        if n == 0 { break }
        out.append(contentsOf: chunk[0..<n])
    }
    return ferror(f) == 0 ? out : nil
}

/// A JSON string literal.
func jsonString(_ s: String) -> String {
    var out = "\""
    for u in s.unicodeScalars {
        switch u {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        default:
            if u.value < 0x20 {
                let hex = String(u.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                out.unicodeScalars.append(u)
            }
        }
    }
    return out + "\""
}

/// Fixed-point decimal text without Foundation's `String(format:)`.
func fixed(_ x: Double, _ digits: Int) -> String {
    var buf = [CChar](repeating: 0, count: 64)
    _ = withVaList([digits, x]) { vsnprintf(&buf, buf.count, "%.*f", $0) }
    return buf.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
}

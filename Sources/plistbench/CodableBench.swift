import Foundation
import PlistKit

// Codable benchmark: PlistEncoder/PlistDecoder against Foundation's PropertyListEncoder/PropertyListDecoder on the
// same model in the same process, interleaved, binary and XML.

struct BenchAddress: Codable, Equatable {
    var street: String
    var city: String
    var zip: Int
}

struct BenchRecord: Codable, Equatable {
    var id: Int
    var name: String
    var email: String
    var score: Double
    var created: Date
    var active: Bool
    var tags: [String]
    var readings: [Double]
    var counts: [Int]
    var address: BenchAddress
    var note: String?
}

/// One field of `BenchLibrary`, for decoding a part of a document.
struct BenchTitle: Decodable {
    var title: String
}

struct BenchLibrary: Codable, Equatable {
    var title: String
    var records: [BenchRecord]
}

/// A deterministic library of `records` records.
func makeBenchLibrary(records: Int) -> BenchLibrary {
    var state: UInt64 = 0x1234_5678
    func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 33
    }
    let words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu"]
    let cities = ["Zürich", "Paris", "東京", "New York", "São Paulo", "Oslo"]
    var out: [BenchRecord] = []
    out.reserveCapacity(records)
    for i in 0..<records {
        let w = words[Int(next() % UInt64(words.count))]
        out.append(BenchRecord(
            id: i,
            name: "\(w) \(next() % 100_000)",
            email: "user\(i)@example.com",
            score: Double(next() % 1_000_000) / 1000,
            created: Date(timeIntervalSinceReferenceDate: Double(600_000_000 + Int(next() % 100_000_000))),
            active: next() % 2 == 0,
            tags: (0..<Int(next() % 4)).map { _ in words[Int(next() % UInt64(words.count))] },
            readings: (0..<3).map { _ in Double(next() % 10_000) / 7 },
            counts: (0..<Int(next() % 5)).map { _ in Int(next() % 100_000) - 50_000 },
            address: BenchAddress(street: "\(next() % 999) \(w) Street", city: cities[Int(next() % UInt64(cities.count))], zip: Int(next() % 99_999)),
            note: i % 3 == 0 ? "note for \(i)" : nil))
    }
    return BenchLibrary(title: "bench", records: out)
}

/// Runs the Codable benchmark and returns Markdown table lines (header included): per format and direction, the
/// median time of PlistKit and Foundation and the ratio (Foundation time / PlistKit time; above 1 = faster).
///
/// Keys are written in Foundation's order (declaration order in binary, sorted in XML). Decoding is timed on the
/// same input for both (Foundation's encoded bytes). The `tree` rows time only the Codable
/// layer (`encodeToValue`, `decode(_:fromValue:)`), without the format writer/reader.
func runCodableBenchmark(records: Int, seconds: Double = 1.0) -> [String] {
    let library = makeBenchLibrary(records: records)
    var lines = [
        "Codable, \(records) records (\(seconds) s per cell, median per call, interleaved rounds)",
        "",
        "| format | op | bytes | PlistKit ms | Foundation ms | ratio |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for format in [PlistFormat.binary, .xml] {
        let (ours, theirs) = encoders(format)
        do {
            let foundationBytes = try theirs.encode(library)
            let ourBytes = try ours.encode(library)
            // Check before timing that both sides read both outputs back into the same model.
            let decoder = PlistDecoder()
            let fDecoder = PropertyListDecoder()
            guard try decoder.decode(BenchLibrary.self, from: foundationBytes) == library,
                try decoder.decode(BenchLibrary.self, from: ourBytes) == library,
                try fDecoder.decode(BenchLibrary.self, from: ourBytes) == library
            else {
                lines.append("| \(format.displayName) | check | | mismatch | | |")
                continue
            }
            let (encOurs, encTheirs) = interleaved(seconds) {
                _ = try? ours.encode(library)
            } _: {
                _ = try? theirs.encode(library)
            }
            lines.append(row(format, "encode", ourBytes.count, encOurs, encTheirs))
            let (decOurs, decTheirs) = interleaved(seconds) {
                _ = try? decoder.decode(BenchLibrary.self, from: foundationBytes)
            } _: {
                _ = try? fDecoder.decode(BenchLibrary.self, from: foundationBytes)
            }
            lines.append(row(format, "decode", foundationBytes.count, decOurs, decTheirs))
            if format == .binary {
                // From the lazy document: the whole model, then one field of it (Foundation reads the whole file
                // either way; PlistKit's decoding of the bytes too).
                let document = try BinaryPlistDocument(foundationBytes)
                guard try decoder.decode(BenchLibrary.self, from: document) == library,
                    try decoder.decode(BenchTitle.self, from: document).title == library.title,
                    try fDecoder.decode(BenchTitle.self, from: foundationBytes).title == library.title
                else {
                    lines.append("| \(format.displayName) | check | | document mismatch | | |")
                    continue
                }
                let (wholeOurs, wholeTheirs) = interleaved(seconds) {
                    _ = try? decoder.decode(BenchLibrary.self, from: try BinaryPlistDocument(foundationBytes))
                } _: {
                    _ = try? fDecoder.decode(BenchLibrary.self, from: foundationBytes)
                }
                lines.append(row(format, "decode from document", foundationBytes.count, wholeOurs, wholeTheirs))
                let (titleOurs, titleTheirs) = interleaved(seconds) {
                    _ = try? decoder.decode(BenchTitle.self, from: try BinaryPlistDocument(foundationBytes))
                } _: {
                    _ = try? fDecoder.decode(BenchTitle.self, from: foundationBytes)
                }
                lines.append(row(format, "decode title from document", foundationBytes.count, titleOurs, titleTheirs))
                let (titleBytes, _) = interleaved(seconds / 2) { _ = try? decoder.decode(BenchTitle.self, from: foundationBytes) } _: {}
                lines.append("| \(format.displayName) | decode title from bytes | \(foundationBytes.count) | \(fixed(titleBytes / 1e6, 2)) | | |")
            }
        } catch {
            lines.append("| \(format.displayName) | error | | \(shortDescription(error)) | | |")
        }
    }
    // The Codable layer alone, for locating time: no format writer or reader on the PlistKit side.
    do {
        let encoder = PlistEncoder()
        let tree = try encoder.encodeToValue(library)
        let decoder = PlistDecoder()
        let (e, _) = interleaved(seconds / 2) { _ = try? encoder.encodeToValue(library) } _: {}
        let (d, _) = interleaved(seconds / 2) { _ = try? decoder.decode(BenchLibrary.self, fromValue: tree) } _: {}
        lines.append("| tree | encodeToValue | | \(fixed(e / 1e6, 2)) | | |")
        lines.append("| tree | decode(fromValue:) | | \(fixed(d / 1e6, 2)) | | |")
    } catch {
        lines.append("| tree | error | | \(shortDescription(error)) | | |")
    }
    return lines
}

/// PlistKit's and Foundation's encoders for `format` (.binary or .xml), PlistKit's in Foundation's key order:
/// declaration order in binary, sorted in XML.
private func encoders(_ format: PlistFormat) -> (PlistEncoder, PropertyListEncoder) {
    let ours = PlistEncoder()
    ours.outputFormat = format
    ours.writeOptions.sortKeys = format != .binary
    let theirs = PropertyListEncoder()
    theirs.outputFormat = format == .binary ? .binary : .xml
    return (ours, theirs)
}

/// Runs one PlistKit cell of the Codable benchmark alone for `SECONDS` (default 5), so a profiler sees only
/// PlistKit; prints the median. Decoding reads Foundation's bytes, as `runCodableBenchmark` does.
func runCodableProfile(_ args: [String]) -> Int32 {
    guard args.count >= 2, let format = ["xml": PlistFormat.xml, "binary": .binary][args[0]],
        ["encode", "decode", "document"].contains(args[1])
    else { return 64 }
    let library = makeBenchLibrary(records: args.count > 2 ? Int(args[2]) ?? 10_000 : 10_000)
    let seconds = args.count > 3 ? Double(args[3]) ?? 5 : 5
    let (encoder, theirs) = encoders(format)
    guard let bytes = try? theirs.encode(library) else { return 1 }
    let decoder = PlistDecoder()
    var samples: [UInt64] = []
    let deadline = nowNs() + UInt64(seconds * 1e9)
    repeat {
        let t0 = nowNs()
        switch args[1] {
        case "encode": _ = try? encoder.encode(library)
        case "document": _ = try? decoder.decode(BenchLibrary.self, from: try BinaryPlistDocument(bytes))
        default: _ = try? decoder.decode(BenchLibrary.self, from: bytes)
        }
        samples.append(nowNs() - t0)
    } while nowNs() < deadline
    let median = Stats(samples).median
    print("\(format.displayName) \(args[1]): \(fixed(median / 1e6, 2)) ms median")
    return 0
}

/// Median ns per call of `a` and `b`, run in three alternating rounds of about `seconds / 6` each.
private func interleaved(_ seconds: Double, _ a: () -> Void, _ b: () -> Void) -> (Double, Double) {
    var sa: [UInt64] = []
    var sb: [UInt64] = []
    a()
    b()
    func round(_ body: () -> Void, into samples: inout [UInt64]) {
        let deadline = nowNs() + UInt64(seconds / 6 * 1e9)
        var n = 0
        repeat {
            let t0 = nowNs()
            body()
            samples.append(nowNs() - t0)
            n += 1
        } while nowNs() < deadline || n < 2
    }
    for _ in 0..<3 {
        round(a, into: &sa)
        round(b, into: &sb)
    }
    return (Stats(sa).median, Stats(sb).median)
}

private func row(_ format: PlistFormat, _ op: String, _ bytes: Int, _ ours: Double, _ theirs: Double) -> String {
    "| \(format.displayName) | \(op) | \(bytes) | \(fixed(ours / 1e6, 2)) | \(fixed(theirs / 1e6, 2)) | \(fixed(theirs / ours, 2))× |"
}

/// An error's message without the (huge) value an `EncodingError` carries.
private func shortDescription(_ error: any Error) -> String {
    switch error {
    case EncodingError.invalidValue(_, let context): return context.debugDescription
    case let e as DecodingError:
        switch e {
        case .dataCorrupted(let c), .keyNotFound(_, let c), .typeMismatch(_, let c), .valueNotFound(_, let c): return c.debugDescription
        @unknown default: return "\(e)"
        }
    default: return "\(error)"
    }
}

import Foundation
import PlistKit

// Keyed-archive benchmark: PlistKit's KeyedArchive/KeyedArchiver against Foundation's NSKeyedUnarchiver/NSKeyedArchiver
// on the same bytes and the same content, in one process, interleaved.
//   plistbench keyed-archive [--records N] [--rounds R]     decode and encode, ratios
//   plistbench keyed-archive write FILE [--records N]       the generated archive (Foundation's bytes), for hyperfine
//   plistbench keyed-archive unarchive FILE                 read, plain-decode, write binary to stdout (a whole process)
enum KeyedArchiveBench {
    /// One field of a record, archived as Foundation archives it (string, number, NSDate, NSURL, NSArray).
    enum Field: Encodable {
        case string(String), int(Int), real(Double), bool(Bool), date(Date), url(URL), tags([String])
        func encode(to encoder: any Encoder) throws {
            var c = encoder.singleValueContainer()
            switch self {
            case .string(let v): try c.encode(v)
            case .int(let v): try c.encode(v)
            case .real(let v): try c.encode(v)
            case .bool(let v): try c.encode(v)
            case .date(let v): try c.encode(v)
            case .url(let v): try c.encode(v)
            case .tags(let v): try c.encode(v)
            }
        }
    }

    /// `records` dictionaries of strings, numbers, dates, URLs and a tag array.
    static func makeRecords(_ records: Int) -> [[String: Field]] {
        var state: UInt64 = 0x9E37_79B9
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        let words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "Zürich", "東京", "São Paulo", "Oslo"]
        return (0..<records).map { i in
            ["id": .int(i), "name": .string("\(words[Int(next() % 10)]) \(next() % 100_000)"),
             "score": .real(Double(next() % 1_000_000) / 7), "active": .bool(next() % 2 == 0),
             "created": .date(Date(timeIntervalSinceReferenceDate: Double(next() % 700_000_000))),
             "home": .url(URL(string: "https://example.com/users/\(i)/\(words[Int(next() % 6)])")!),
             "tags": .tags((0..<Int(next() % 5)).map { _ in words[Int(next() % 10)] })]
        }
    }

    static func archive(_ object: Any) -> Data {
        let a = NSKeyedArchiver(requiringSecureCoding: false)
        a.encode(object, forKey: NSKeyedArchiveRootObjectKey)
        a.finishEncoding()
        return a.encodedData
    }

    static func foundationDecode(_ data: Data) -> Any? {
        guard let u = try? NSKeyedUnarchiver(forReadingFrom: data) else { return nil }
        u.requiresSecureCoding = false
        u.decodingFailurePolicy = .setErrorAndReturn
        return u.decodeObject(forKey: NSKeyedArchiveRootObjectKey)
    }

    /// The Foundation objects for a plain value (what Foundation would archive for the same content).
    static func foundationObject(_ v: PlistValue) -> Any {
        switch v {
        case .string(let s): return NSString(string: s)
        case .integer(let i): return NSNumber(value: i.int64Value ?? 0)
        case .real(let r): return NSNumber(value: r.value)
        case .bool(let b): return NSNumber(value: b)
        case .date(let d): return NSDate(timeIntervalSinceReferenceDate: d.secondsSinceReferenceDate)
        case .data(let d): return NSData(data: d)
        case .array(let a): return NSArray(array: a.map(foundationObject))
        case .dictionary(let d): return NSDictionary(objects: d.values.map(foundationObject), forKeys: d.keys.map { NSString(string: $0) })
        case .uid: return NSNull()
        }
    }

    static func run(_ args: [String]) -> Int32 {
        var records = 40_000
        var rounds = 5
        var rest: [String] = []
        var i = 0
        while i < args.count {
            switch args[i] {
            case "--records" where i + 1 < args.count: records = Int(args[i + 1]) ?? records; i += 2
            case "--rounds" where i + 1 < args.count: rounds = Int(args[i + 1]) ?? rounds; i += 2
            default: rest.append(args[i]); i += 1
            }
        }
        if rest.first == "unarchive", rest.count == 2 {
            guard let bytes = readFile(rest[1]),
                  let out = try? KeyedArchiveTool.unarchive(bytes, to: .binary) else { return 1 }
            FileHandle.standardOutput.write(Data(out))
            return 0
        }
        // The archive is written by PlistKit's Codable encoder (NSArray, NSDictionary, NSDate, NSURL: classes
        // Foundation decodes): Foundation's own archiver takes hours at this size (below).
        guard let encoded = try? KeyedArchiveEncoder().encode(makeRecords(records)) else { return 1 }
        let bytes = Data(encoded)
        if rest.first == "write", rest.count == 2 {
            return FileManager.default.createFile(atPath: rest[1], contents: bytes) ? 0 : 1
        }
        guard rest.isEmpty else { return 64 }
        print("keyed-archive: \(records) records, archive \(bytes.count) bytes (binary, by KeyedArchiveEncoder), best of \(rounds) rounds")
        guard let plain = try? KeyedArchive(bytes).plainValue(), foundationDecode(bytes) != nil else {
            print("the archive does not decode"); return 1
        }
        var ours = UInt64.max, theirs = UInt64.max
        for _ in 0..<rounds {
            ours = min(ours, measure(iterations: 1) { try? KeyedArchive(bytes).plainValue() }[0])
            theirs = min(theirs, measure(iterations: 1) { foundationDecode(bytes) }[0])
        }
        func ms(_ ns: UInt64) -> String { fixed(Double(ns) / 1e6, 1) + " ms" }
        print("decode \(bytes.count) bytes  PlistKit \(ms(ours))  Foundation NSKeyedUnarchiver \(ms(theirs))  ratio \(fixed(Double(theirs) / Double(ours), 1))x")
        // Encoding the same content (URLs as strings: a plain value has no URL type). Foundation's archiver keys its
        // object map by AnyHashable, and NSArray/NSDictionary hash as their count, so every record collides with
        // every other: quadratic. Measured at sizes where it finishes, then PlistKit alone at full size.
        for n in [250, 500, 1000] where n <= records {
            guard case .array(let all) = plain else { break }
            let part = PlistValue.array(Array(all.prefix(n)))
            let same = foundationObject(part)
            var o = UInt64.max, t = UInt64.max
            for _ in 0..<max(1, rounds / 2) {
                o = min(o, measure(iterations: 1) { try? KeyedArchiver.archivedData(part, format: .binary) }[0])
                t = min(t, measure(iterations: 1) { archive(same) }[0])
            }
            print("encode \(n) records  PlistKit \(ms(o))  Foundation NSKeyedArchiver \(ms(t))  ratio \(fixed(Double(t) / Double(o), 1))x")
        }
        let full = measure(iterations: rounds) { try? KeyedArchiver.archivedData(plain, format: .binary) }.min() ?? 0
        print("encode \(records) records  PlistKit \(ms(full))")
        return 0
    }
}

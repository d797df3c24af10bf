import FoundationEssentials
@testable import PlistKit
import TestSupport

/// Generates random property-list values for differential tests. Each flag widens what is generated, so a test can
/// stay inside what the oracle it compares against supports.
struct RandomPlist {
    struct Config {
        var maxDepth = 4
        var maxCollection = 8
        var uids = false
        /// Strings with non-ASCII scalars (Latin-1, CJK, astral, combining marks, controls except NUL).
        var unicode = true
        /// Include U+0000 in strings.
        var nul = false
        /// Integers above Int64.max.
        var bigIntegers = true
        /// NaN and infinities in reals.
        var nonFiniteReals = true
        /// −0.0 in reals.
        var negativeZero = true
        /// Float32-width reals.
        var float32 = false
        /// Dates: whole seconds between these years.
        var dateYears: ClosedRange<Int64> = 1...9999
        /// Fractional seconds in dates.
        var fractionalDates = false
        var dates = true
        var data = true
    }

    var rng: SeededGenerator
    var config: Config

    init(seed: UInt64, config: Config = Config()) {
        rng = SeededGenerator(seed: seed)
        self.config = config
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }

    mutating func value(depth: Int = 0) -> PlistValue {
        switch int(0...(depth >= config.maxDepth ? 6 : 8)) {
        case 0: return .string(string())
        case 1: return .integer(integer())
        case 2: return .real(real())
        case 3: return .bool(Bool.random(using: &rng))
        case 4:
            if config.dates { return .date(date()) }
            return .string(string())
        case 5:
            if config.data { return .data(data()) }
            return .integer(integer())
        case 6:
            if config.uids && int(0...3) == 0 { return .uid(UID(UInt64(int(0...70000)))) }
            return .string(string())
        case 7:
            let n = int(0...config.maxCollection)
            return .array((0..<n).map { _ in value(depth: depth + 1) })
        default:
            let n = int(0...config.maxCollection)
            var d = PlistDictionary()
            for _ in 0..<n { d[string()] = value(depth: depth + 1) }
            return .dictionary(d)
        }
    }

    mutating func string() -> String {
        let n = int(0...12)
        var s = String.UnicodeScalarView()
        for _ in 0..<n {
            let pick = config.unicode ? int(0...9) : 0
            let scalar: UInt32
            switch pick {
            case 0...4: scalar = UInt32(int(0x20...0x7E))
            case 5: scalar = UInt32(int(0xA0...0x24F))
            case 6: scalar = UInt32(int(0x4E00...0x4F00))
            case 7: scalar = UInt32(int(0x1F600...0x1F64F))
            case 8: scalar = [0x301, 0xFF5E, 0xE000, 0xFFFD, 0x2028][int(0...4)]
            default: scalar = [0x09, 0x0A, 0x0D, 0x01, 0x1F, 0x26, 0x3C, 0x3E][int(0...7)]
            }
            s.append(Unicode.Scalar(scalar)!)
        }
        if config.nul && int(0...9) == 0 { s.append("\u{0}") }
        return String(s)
    }

    mutating func integer() -> PlistInteger {
        switch int(0...7) {
        case 0: return PlistInteger(Int64(int(-10...300)))
        case 1: return PlistInteger(Int64.random(in: Int64.min...Int64.max, using: &rng))
        case 2: return PlistInteger([Int64.min, Int64.max, 0, -1, 255, 256, 65535, 65536, 4294967295, 4294967296][int(0...9)])
        case 3 where config.bigIntegers: return PlistInteger(UInt64.random(in: UInt64(Int64.max)...UInt64.max, using: &rng))
        default: return PlistInteger(Int64(int(-100_000...100_000)))
        }
    }

    mutating func real() -> PlistReal {
        switch int(0...9) {
        case 0 where config.nonFiniteReals: return PlistReal([Double.nan, .infinity, -.infinity][int(0...2)])
        case 1 where config.negativeZero: return PlistReal(-0.0)
        case 2: return PlistReal(Double(int(-1000...1000)))
        case 3 where config.float32: return PlistReal(Float(Double(int(-1000...1000)) / 7))
        case 4: return PlistReal(Double(bitPattern: rng.next() & 0x7FEF_FFFF_FFFF_FFFF | (rng.next() & (1 << 63))))
        case 5: return PlistReal([0.1, 1e20, 1e-300, Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude, 0.5, 1.0 / 3][int(0...6)])
        default: return PlistReal(Double.random(in: -1e6...1e6, using: &rng))
        }
    }

    mutating func date() -> PlistDate {
        let year = Int64.random(in: config.dateYears, using: &rng)
        var seconds = PlistDateText.date(
            year: year, month: Int64(int(1...12)), day: Int64(int(1...28)),
            hour: Int64(int(0...23)), minute: Int64(int(0...59)), second: Int64(int(0...59))
        ).secondsSinceReferenceDate
        if config.fractionalDates { seconds += Double(int(0...999)) / 1000 }
        return PlistDate(secondsSinceReferenceDate: seconds)
    }

    mutating func data() -> Data {
        let n = [0, 1, 2, 3, 4, 20, 57, 58, 100, 300][int(0...9)]
        return Data((0..<n).map { _ in UInt8.random(in: 0...255, using: &rng) })
    }
}

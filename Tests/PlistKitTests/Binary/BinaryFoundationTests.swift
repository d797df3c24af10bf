import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// Differential tests against Foundation's `PropertyListSerialization` (Core Foundation's binary reader and writer),
/// run in-process.
@Suite struct BinaryFoundationTests {
    /// Foundation has no public UID, so none are generated; float32 reals are included (Foundation writes them as
    /// 4-byte reals, which must come back with their width).
    static func config() -> RandomPlist.Config {
        var config = RandomPlist.Config()
        config.float32 = true
        config.nul = true
        return config
    }

    @Test func readsFoundationWrittenBinary() throws {
        for seed in 0..<300 {
            var random = RandomPlist(seed: UInt64(seed), config: Self.config())
            let value = random.value()
            let data = try PropertyListSerialization.data(
                fromPropertyList: FoundationBridge.toFoundation(value), format: .binary, options: 0)
            let (read, format) = try PropertyList.read(data)
            #expect(format == .binary)
            #expect(read == value, "seed \(seed)")
        }
    }

    @Test func foundationReadsOurBinary() throws {
        for seed in 1000..<1300 {
            var random = RandomPlist(seed: UInt64(seed), config: Self.config())
            let value = random.value()
            let ours = Data(try PropertyList.writeBytes(value, format: .binary))
            var format = PropertyListSerialization.PropertyListFormat.xml
            let object = try PropertyListSerialization.propertyList(from: ours, options: [], format: &format)
            #expect(format == .binary)
            #expect(try FoundationBridge.fromFoundation(object) == value, "seed \(seed)")
        }
    }

    /// Foundation writes 4-byte reals for `Float`: the width survives our reader, and our writer writes it back
    /// as 4 bytes (`0x22`).
    @Test func float32WidthSurvivesARoundTrip() throws {
        let data = try PropertyListSerialization.data(
            fromPropertyList: [NSNumber(value: Float(1.5)), NSNumber(value: Double(1.5))], format: .binary, options: 0)
        let value = try PropertyList.read(data).value
        let elements = try #require(value.arrayValue)
        #expect(elements[0].realValue?.isFloat32 == true)
        #expect(elements[1].realValue?.isFloat32 == false)
        let ours = try PropertyList.writeBytes(value, format: .binary)
        #expect(ours.contains(0x22) && ours.contains(0x23))
        let again = try PropertyList.read(ours).value.arrayValue
        #expect(again?[0].realValue?.isFloat32 == true)
    }

    /// A length may be written as a 16-byte integer (CF and libplist read it; plistlib misreads the width): the value
    /// must be Foundation's. A high half that is not zero is refused, where CF would keep only the low 64 bits.
    @Test func sixteenByteLengthsReadAsFoundationReadsThem() throws {
        typealias F = BinaryFixture
        let sixteen = [UInt8(0x14)] + F.bigEndian(0, 8)
        let file = F([
            F.array([1, 2]),
            [0x5F] + sixteen + F.bigEndian(3, 8) + Array("abc".utf8),
            [0xAF] + sixteen + F.bigEndian(1, 8) + [1],
        ]).bytes
        let foundation = try FoundationBridge.fromFoundation(
            try PropertyListSerialization.propertyList(from: Data(file), format: nil))
        #expect(foundation == ["abc", ["abc"]])
        #expect(try PropertyList.read(file).value == foundation)

        let huge = F([[0x5F, 0x14] + F.bigEndian(1, 8) + F.bigEndian(3, 8) + Array("abc".utf8)]).bytes
        #expect(throws: PlistError.self) { try PropertyList.read(huge) }
        do { _ = try PropertyList.read(huge) } catch let e as PlistError {
            #expect(e.kind == .truncated && e.offset == 8, "\(e)")
        }
    }
}

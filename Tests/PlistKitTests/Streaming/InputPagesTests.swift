import Foundation
import Testing
@testable import PlistKit

/// Pages of a mapped input given back behind the reader: which ranges, only for a file mapping, and the output
/// unchanged.
@Suite struct InputPagesTests {
    /// Whole pages below the reader's position, once `step` bytes of them have gathered since the last release.
    @Test func releasesWholePagesBehindThePositionEveryStep() {
        func release(_ offset: Int, _ released: Int, count: Int = 100_000) -> Range<Int>? {
            InputPages.pagesToRelease(passed: offset, released: released, count: count, pageSize: 4096, step: 16384)
        }
        #expect(release(0, 0) == nil)
        #expect(release(16383, 0) == nil, "less than a step")
        #expect(release(16384, 0) == 0 ..< 16384, "exactly four pages")
        #expect(release(20000, 0) == 0 ..< 16384, "the page the position is in stays")
        #expect(release(20480, 0) == 0 ..< 20480)
        #expect(release(30000, 16384) == nil, "a step not yet gathered since the last")
        #expect(release(32768, 16384) == 16384 ..< 32768)
        #expect(release(200_000, 32768) == 32768 ..< 98304, "never past the last whole page of the mapping")
        #expect(release(200_000, 98304) == nil)
        #expect(release(-5, 0) == nil)
    }

    static func xmlFile(tracks: Int, format: PlistFormat = .xml) throws -> (path: String, bytes: [UInt8]) {
        var tracksDict = PlistDictionary()
        for i in 0 ..< tracks {
            tracksDict[String(i)] = ["Name": .string("Track \(i)"), "Size": .integer(PlistInteger(Int64(i * 31))), "Artist": "Somebody"]
        }
        let bytes = try PropertyList.writeBytes(["Tracks": .dictionary(tracksDict)], format: format)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("pages-\(UUID().uuidString).xml").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (path, bytes)
    }

    /// Released pages of a file mapping read again from the file: the bytes are the file's.
    @Test func releasedPagesOfAFileMappingReadBackTheFile() throws {
        let (path, bytes) = try Self.xmlFile(tracks: 3000)
        defer { unlink(path) }
        let mapped = try MappedInput(path: path)
        let pages = try #require(mapped.releasablePages())
        pages.passed(offset: 0)
        #expect(pages.released == 0)
        mapped.withUnsafeBytes { #expect(Array($0) == bytes) }
        let small = mapped.withUnsafeBytes { raw -> InputPages in
            let p = InputPages(mapping: raw.baseAddress!, count: raw.count, pageSize: InputPages.systemPageSize, step: InputPages.systemPageSize)
            p.passed(raw.baseAddress! + raw.count)
            return p
        }
        #expect(small.released > 0 && small.released <= bytes.count)
        mapped.withUnsafeBytes { #expect(Array($0) == bytes, "the released pages fault in again from the file") }
    }

    /// Only a file mapping has pages to give back; a pointer outside the mapping (a reader parsing a copy)
    /// releases nothing.
    @Test func onlyAFileMappingIsReleased() throws {
        let bytes: [UInt8] = Array(repeating: 0x41, count: 1 << 16)
        let copy = bytes.withUnsafeBytes { MappedInput(copying: $0) }
        #expect(copy.releasablePages() == nil)
        let (path, _) = try Self.xmlFile(tracks: 10)
        defer { unlink(path) }
        let mapped = try MappedInput(path: path)
        let pages = try #require(mapped.releasablePages())
        bytes.withUnsafeBytes { pages.passed($0.baseAddress! + $0.count) }
        #expect(pages.released == 0)
        #expect(copy.withUnsafeBytes { Array($0) } == bytes)
    }

    /// A conversion from a mapped file, pages released every page as the XML, JSON or GNUstep (old-style) reader
    /// passes them, gives the bytes of a conversion from an array and of the tree path, for each text output.
    @Test(arguments: [PlistFormat.xml, .json, .gnustep])
    func convertingAMappedFileGivesTheSameBytes(_ input: PlistFormat) throws {
        let (path, bytes) = try Self.xmlFile(tracks: input == .xml ? 7_000 : 11_000, format: input)
        defer { unlink(path) }
        #expect(bytes.count > 600 << 10)
        let mapped = try MappedInput(path: path)
        for format in [PlistFormat.xml, .json, .gnustep] {
            let expected = try PropertyList.writeBytes(try PropertyList.read(bytes).value, format: format)
            var fromArray: [UInt8] = []
            try bytes.withUnsafeBytes { _ = try PropertyList.convert($0, to: format) { fromArray.append(contentsOf: $0) } }
            var fromFile: [UInt8] = []
            try PropertyList.convert(mapped, to: format) { fromFile.append(contentsOf: $0) }
            var released = 0
            var everyPage: [UInt8] = []
            try mapped.withUnsafeBytes { raw in
                let pages = InputPages(mapping: raw.baseAddress!, count: raw.count, step: InputPages.systemPageSize)
                _ = try PropertyList.convert(raw, to: format, options: PlistWriteOptions(), readOptions: PlistReadOptions(),
                                             eventLogMemory: PropertyList.eventLogMemory, sharingAllowance: PropertyList.sharingAllowance,
                                             pages: pages) { everyPage.append(contentsOf: $0) }
                released = pages.released
            }
            #expect(fromArray == expected && fromFile == expected && everyPage == expected, "\(input) → \(format)")
            #expect(released > 0 && released >= bytes.count - (300 << 10), "\(input) → \(format): pages up to the last chunk read are released (\(released))")
        }
        mapped.withUnsafeBytes { #expect(Array($0) == bytes) }
    }
}

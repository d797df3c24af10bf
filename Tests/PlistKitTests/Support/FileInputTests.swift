import Foundation
import Testing
import PlistKit

/// `FileInput.readAll` on real descriptors: to the end, or to one byte past the limit; errors as `Errno`.
@Suite struct FileInputTests {
    /// A pipe holding `bytes`, its write end closed, so a read sees them and then the end.
    private func pipeHolding(_ bytes: [UInt8]) throws -> Int32 {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let writeEnd = ends[1]
        let writer = Thread {
            bytes.withUnsafeBytes { raw in
                var done = 0
                while done < raw.count {
                    let n = write(writeEnd, raw.baseAddress! + done, raw.count - done)
                    if n <= 0 { break }
                    done += n
                }
            }
            close(writeEnd)
        }
        writer.start()
        return ends[0]
    }

    @Test func readsToTheEndInManyChunks() throws {
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let fd = try pipeHolding(bytes)
        defer { close(fd) }
        #expect(try FileInput.readAll(fd, limit: 1 << 20) == bytes)
    }

    @Test func stopsOneBytePastTheLimit() throws {
        let exactly = try pipeHolding(Array(repeating: 1, count: 100))
        defer { close(exactly) }
        #expect(try FileInput.readAll(exactly, limit: 100).count == 100)
        // /dev/zero never ends: the read stops at limit + 1.
        let zero = open("/dev/zero", O_RDONLY)
        try #require(zero >= 0)
        defer { close(zero) }
        #expect(try FileInput.readAll(zero, limit: 70_000).count == 70_001)
        #expect(try FileInput.readAll(zero, limit: 0).count == 1)
    }

    @Test func reportsTheErrnoOfAFailedRead() throws {
        let directory = open("/", O_RDONLY | O_DIRECTORY)
        try #require(directory >= 0)
        defer { close(directory) }
        #expect(throws: Errno.isDirectory) { try FileInput.readAll(directory, limit: 10) }
        #expect(throws: Errno(EBADF)) { try FileInput.readAll(-1, limit: 10) }
    }
}

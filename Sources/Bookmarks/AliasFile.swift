import CSystem
import PlistKit
import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Alias files: what `writeBookmarkData(_:to:)` writes and `bookmarkData(withContentsOf:)` reads.
///
/// The data fork of a Finder alias is the bookmark's data area behind a 56-byte header
/// (`"book" 0 "mark" 0 | u32 56 | u32 56 | u32 size | u32 0x10040000 | … | f64 time at 0x28`), with every item
/// offset still relative to the end of that header (as the blobs macOS writes show; the header is only partly
/// understood, so the reader checks only what it relies on). Linux has no Finder flag; the `.alias` extension marks the file.
public enum AliasFile {
    static let headerSize = 56

    /// Wraps bare bookmark data in the alias-file layout.
    public static func wrap(_ bookmark: [UInt8], limits: BookLimits = BookLimits()) throws(BookmarkError) -> [UInt8] {
        let c = try BookContainer.read(bookmark, limits: limits)
        let data = Array(bookmark[c.headerSize...])
        var out = Array("book".utf8) + [0, 0, 0, 0] + Array("mark".utf8) + [0, 0, 0, 0]
        out += BookWriter.le(UInt64(headerSize), 4) + BookWriter.le(UInt64(headerSize), 4)
        out += BookWriter.le(UInt64(headerSize + data.count), 4)
        out += BookWriter.le(UInt64(c.version), 4)
        out += [UInt8](repeating: 0, count: 8)
        let time = (try? BookmarkRecord(container: c))?.creationTime ?? 0
        out += BookWriter.le(time.bitPattern, 8)
        out += [UInt8](repeating: 0, count: headerSize - out.count)
        return out + data
    }

    /// Bare bookmark data from either an alias file's bytes or a bare `book` blob.
    public static func unwrap(_ bytes: [UInt8], limits: BookLimits = BookLimits()) throws(BookmarkError) -> [UInt8] {
        guard bytes.count <= limits.maxInputSize else { throw .corruptData(.tooLarge(size: bytes.count, limit: limits.maxInputSize), offset: 0) }
        let aliasMagic = Array("book".utf8) + [0, 0, 0, 0] + Array("mark".utf8) + [0, 0, 0, 0]
        guard bytes.count >= 16, Array(bytes[0..<16]) == aliasMagic else {
            _ = try BookContainer.read(bytes, limits: limits)
            return bytes
        }
        guard bytes.count >= 32 else { throw .corruptData(.truncated(needed: 32, available: bytes.count), offset: 16) }
        let h = Int(UInt32(bytes[16]) | UInt32(bytes[17]) << 8 | UInt32(bytes[18]) << 16 | UInt32(bytes[19]) << 24)
        guard h >= 32, h % 4 == 0, h <= bytes.count - 4 else { throw .corruptData(.badHeaderSize(h), offset: 16) }
        // Re-home the data area behind a standard 48-byte header: offsets are relative to the header end, so they hold.
        var bare = Array("book".utf8)
        bare += BookWriter.le(UInt64(BookContainer.standardHeaderSize + bytes.count - h), 4)
        bare += Array(bytes[28..<32])
        bare += BookWriter.le(UInt64(BookContainer.standardHeaderSize), 4)
        bare += [UInt8](repeating: 0, count: 32)
        bare += bytes[h...]
        do {
            _ = try BookContainer.read(bare, limits: limits)
        } catch {
            // Report offsets in the caller's file, not in the re-homed copy.
            if case .corruptData(let reason, let offset) = error { throw .corruptData(reason, offset: offset - BookContainer.standardHeaderSize + h) }
            throw error
        }
        return bare
    }
}

extension Bookmark {
    /// Writes an alias file. Like Apple, requires data made with `.suitableForBookmarkFile`; a directory
    /// destination gets the target's name, and the file name is given the `.alias` extension.
    /// Returns the path written.
    @discardableResult
    public static func writeBookmarkData(_ data: [UInt8], to url: URL) throws(BookmarkError) -> URL {
        let c = try BookContainer.read(data)
        let record = try BookmarkRecord(container: c)
        guard record.options.contains(.suitableForBookmarkFile) else {
            throw .invalidArgument("bookmark data was not created with .suitableForBookmarkFile")
        }
        var path = url.path
        if case .success(let status) = Sys.statx(CSYSTEM_AT_FDCWD, Array(path.utf8)), status.mode & S_IFMT == S_IFDIR {
            let name = record.displayName ?? record.components.last.map { String(decoding: $0, as: UTF8.self) } ?? "bookmark"
            path += (path.hasSuffix("/") ? "" : "/") + name
        }
        if !path.hasSuffix(".alias") { path += ".alias" }
        let bytes = try AliasFile.wrap(data)
        // Atomically: an alias being replaced stays whole if the disk fills or the process dies mid-write.
        do {
            try AtomicFile.replace(path, with: bytes)
        } catch {
            throw .systemCall(error.operation, error.systemError, path: path)
        }
        return URL(fileURLWithPath: path)
    }

    /// Reads bookmark data from an alias file or a file holding a bare blob (refuses directories and symlinks).
    public static func bookmarkData(withContentsOf url: URL, limits: BookLimits = BookLimits()) throws(BookmarkError) -> [UInt8] {
        let path = url.path
        let fd: Int32
        switch Sys.openAt(CSYSTEM_AT_FDCWD, Array(path.utf8), O_RDONLY | O_NOFOLLOW) {
        case .success(let opened): fd = opened
        case .failure(let error): throw .failure("open", error, path: path)
        }
        defer { Sys.close(fd) }
        guard case .success(let status) = Sys.statx(fd, [], emptyPath: true), status.mode & S_IFMT == S_IFREG else {
            throw .invalidArgument("\(path) is not a regular file")
        }
        let bytes: [UInt8]
        do {
            bytes = try FileInput.readAll(fd, limit: limits.maxInputSize)
        } catch {
            throw .systemCall("read", error, path: path)
        }
        guard bytes.count <= limits.maxInputSize else {
            // The file's own size (the read stopped one byte past the limit).
            throw .corruptData(.tooLarge(size: max(bytes.count, Int(clamping: status.size)), limit: limits.maxInputSize), offset: 0)
        }
        return try AliasFile.unwrap(bytes, limits: limits)
    }
}

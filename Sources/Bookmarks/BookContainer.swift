/// Apple's `book` bookmark layout: a header, typed items and one or more TOCs sorted by key.
///
/// Reading is strict and bounded (see `BookLimits`): every offset is checked before use, TOC chains are
/// loop-checked, nesting and item visits are capped, and every failure is a `BookmarkError.corruptData`
/// carrying the offset of the offending byte.
public struct BookContainer: Sendable, Equatable {
    /// The header word at offset 8 (0x10040000 in every known Apple blob).
    public static let currentVersion: UInt32 = 0x1004_0000
    /// Header size of a bare bookmark blob.
    public static let standardHeaderSize = 48

    /// One TOC entry, with the offset (from the blob start) of its value item.
    public struct Entry: Sendable, Equatable {
        public var key: BookKey
        public var value: BookValue
        public var offset: Int
        public init(key: BookKey, value: BookValue, offset: Int = 0) {
            self.key = key
            self.value = value
            self.offset = offset
        }
    }

    /// One TOC: its id (1 = main) and its entries in stored order.
    public struct TOC: Sendable, Equatable {
        public var id: UInt32
        public var entries: [Entry]
        public init(id: UInt32, entries: [Entry]) {
            self.id = id
            self.entries = entries
        }
    }

    public var version: UInt32
    public var headerSize: Int
    /// The 32 header bytes after `headerSize` (zero except in security-scoped blobs); preserved, not interpreted.
    public var reserved: [UInt8]
    public var tocs: [TOC]

    public init(version: UInt32 = BookContainer.currentVersion, reserved: [UInt8] = [], tocs: [TOC]) {
        self.version = version
        self.headerSize = BookContainer.standardHeaderSize
        self.reserved = reserved
        self.tocs = tocs
    }

    /// Looks a key up in TOC 1 first, then in the other TOCs in order.
    public func value(for key: BookKey) -> BookValue? {
        for toc in tocs.sorted(by: { ($0.id == 1 ? 0 : 1) < ($1.id == 1 ? 0 : 1) }) {
            if let e = toc.entries.first(where: { $0.key == key }) { return e.value }
        }
        return nil
    }

    /// The value for an Apple numeric key.
    public subscript(key: UInt32) -> BookValue? { value(for: .numeric(key)) }
    /// The value for a string key.
    public subscript(key: String) -> BookValue? { value(for: .string(key)) }

    /// Parses a bare `book` blob.
    public static func read(_ bytes: [UInt8], limits: BookLimits = BookLimits()) throws(BookmarkError) -> BookContainer {
        let result = bytes.withUnsafeBytes { raw -> Result<BookContainer, BookmarkError> in
            var reader = BookReader(bytes: raw, limits: limits)
            do throws(BookmarkError) { return .success(try reader.readContainer()) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Serialises with TOC 1 (and any others) sorted by key, data items first and the TOC last, like Apple.
    public func write(limits: BookLimits = BookLimits()) throws(BookmarkError) -> [UInt8] {
        try BookWriter.write(self, limits: limits)
    }
}

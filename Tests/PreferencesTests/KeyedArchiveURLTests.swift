import Foundation
import PlistKit
import Testing
@testable import Preferences

/// `KeyedArchiveURL`: the `NSURL` archives Apple's `set(_: URL, forKey:)` stores, made here by Foundation's
/// `NSKeyedArchiver`, read back as Foundation's own `absoluteURL`; anything else is nil.
@Suite struct KeyedArchiveURLTests {
    static func archive(_ root: Any, xml: Bool = false) -> Data {
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.outputFormat = xml ? .xml : .binary
        archiver.encode(root, forKey: NSKeyedArchiveRootObjectKey)
        archiver.finishEncoding()
        return archiver.encodedData
    }

    static func urls() -> [NSURL] { [
        NSURL(string: "https://example.com/x?y=1#f")!,
        NSURL(fileURLWithPath: "/tmp/a b/ü.txt"),
        NSURL(string: "foo.xml", relativeTo: URL(string: "https://www.example.com/dir/"))!,
        NSURL(string: "../up/file", relativeTo: URL(string: "inner/", relativeTo: URL(string: "https://h.example/a/b/")))!,
    ] }

    /// A web URL, a file URL, a URL relative to a base, and one whose base has a base of its own.
    @Test(arguments: 0..<4)
    func readsFoundationsArchive(_ index: Int) throws {
        let url = Self.urls()[index]
        let expected = try #require(url.absoluteURL)
        #expect(KeyedArchiveURL.url(from: Self.archive(url)) == expected)
    }

    @Test func anythingElseIsNil() throws {
        // Only Apple's binary form is taken for a URL; other archives and other roots are not URLs.
        #expect(KeyedArchiveURL.url(from: Self.archive(NSURL(string: "https://example.com")!, xml: true)) == nil)
        #expect(KeyedArchiveURL.url(from: Self.archive("https://example.com" as NSString)) == nil)
        #expect(KeyedArchiveURL.url(from: Self.archive(["https://example.com"] as NSArray)) == nil)
        #expect(KeyedArchiveURL.url(from: Data("bplist00".utf8)) == nil)
        #expect(KeyedArchiveURL.url(from: Data()) == nil)
    }

    /// Archives shaped like a URL's but broken: a relative part past the table, a `$class` that is no class, a base
    /// that is its own base, a relative part that is not a string. Nil for each, never a crash or a loop.
    @Test func brokenURLArchivesAreNil() throws {
        func archive(_ root: PlistValue, _ more: [PlistValue] = []) throws -> Data {
            let objects: [PlistValue] = ["$null", root, ["$classname": "NSURL", "$classes": ["NSURL", "NSObject"]], "https://a.example/"] + more
            let plist: PlistValue = ["$archiver": "NSKeyedArchiver", "$version": 100_000, "$top": ["root": .uid(UID(1))],
                                     "$objects": .array(objects)]
            return Data(try PropertyList.writeBytes(plist, format: .binary))
        }
        // The well-formed one reads, so the broken ones fail for the reason each shows.
        #expect(KeyedArchiveURL.url(from: try archive(["$class": .uid(UID(2)), "NS.base": .uid(UID(0)), "NS.relative": .uid(UID(3))]))
            == URL(string: "https://a.example/"))
        let broken: [PlistValue] = [
            ["$class": .uid(UID(2)), "NS.base": .uid(UID(0)), "NS.relative": .uid(UID(40))],
            ["$class": .uid(UID(3)), "NS.base": .uid(UID(0)), "NS.relative": .uid(UID(3))],
            ["$class": .uid(UID(2)), "NS.base": .uid(UID(1)), "NS.relative": .uid(UID(3))],
            ["$class": .uid(UID(2)), "NS.base": .uid(UID(0)), "NS.relative": .uid(UID(2))],
            ["$class": .uid(UID(2)), "NS.base": .uid(UID(0))],
        ]
        for root in broken {
            #expect(KeyedArchiveURL.url(from: try archive(root)) == nil, "\(root)")
        }
    }
}

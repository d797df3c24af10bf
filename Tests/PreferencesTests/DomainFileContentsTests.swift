import Foundation
import PlistKit
import Synchronization
import Testing
@testable import Preferences

/// One decode per load decides what a domain file holds (`DomainFileContents`), and a damaged managed file is
/// reported with its own event and left alone.
@Suite struct DomainFileContentsTests {
    /// PlistKit's codec, counting its decodes.
    final class CountingCodec: PreferencesCodec {
        let decodes = Atomic<Int>(0)
        let inner = PlistKitCodec()
        func decode(_ bytes: [UInt8]) throws -> PlistValue {
            decodes.add(1, ordering: .relaxed)
            return try inner.decode(bytes)
        }
        func encode(_ value: PlistValue, format: PlistFormat) throws -> [UInt8] { try inner.encode(value, format: format) }
        var count: Int { decodes.load(ordering: .relaxed) }
    }

    @Test func classifiesEachKindOfBytes() throws {
        let codec = PlistKitCodec()
        let dictionary = try codec.encode(["k": "v"], format: .binary)
        guard case .values(let values) = DomainFileContents(dictionary, codec: codec) else { Issue.record("not values"); return }
        #expect(values == ["k": "v"])
        guard case .empty = DomainFileContents([], codec: codec) else { Issue.record("not empty"); return }
        let array = try codec.encode(["a"], format: .xml)
        guard case .damaged(let rootReason) = DomainFileContents(array, codec: codec) else { Issue.record("not damaged"); return }
        #expect(rootReason == "the root is an array, not a dictionary")
        guard case .damaged(let parseReason) = DomainFileContents(Array("{{{ not a plist".utf8), codec: codec) else {
            Issue.record("not damaged")
            return
        }
        #expect(!parseReason.isEmpty)
        #expect(DomainFileContents([], codec: codec).damageReason == "the file is empty")
    }

    @Test(arguments: [true, false])
    func aDamagedFileIsDecodedOnce(_ ownFile: Bool) throws {
        let dir = TempDirectory()
        let codec = CountingCodec()
        let env = dir.environment { $0.codec = codec }
        let path = dir.locations.path(domain: "once")
        try dir.writePlist(["keep": "me"], to: path)
        let good = try Data(contentsOf: URL(fileURLWithPath: path))
        try good.prefix(good.count / 2).write(to: URL(fileURLWithPath: path))
        let file = ownFile
            ? env.persistentFile("once")
            : env.file(domain: "once", path: path, readOnly: false, movesDamagedAside: false)
        #expect(file.snapshot().isEmpty)
        #expect(codec.count == 1, "decodes: \(codec.count)")
    }

    @Test func aDamagedManagedFileIsReportedAndLeftAsItIs() throws {
        let dir = TempDirectory()
        let env = dir.environment()
        let log = EventLog(env)
        let path = dir.locations.managedPath(domain: "com.example.managed")
        try dir.writePlist(["forced": 1], to: path)
        let damaged = Data("<plist><dict><key>forced</key></dict></plist>".utf8)
        try damaged.write(to: URL(fileURLWithPath: path))
        #expect(env.managedFile("com.example.managed").snapshot().isEmpty)
        let ignored = log.events.compactMap { event -> (String, String)? in
            if case .managedFileIgnored(let domain, let at, let reason) = event { return (domain, at + " " + reason) }
            return nil
        }
        try #require(ignored.count == 1, "\(log.events)")
        #expect(ignored[0].0 == "com.example.managed")
        #expect(ignored[0].1.hasPrefix(path + " "))
        #expect(!log.events.contains { if case .corruptFileMovedAside = $0 { return true } else { return false } })
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == damaged)
        let siblings = try FileManager.default.contentsOfDirectory(atPath: (path as NSString).deletingLastPathComponent)
        #expect(siblings == [(path as NSString).lastPathComponent])
    }
}

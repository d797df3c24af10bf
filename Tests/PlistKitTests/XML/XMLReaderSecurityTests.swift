import Foundation
import Testing
@testable import PlistKit
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Hostile inputs: entity expansion, external entities, resource caps, concurrency, and libxml2's console output.
@Suite struct XMLReaderSecurityTests {
    typealias T = XMLReaderTesting

    @Test func billionLaughsIsRefusedWhereTheInternalSubsetStarts() throws {
        var decls = "<!ENTITY lol0 \"lol\">\n"
        for i in 1...9 {
            decls += "<!ENTITY lol\(i) \"" + String(repeating: "&lol\(i - 1);", count: 10) + "\">\n"
        }
        let doc = "<?xml version=\"1.0\"?>\n<!DOCTYPE plist [\n\(decls)]>\n<plist><string>&lol9;</string></plist>\n"
        let start = ContinuousClock.now
        let e = try #require(T.error(doc))
        #expect(ContinuousClock.now - start < .seconds(1))
        #expect(e.kind == .forbiddenConstruct, "\(e)")
        #expect(e.line == 2 && e.column == 17, "\(e)")
        #expect(e.message.contains("internal DTD subset"), "\(e)")
    }

    @Test func externalEntityOnALocalFileIsNotRead() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("xmlreader-xxe-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let secret = dir.appendingPathComponent("secret.txt")
        try Data("TOP-SECRET-CONTENT".utf8).write(to: secret)
        for doc in [
            "<!DOCTYPE plist [<!ENTITY xxe SYSTEM \"\(secret.absoluteString)\">]><plist><string>&xxe;</string></plist>",
            "<!DOCTYPE plist [<!ENTITY % p SYSTEM \"\(secret.path)\"> %p;]><plist><string>x</string></plist>",
            "<!DOCTYPE plist [<!ENTITY xxe SYSTEM \"\(secret.path)\" NDATA gif>]><plist><string>x</string></plist>",
        ] {
            let e = try #require(T.error(doc), "accepted \(doc)")
            #expect(e.kind == .forbiddenConstruct, "\(e)")
            #expect(!e.message.contains("TOP-SECRET"))
        }
    }

    @Test func nothingIsFetchedOverTheNetwork() throws {
        let listener = try LocalListener()
        let url = "http://127.0.0.1:\(listener.port)"
        let refused = [
            "<!DOCTYPE plist [<!ENTITY xxe SYSTEM \"\(url)/e\">]><plist><string>&xxe;</string></plist>",
            "<!DOCTYPE plist [<!ENTITY % p SYSTEM \"\(url)/p.dtd\"> %p;]><plist><true/></plist>",
        ]
        for doc in refused {
            #expect(T.error(doc)?.kind == .forbiddenConstruct, "\(doc)")
        }
        // An external DTD reference alone is accepted (like Apple's DOCTYPE) but never loaded.
        let dtdOnly = "<!DOCTYPE plist SYSTEM \"\(url)/PropertyList-1.0.dtd\"><plist><string>&amp;</string></plist>"
        #expect(try T.read(dtdOnly) == "&")
        let publicID = "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"\(url)/x.dtd\"><plist><true/></plist>"
        #expect(try T.read(publicID) == true)
        #expect(listener.connectionAttempts() == 0, "the reader connected to \(url)")
    }

    /// Core Foundation refuses any internal subset, even one without entities (Foundation runs its parser here).
    @Test func anInternalSubsetIsRefusedAsCoreFoundationRefusesIt() throws {
        for doc in ["<!DOCTYPE plist [<!ELEMENT plist ANY><!ATTLIST plist version CDATA \"1.0\">]><plist><integer>3</integer></plist>",
                    "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"x.dtd\" [ ]><plist><integer>3</integer></plist>",
                    "<!DOCTYPE plist [<!-- ] -->]><plist><integer>3</integer></plist>"] {
            let e = try #require(T.error(doc), "accepted: \(doc)")
            #expect(e.kind == .forbiddenConstruct && e.offset == doc.utf8.firstIndex(of: 0x5B).map { doc.utf8.distance(from: doc.utf8.startIndex, to: $0) }, "\(e)")
            #expect(T.foundation(doc) == nil, "Foundation accepts \(doc)")
        }
        // A DOCTYPE without one reads.
        #expect(try T.read("<!DOCTYPE plist SYSTEM \"x.dtd\"><plist><integer>3</integer></plist>") == 3)
    }

    @Test func undeclaredEntityIsAnError() throws {
        let e = try #require(T.error(T.plist("<string>&copy;</string>")))
        #expect(e.kind == .syntax)
        #expect(e.line == 4)
    }

    @Test func libxml2PrintsNothingToStandardError() throws {
        let captured = try captureStandardError {
            for doc in ["<plist><string>a</plist>", "<plist>&bad;</plist>", "<!DOCTYPE plist [<!ENTITY a \"b\">]><plist/>",
                        "<plist><x:y/></plist>", "<plist><string>\u{1}</string></plist>", "<?xml version=\"1.0\" encoding=\"nope\"?><plist/>"] {
                _ = T.error(doc)
            }
            // A conversion error inside libxml2 (no parser context): bytes invalid in the declared Shift_JIS.
            _ = T.error(Array("<?xml version=\"1.0\" encoding=\"Shift_JIS\"?><plist><string>".utf8) + [0x81, 0x0A, 0xFF, 0xFF]
                        + Array("</string></plist>".utf8))
        }
        for marker in ["parser error", "parser warning", "namespace error", "Entity: line", "encoding error", "I/O error"] {
            #expect(!captured.contains(marker), "libxml2 wrote to stderr: \(captured)")
        }
    }

    @Test func readersRunConcurrently() async throws {
        let docs: [(String, PlistValue?)] = [
            (T.plist("<dict><key>a</key><array><integer>1</integer><real>2.5</real></array></dict>"), ["a": [1, 2.5]]),
            (T.plist("<string>é😀</string>"), "é😀"),
            ("<plist><integer>x</integer></plist>", nil),
            ("<!DOCTYPE plist [<!ENTITY a \"b\">]><plist/>", nil),
            ("<plist>" + String(repeating: "<array>", count: 600), nil),
        ]
        try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<16 {
                group.addTask {
                    var checked = 0
                    for round in 0..<100 {
                        let (doc, expected) = docs[(worker + round) % docs.count]
                        let got = try? T.read(doc)
                        if got != expected { Issue.record("worker \(worker): \(doc.prefix(40)) gave \(String(describing: got))") }
                        checked += 1
                    }
                    return checked
                }
            }
            var total = 0
            for try await n in group { total += n }
            #expect(total == 1600)
        }
    }

    /// Seeded byte-level mutations of every valid corpus file (flips, truncations, insertions of markup bytes):
    /// each must give a value or a positioned `PlistError`, never a crash or a hang.
    @Test func mutatedCorpusFilesNeverCrash() throws {
        let dir = CorpusTests.root.appendingPathComponent("xml")
        let files = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".plist") }.sorted()
        #expect(files.count >= 20)
        var rng = SeededGenerator(seed: 2024)
        let interesting: [UInt8] = Array("<>/&;!?[]-\"'=#x0\u{0}".utf8) + [0xFF, 0xC3, 0xE2, 0x00]
        var errors = 0
        for file in files {
            let original = try [UInt8](Data(contentsOf: dir.appendingPathComponent(file)))
            for _ in 0..<150 {
                var bytes = original
                for _ in 0..<Int.random(in: 1...4, using: &rng) where !bytes.isEmpty {
                    let i = Int.random(in: 0..<bytes.count, using: &rng)
                    switch Int.random(in: 0...3, using: &rng) {
                    case 0: bytes[i] = interesting[Int.random(in: 0..<interesting.count, using: &rng)]
                    case 1: bytes[i] ^= UInt8(1) << UInt8(Int.random(in: 0...7, using: &rng))
                    case 2: bytes.removeSubrange(i...)
                    default: bytes.insert(interesting[Int.random(in: 0..<interesting.count, using: &rng)], at: i)
                    }
                }
                if let e = T.error(bytes) {
                    errors += 1
                    #expect(e.format == .xml && (e.offset != nil || e.line != nil), "\(file): \(e)")
                }
            }
        }
        #expect(errors > 1000, "mutations should mostly break documents (\(errors) errors)")
    }

    @Test func gzipCompressedXMLThroughTheFacade() throws {
        guard let gzip = ExternalTool.find("gzip") else {
            Issue.record("gzip is not installed: cannot make compressed input")
            return
        }
        let doc = T.plist("<dict><key>k</key><string>compressed</string></dict>")
        let compressed = try ExternalTool.run(gzip, ["-c"], input: Data(doc.utf8))
        #expect(compressed.status == 0)
        #expect(compressed.stdout.prefix(2) == Data([0x1F, 0x8B]))
        let (value, format) = try PropertyList.read(compressed.stdout)
        #expect(format == .xml)
        #expect(value == ["k": "compressed"])
    }

    @Test func gzipBombIsASizeError() throws {
        guard let gzip = ExternalTool.find("gzip") else {
            Issue.record("gzip is not installed: cannot make compressed input")
            return
        }
        let zeros = Data(count: 8 << 20)
        let bomb = try ExternalTool.run(gzip, ["-9", "-c"], input: zeros)
        #expect(bomb.stdout.count < 64 << 10)
        var options = PlistReadOptions()
        options.maxDecompressedSize = 1 << 20
        do {
            _ = try PropertyList.read(bomb.stdout, options: options)
            Issue.record("a gzip bomb was accepted")
        } catch let e as PlistError {
            #expect(e.kind == .sizeLimit, "\(e)")
        }
    }
}

/// A TCP socket on 127.0.0.1 that never answers; it only counts who tried to connect.
final class LocalListener {
    let fd: Int32
    let port: UInt16

    init() throws {
        struct Failed: Error {}
        let sock = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard sock >= 0 else { throw Failed() }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        let bound = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(sock, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(sock, 16) == 0 else { close(sock); throw Failed() }
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(sock, $0, &len) }
        }
        _ = fcntl(sock, F_SETFL, fcntl(sock, F_GETFL) | O_NONBLOCK)
        fd = sock
        port = UInt16(bigEndian: addr.sin_port)
    }

    /// Connections queued so far (each is accepted and closed).
    func connectionAttempts() -> Int {
        var n = 0
        while true {
            let c = accept(fd, nil, nil)
            if c < 0 { return n }
            close(c)
            n += 1
        }
    }

    deinit { close(fd) }
}

/// Runs `body` with file descriptor 2 redirected to a pipe and returns what was written there.
func captureStandardError(_ body: () throws -> Void) throws -> String {
    struct Failed: Error {}
    var fds: [Int32] = [0, 0]
    guard pipe(&fds) == 0 else { throw Failed() }
    fflush(nil)
    let saved = dup(2)
    dup2(fds[1], 2)
    close(fds[1])
    defer {
        fflush(nil)
        dup2(saved, 2)
        close(saved)
    }
    try body()
    fflush(nil)
    dup2(saved, 2)
    _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)
    var out = [UInt8]()
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = read(fds[0], &buffer, buffer.count)
        if n <= 0 { break }
        out += buffer[0..<n]
    }
    close(fds[0])
    return String(decoding: out, as: UTF8.self)
}

import Foundation
import Testing
@testable import PlistKit
import TestSupport

/// Differential tests against Python's `nska-deserialize` 1.5.1 and `bpylist2` 4.1.1 (PyPI, installed by
/// `scripts/setup` into `.venv/`): every fixture, every valid Corpus archive, and 500 random archives of ours.
///
/// Both oracles are narrower than the plain decoding, and the comparison allows exactly their documented losses:
/// nska gives `''` for nil and `{}` for NSNull, and leaves every class but arrays, sets, dictionaries, strings and
/// UUIDs as a dictionary of its fields (so where we decode such a class, the subtree is not compared); bpylist2 reads
/// binary only, returns sets unordered and refuses classes outside its eight.
@Suite struct KeyedArchivePythonTests {
    static let python: String? = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        let py = url.appendingPathComponent(".venv/bin/python").path
        guard FileManager.default.isExecutableFile(atPath: py),
              let r = try? ExternalTool.run(py, ["-c", "import nska_deserialize, bpylist2"]), r.status == 0 else { return nil }
        return py
    }()
    static let reason: Comment = ".venv with nska-deserialize and bpylist2 is missing (run scripts/setup)"

    /// Prints, per file on argv, one JSON line: {"nska": typed value or {"error"}, "bpylist2": …}, in the Corpus's
    /// typed-JSON notation.
    static let script = #"""
    import sys, io, json, base64, datetime, math
    import nska_deserialize as nska
    from bpylist2 import archiver, archive_types
    REF = datetime.datetime(2001, 1, 1, tzinfo=datetime.timezone.utc)
    def real(x):
        if math.isnan(x): return "nan"
        if math.isinf(x): return "inf" if x > 0 else "-inf"
        if x == 0 and math.copysign(1, x) < 0: return "-0"
        return x
    def typed(v):
        if v is None: return {"none": True}
        if isinstance(v, bool): return {"bool": v}
        if isinstance(v, archive_types.timestamp): return {"date": float(v) - 978307200}
        if isinstance(v, int): return {"integer": str(v)}
        if isinstance(v, float): return {"real": real(v)}
        if isinstance(v, str): return {"string": v}
        if isinstance(v, (bytes, bytearray)): return {"data": base64.b64encode(bytes(v)).decode()}
        if isinstance(v, archive_types.NSMutableData): return typed(v.NSdata)
        if isinstance(v, datetime.datetime):
            if v.tzinfo is None: v = v.replace(tzinfo=datetime.timezone.utc)
            return {"date": (v - REF).total_seconds()}
        if isinstance(v, (list, tuple)): return {"array": [typed(e) for e in v]}
        if isinstance(v, (set, frozenset)): return {"set": [typed(e) for e in v]}
        if isinstance(v, dict): return {"dict": [[str(k), typed(e)] for k, e in v.items()]}
        if hasattr(v, "data") and type(v).__name__ == "UID": return {"uid": v.data}
        return {"error": "unconvertible " + type(v).__name__}
    # nska prints some of its complaints to stdout: keep them apart from the results.
    results = sys.stdout
    sys.stdout = io.StringIO()
    for path in sys.argv[1:]:
        out = {}
        raw = open(path, "rb").read()
        try:
            out["nska"] = typed(nska.deserialize_plist_from_string(raw, full_recurse_convert_nska=False))
        except BaseException as e:
            out["nska"] = {"error": type(e).__name__}
        try:
            out["bpylist2"] = typed(archiver.unarchive(raw))
        except BaseException as e:
            out["bpylist2"] = {"error": type(e).__name__}
        results.write(json.dumps(out) + "\n")
    """#

    /// Runs the oracles over `files`; per file, what each gave.
    static func oracles(_ files: [String]) throws -> [(nska: JSONValue, bpylist2: JSONValue)] {
        guard let py = python else { return [] }
        var out: [(JSONValue, JSONValue)] = []
        for chunk in stride(from: 0, to: files.count, by: 200).map({ Array(files[$0..<min($0 + 200, files.count)]) }) {
            let r = try ExternalTool.run(py, ["-c", script] + chunk)
            #expect(r.status == 0, "\(String(decoding: r.stderr, as: UTF8.self))")
            for line in String(decoding: r.stdout, as: UTF8.self).split(separator: "\n") {
                guard let j = try? JSONValue.parse(Data(line.utf8)) else {
                Issue.record("oracle output is not JSON: \(line.prefix(300))")
                out.append((.null, .null))
                continue
            }
                out.append((j["nska"] ?? .null, j["bpylist2"] ?? .null))
            }
        }
        #expect(out.count == files.count)
        return out
    }

    /// Where an oracle's typed value and ours disagree beyond the oracle's documented losses; nil when they agree.
    /// `compared` counts the leaves that were really compared.
    static func disagreement(_ oracle: JSONValue, _ ours: PlistValue, nska: Bool, path: String, compared: inout Int) -> String? {
        guard case .object(let o) = oracle, o.count == 1 else { return "\(path): oracle gave \(oracle)" }
        let (tag, v) = o[0]
        switch (tag, ours) {
        case ("string", .string("$null")) where nska && v == .string(""): compared += 1; return nil  // nska: nil is ''
        case ("dict", .string("$null")) where nska && v == .array([]): compared += 1; return nil     // nska: NSNull is {}
        case ("none", .string("$null")) where !nska: compared += 1; return nil                       // bpylist2: None
        case ("array", .array(let a)), ("set", .array(let a)):
            guard case .array(let elements) = v, elements.count == a.count else { return "\(path): \(oracle) vs \(ours)" }
            if tag == "set" {
                // Unordered: every oracle element matches one of ours.
                var left = a
                for e in elements {
                    var c = 0
                    guard let k = left.firstIndex(where: { disagreement(e, $0, nska: nska, path: path, compared: &c) == nil }) else {
                        return "\(path): set element \(e) not among ours"
                    }
                    compared += c
                    left.remove(at: k)
                }
                return nil
            }
            for (i, (e, x)) in zip(elements, a).enumerated() {
                if let d = disagreement(e, x, nska: nska, path: path + ".\(i)", compared: &compared) { return d }
            }
            return nil
        case ("dict", .dictionary(let d)):
            guard case .array(let pairs) = v else { return "\(path): malformed" }
            let oracleKeys = pairs.compactMap { p -> String? in
                if case .array(let kv) = p, kv.count == 2, case .string(let k) = kv[0] { return k }
                return nil
            }
            // A class we decode into named values (NSValue, NSAttributedString, a subclass found through $classes)
            // that nska keeps as its raw fields: no key in common, not comparable.
            if nska, !oracleKeys.isEmpty, !oracleKeys.contains(where: { d[$0] != nil }) { return nil }
            var ourKeys = Set(d.keys)
            ourKeys.remove("$class")  // nska drops the class name of classes it does not know
            var theirs = Set<String>()
            for p in pairs {
                guard case .array(let kv) = p, kv.count == 2, case .string(let k) = kv[0] else { return "\(path): malformed pair" }
                theirs.insert(k)
                guard let x = d[k] else { return "\(path).\(k): only the oracle has it" }
                if let dd = disagreement(kv[1], x, nska: nska, path: path + ".\(k)", compared: &compared) { return dd }
            }
            return theirs == ourKeys ? nil : "\(path): keys \(theirs.sorted()) vs ours \(ourKeys.sorted())"
        case ("dict", _) where nska:
            // A class nska leaves as its fields (URL, date, value, index set…) that we decode: not comparable.
            return nil
        default:
            do {
                let theirs = try TypedJSON.decode(oracle)
                compared += 1
                if theirs == ours { return nil }
                // Dates through Python datetimes keep microseconds.
                if case .date(let a) = theirs, case .date(let b) = ours,
                   abs(a.secondsSinceReferenceDate - b.secondsSinceReferenceDate) < 1e-5 { return nil }
                return "\(path): oracle \(theirs) vs ours \(ours)"
            } catch {
                return "\(path): oracle gave \(oracle)"
            }
        }
    }

    /// An empty array or dictionary has no leaves: agreeing on it compares its shape only.
    static func isEmptyContainer(_ v: PlistValue) -> Bool { v.arrayValue?.isEmpty == true || v.dictionaryValue?.isEmpty == true }

    static func check(files: [String], ours: [PlistValue?], binary: [Bool]) throws -> (nska: Int, bpylist2: Int) {
        let results = try oracles(files)
        var counts = (nska: 0, bpylist2: 0)
        for (k, file) in files.enumerated() where k < results.count {
            guard let plain = ours[k] else { continue }
            let (n, b) = results[k]
            var c = 0
            if case .object(let o) = n, o.first?.0 == "error" {
                // nska fails where its recursion or conversions give up; record which, and move on.
                Issue.record("nska failed on \(file): \(n)")
            } else if let d = disagreement(n, plain, nska: true, path: "root", compared: &c) {
                Issue.record("nska disagrees on \(file): \(d)")
            } else if c > 0 || isEmptyContainer(plain) {
                counts.nska += 1
            }
            c = 0
            if case .object(let o) = b, o.first?.0 == "error" {
                // bpylist2 reads binary archives of its eight classes only.
                if binary[k] && !(o.first.map { "\($0.1)" }?.contains("MissingClassMapping") ?? false) {
                    Issue.record("bpylist2 failed on \(file): \(b)")
                }
            } else if let d = disagreement(b, plain, nska: false, path: "root", compared: &c) {
                Issue.record("bpylist2 disagrees on \(file): \(d)")
            } else if c > 0 || isEmptyContainer(plain) {
                counts.bpylist2 += 1
            }
        }
        return counts
    }

    @Test(.enabled(if: python != nil, reason), .enabled(if: ArchiveFixtures.directory != nil, "../shared/fixtures/keyed-archives is absent"))
    func everyFixture() throws {
        let names = ArchiveFixtures.all
        let dir = try #require(ArchiveFixtures.directory)
        let files = names.map { dir.appendingPathComponent($0).path }
        let ours = try names.map { try KeyedArchive(ArchiveFixtures.bytes($0)).plainValue() as PlistValue? }
        let counts = try Self.check(files: files, ours: ours, binary: names.map { $0.hasSuffix(".archive") })
        // No fixture may disagree (recorded above); these count the ones where the oracle decodes something we can
        // compare at all (the rest are classes nska leaves as raw fields, or bpylist2 refuses): measured 18 and 2.
        #expect(counts.nska >= 18, "nska agreed on \(counts.nska) of \(names.count)")
        #expect(counts.bpylist2 >= 2, "bpylist2 agreed on \(counts.bpylist2)")
    }

    @Test(.enabled(if: python != nil, reason))
    func everyValidCorpusArchive() throws {
        let names = try KeyedArchiveCorpusTests.entries().filter { $0.fields["plain"] != nil }.map(\.file)
        let files = names.map { ArchiveFixtures.corpus.appendingPathComponent($0).path }
        let ours = try names.map { try KeyedArchive(Data(contentsOf: ArchiveFixtures.corpus.appendingPathComponent($0))).plainValue() as PlistValue? }
        // Corpus cases with cycles are beyond nska (RecursionError): left out, and said so.
        let keep = names.indices.filter { !names[$0].contains("cycle") }
        // nska returns the objects of several $top keys as a list, where the plain decoding is a dictionary of them.
        let ordered = keep.map { k -> PlistValue? in
            guard names[k] == "two-top-keys.xml", case .dictionary(let d)? = ours[k] else { return ours[k] }
            return .array(d.values)
        }
        let counts = try Self.check(files: keep.map { files[$0] }, ours: ordered, binary: keep.map { names[$0].hasSuffix(".bplist") })
        // The counted set and the index path are raw fields to nska: 3 of the 5 compare (none may disagree).
        #expect(counts.nska >= 3, "nska agreed on \(counts.nska) of \(keep.count)")
    }

    /// 500 random values archived by us (binary for both oracles; every other one also as XML for nska).
    @Test(.enabled(if: python != nil, reason))
    func fiveHundredRandomArchives() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ka-py-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { if ProcessInfo.processInfo.environment["KA_KEEP"] == nil { try? FileManager.default.removeItem(at: dir) } }
        var files: [String] = [], ours: [PlistValue?] = [], binary: [Bool] = []
        for seed in 0..<500 as Range<UInt64> {
            var g = RandomArchiveValue(seed: seed &+ 7_000, multiEntryDictionaries: true)
            g.noDollarStrings = true
            let value = g.value()
            let format: PlistFormat = seed % 2 == 0 ? .binary : .xml
            let bytes = try KeyedArchiver.archivedData(value, format: format, options: KeyedArchiverOptions(uniquing: .exact))
            let file = dir.appendingPathComponent("\(seed).plist").path
            _ = FileManager.default.createFile(atPath: file, contents: Data(bytes))
            files.append(file)
            ours.append(try KeyedArchive(bytes).plainValue())
            // XML keeps no sign on -0.0 and no NaN payload (as CF writes reals); dates here are NS.time reals, so
            // the text formats' real losses are the only ones (PlistEquivalence's OpenStep rule is exactly that).
            let lossy: PlistFormat = format == .xml ? .openStep : .binary
            #expect(PlistEquivalence.equivalent(value, try #require(ours.last ?? nil), format: lossy), "seed \(seed): \(PlistEquivalence.difference(value, ours.last.flatMap { $0 } ?? "", format: lossy) ?? "")")
            binary.append(format == .binary)
        }
        let counts = try Self.check(files: files, ours: ours, binary: binary)
        // None may disagree (each disagreement is recorded above). These count the archives with something both
        // decode; the others hold nothing comparable (their values are NSDate objects, which nska leaves as the
        // NS.time field): measured 321 of 500 and 245 of 250.
        #expect(counts.nska >= 300, "nska agreed on \(counts.nska) of 500")
        #expect(counts.bpylist2 >= 240, "bpylist2 agreed on \(counts.bpylist2) of the 250 binary archives")
    }
}

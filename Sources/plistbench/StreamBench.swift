#if canImport(Glibc)
import Glibc
#endif
import PlistKit

/// Large-file benchmarks: conversion without a tree and lookups in a binary document, each against the tree path in
/// the same run (separate processes for peak memory, which `getrusage` reports per process).
///
///   plistbench generate xml|binary MIB FILE [nodates]  an iTunes-library-shaped document of about MIB MiB (XML: at
///                                                   most); `nodates` leaves out the tracks' dates (JSON has none)
///   plistbench convert stream|tree FORMAT IN OUT    one conversion; prints seconds, MB/s and peak RSS (JSON)
///   plistbench lookup FILE KEYPATH [ITERATIONS]     BinaryPlistDocument open + lookup vs read + lookup (ratios)
enum StreamBench {
    static func run(_ mode: String, _ args: [String]) -> Int32 {
        switch (mode, args.count) {
        case ("generate", 3): return generate(args[0], mebibytes: Int(args[1]) ?? 0, to: args[2], dates: true)
        case ("generate", 4) where args[3] == "nodates":
            return generate(args[0], mebibytes: Int(args[1]) ?? 0, to: args[2], dates: false)
        case ("convert", 4): return convert(method: args[0], format: args[1], input: args[2], output: args[3])
        case ("lookup", 2), ("lookup", 3): return lookup(args[0], KeyPath(args[1]), iterations: args.count == 3 ? Int(args[2]) ?? 100 : 100)
        default:
            complain("usage: plistbench generate xml|binary MIB FILE [nodates] | convert stream|tree FORMAT IN OUT | lookup FILE KEYPATH [N]\n")
            return 64
        }
    }

    /// Writes `text` to standard error.
    static func complain(_ text: String) {
        var text = text
        text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    }

    /// Peak resident set of this process, in MiB.
    static func peakRSS() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_maxrss) / 1024
    }

    // MARK: generate

    /// Writes `{Major Version, Tracks: {id: {Track ID, Name, Artist, Size, Total Time, Date Added, Persistent ID,
    /// Location}}, Playlists: [...]}` track by track (XML as text, never a tree), so a 1 GiB file costs no memory.
    /// Track ids are decimal, so the writer must sort them ("10" before "2"). Without `dates`, a track has no
    /// `Date Added`: JSON cannot hold a date, and a conversion to JSON would fail at the first (once the whole input
    /// is read, as the tree path fails). An XML file stops at the last track that keeps it within MIB MiB (the
    /// readers' default input limit is 1 GiB).
    static func generate(_ format: String, mebibytes: Int, to path: String, dates: Bool) -> Int32 {
        guard mebibytes > 0 else { return 64 }
        if format == "binary" {
            // Binary output needs the values (uniquing): built as a tree, so keep it to what memory allows.
            var tracks = PlistDictionary()
            var size = 0
            var i = 0
            while size < mebibytes << 20 {
                tracks[String(i)] = .dictionary(track(i, dates: dates))
                size += 190
                i += 1
            }
            let root: PlistValue = ["Major Version": 1, "Tracks": .dictionary(tracks)]
            guard let bytes = try? PropertyList.writeBytes(root, format: .binary),
                  (try? AtomicFile.replace(path, with: bytes)) != nil else { return 1 }
            print("{\"file\":\"\(path)\",\"bytes\":\(bytes.count),\"tracks\":\(i)}")
            return 0
        }
        guard format == "xml" else { return 64 }
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { perror(path); return 1 }
        defer { close(fd) }
        var out: [UInt8] = []
        out.reserveCapacity(1 << 20)
        var written = 0
        func flush() -> Bool {
            do { try FileOutput.writeAll(out, to: fd, path: path) } catch { complain("\(error)\n"); return false }
            written += out.count
            out.removeAll(keepingCapacity: true)
            return true
        }
        out += Array("""
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>Major Version</key>
            \t<integer>1</integer>
            \t<key>Tracks</key>
            \t<dict>

            """.utf8)
        let tail = Array("\t</dict>\n</dict>\n</plist>\n".utf8)
        var i = 0
        var entry: [UInt8] = []
        while true {
            entry.removeAll(keepingCapacity: true)
            entry += Array("\t\t<key>\(i)</key>\n\t\t<dict>\n".utf8)
            for (key, value) in track(i, dates: dates) {
                entry += Array("\t\t\t<key>\(key)</key>\n".utf8)
                switch value {
                case .integer(let n): entry += Array("\t\t\t<integer>\(n)</integer>\n".utf8)
                case .string(let s): entry += Array("\t\t\t<string>\(s)</string>\n".utf8)
                case .date(let d): entry += Array("\t\t\t<date>\(PlistDateText.xmlString(d))</date>\n".utf8)
                default: break
                }
            }
            entry += Array("\t\t</dict>\n".utf8)
            guard written + out.count + entry.count + tail.count <= mebibytes << 20 else { break }
            out += entry
            i += 1
            if out.count >= 1 << 20, !flush() { return 1 }
        }
        out += tail
        guard flush() else { return 1 }
        print("{\"file\":\"\(path)\",\"bytes\":\(written),\"tracks\":\(i)}")
        return 0
    }

    private static func track(_ i: Int, dates: Bool = true) -> PlistDictionary {
        var d = PlistDictionary()
        d["Track ID"] = .integer(PlistInteger(Int64(i)))
        d["Name"] = .string("Track \(i) of the library")
        d["Artist"] = .string("Artist \(i % 997)")
        d["Size"] = .integer(PlistInteger(Int64(3_000_000 + i * 7919 % 9_000_000)))
        d["Total Time"] = .integer(PlistInteger(Int64(120_000 + i * 104_729 % 300_000)))
        if dates { d["Date Added"] = .date(PlistDate(secondsSinceReferenceDate: Double(400_000_000 + i * 61))) }
        d["Persistent ID"] = .string(String(UInt64(i) &* 0x9E37_79B9_7F4A_7C15, radix: 16, uppercase: true))
        return d
    }

    // MARK: convert

    static func convert(method: String, format name: String, input: String, output: String) -> Int32 {
        guard let format = PlistFormat(plutilName: name) else { return 64 }
        let mapped: MappedInput
        do { mapped = try MappedInput(path: input) } catch { complain("\(input): \(error)\n"); return 1 }
        let t0 = nowNs()
        do {
            switch method {
            case "stream":
                _ = try AtomicFile.replace(output) { write in
                    _ = try PropertyList.convert(mapped, to: format) { try write($0) }
                }
            case "tree":
                let value = try mapped.withUnsafeBytes { try PropertyList.read($0).value }
                _ = try AtomicFile.replace(output, with: try PropertyList.writeBytes(value, format: format))
            default:
                return 64
            }
        } catch {
            complain("\(error)\n")
            return 1
        }
        let seconds = Double(nowNs() - t0) / 1e9
        let mb = Double(mapped.count) / 1e6
        print("{\"method\":\"\(method)\",\"format\":\"\(name)\",\"input_mb\":\(rounded(mb)),\"seconds\":\(rounded(seconds)),"
              + "\"mb_per_s\":\(rounded(mb / seconds)),\"peak_rss_mib\":\(rounded(peakRSS()))}")
        return 0
    }

    private static func rounded(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }

    // MARK: lookup

    /// Median times of opening the document; of the first lookup of `keyPath` in a newly opened one (which checks
    /// the keys of each dictionary on the path up to the one found); of the second; of the same lookup repeated in
    /// one document (a large dictionary's index is built once its scans have read eight times its keys); and of
    /// `PropertyList.read` plus the lookup in its tree (the eager path): all from one mapped file, in this process. `first_lookup_cold_ms` is the very first lookup, before the process has touched the
    /// file's pages on the path.
    static func lookup(_ path: String, _ keyPath: KeyPath, iterations: Int) -> Int32 {
        let mapped: MappedInput
        do { mapped = try MappedInput(path: path) } catch { complain("\(path): \(error)\n"); return 1 }
        do {
            let opening = try measure(iterations: iterations) { try BinaryPlistDocument(mapped) }
            var firsts: [UInt64] = []
            for _ in 0 ..< max(1, min(iterations, 20)) {
                let fresh = try BinaryPlistDocument(mapped)
                let t0 = nowNs()
                let value = try fresh.value(at: keyPath)
                withExtendedLifetime(value) { firsts.append(nowNs() - t0) }
            }
            // The second lookup in one document: another scan (an index is built only after many).
            var seconds: [UInt64] = []
            for _ in 0 ..< max(1, min(iterations, 20)) {
                let fresh = try BinaryPlistDocument(mapped)
                _ = try fresh.value(at: keyPath)
                let t0 = nowNs()
                let value = try fresh.value(at: keyPath)
                withExtendedLifetime(value) { seconds.append(nowNs() - t0) }
            }
            let document = try BinaryPlistDocument(mapped)
            _ = try document.value(at: keyPath)
            _ = try document.value(at: keyPath)
            let lookups = try measure(iterations: iterations) { try document.value(at: keyPath) }
            let eagerRuns = max(1, min(iterations, 5))
            let eager = try measure(iterations: eagerRuns) { try mapped.withUnsafeBytes { try PropertyList.read($0).value.value(at: keyPath) } }
            let openMs = Stats(opening).median / 1e6
            let firstMs = Stats(firsts).median / 1e6
            let lookupMs = Stats(lookups).median / 1e6
            let eagerMs = Stats(eager).median / 1e6
            print("{\"file\":\"\(path)\",\"bytes\":\(mapped.count),\"key_path\":\"\(keyPath)\",\"open_ms\":\(rounded(openMs)),"
                  + "\"first_lookup_cold_ms\":\(rounded(Double(firsts[0]) / 1e6)),\"first_lookup_ms\":\(rounded(firstMs)),"
                  + "\"second_lookup_ms\":\(rounded(Stats(seconds).median / 1e6)),"
                  + "\"lookup_ms\":\(rounded(lookupMs)),\"read_ms\":\(rounded(eagerMs)),"
                  + "\"speedup_first_with_open\":\(rounded(eagerMs / (openMs + firstMs))),"
                  + "\"speedup_first_after_open\":\(rounded(eagerMs / firstMs)),\"speedup_repeated\":\(rounded(eagerMs / lookupMs))}")
            return 0
        } catch {
            complain("\(error)\n")
            return 1
        }
    }
}

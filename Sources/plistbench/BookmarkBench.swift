import Bookmarks
import PlistKit
#if canImport(Glibc)
import Glibc
#endif

/// Timing of bookmark create and resolve on a scratch tree: `plistbench bookmark [DIR]`, which `bookmark bench` runs.
enum BookmarkBench {
    /// What one run measured.
    struct Figures: Sendable {
        var createMicroseconds: Double
        var createCPUMicroseconds: Double
        var resolveInPlaceMicroseconds: Double
        var resolveInPlaceCPUMicroseconds: Double
        var resolveAfterRenameMilliseconds: Double
        var renameDirectoryEntries: Int
        var resolveDeepMoveMilliseconds: Double
        var deepMoveEntriesSearched: Int
        var searchEntriesPerSecond: Double
        var searchEntriesPerCPUSecond: Double

        var report: String {
            func f(_ v: Double) -> String { String((v * 100).rounded() / 100) }
            return """
            create:                         \(f(createMicroseconds)) µs wall, \(f(createCPUMicroseconds)) µs CPU
            resolve at the same path:       \(f(resolveInPlaceMicroseconds)) µs wall, \(f(resolveInPlaceCPUMicroseconds)) µs CPU
            resolve after rename (\(renameDirectoryEntries) files): \(f(resolveAfterRenameMilliseconds)) ms
            resolve after move 3 levels away: \(f(resolveDeepMoveMilliseconds)) ms (\(deepMoveEntriesSearched) entries searched)
            search rate:                    \(Int(searchEntriesPerSecond)) entries/s wall, \(Int(searchEntriesPerCPUSecond)) entries/CPU-s
            """
        }
    }

    /// Runs in `scratch` (a directory the caller owns; it is emptied of what the benchmark creates).
    static func run(scratch: String, files: Int = 10_000, treeEntries: Int = 100_000, repetitions: Int = 5000) throws(BookmarkError) -> Figures {
        func mk(_ p: String) { _ = mkdir(p, 0o755) }
        func touch(_ p: String) { let fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0o644); if fd >= 0 { close(fd) } }
        func now() -> UInt64 { nowNs() }
        // CPU time of this process: the machine may be shared, and wall time then includes waiting for a core.
        func cpu() -> UInt64 {
            var ts = timespec()
            clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
            return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
        }
        let root = scratch + "/bookmark-bench-\(getpid())"
        mk(root)
        defer { removeTree(root) }

        // Flat directory of `files` files.
        let flat = root + "/flat"
        mk(flat)
        for i in 0..<files { touch(flat + "/f\(i)") }
        let target = flat + "/f\(files / 2)"
        var t = now()
        var c = cpu()
        let reps = max(1, repetitions)
        var data: [UInt8] = []
        for _ in 0..<reps { data = try Bookmark.create(path: target) }
        let create = Double(now() - t) / Double(reps) / 1000
        let createCPU = Double(cpu() - c) / Double(reps) / 1000
        var opts = BookmarkResolveOptions()
        opts.refreshWhenStale = false
        t = now()
        c = cpu()
        for _ in 0..<reps { _ = try Bookmark.resolve(data, options: opts) }
        let inPlace = Double(now() - t) / Double(reps) / 1000
        let inPlaceCPU = Double(cpu() - c) / Double(reps) / 1000
        _ = rename(target, flat + "/renamed")
        var searched = 0
        t = now()
        let renameReps = 20
        for _ in 0..<renameReps { searched = try Bookmark.resolve(data, options: opts).entriesSearched }
        let afterRename = Double(now() - t) / Double(renameReps) / 1_000_000

        // Tree of about `treeEntries` entries: 10 × 10 × 10 directories of files; move a file 3 levels away.
        let tree = root + "/tree"
        mk(tree)
        let perLeaf = max(1, treeEntries / 1000 - 1)
        for a in 0..<10 {
            mk("\(tree)/a\(a)")
            for b in 0..<10 {
                mk("\(tree)/a\(a)/b\(b)")
                for c in 0..<10 {
                    let leaf = "\(tree)/a\(a)/b\(b)/c\(c)"
                    mk(leaf)
                    for f in 0..<perLeaf { touch("\(leaf)/f\(f)") }
                }
            }
        }
        let deep = "\(tree)/a0/b0/c0/target"
        touch(deep)
        let deepData = try Bookmark.create(path: deep)
        _ = rename(deep, "\(tree)/a9/b9/c9/target-moved")
        var deepOpts = opts
        deepOpts.budget = SearchBudget(maxEntries: treeEntries * 2, maxMilliseconds: 60_000, maxDepth: 4, maxLevelsUp: 3)
        t = now()
        c = cpu()
        let deepResult = try Bookmark.resolve(deepData, options: deepOpts)
        let deepMs = Double(now() - t) / 1_000_000
        let deepCPU = Double(cpu() - c) / 1e9
        searched = deepResult.entriesSearched
        let rate = Double(searched) / (deepMs / 1000)
        let cpuRate = Double(searched) / deepCPU
        return Figures(createMicroseconds: create, createCPUMicroseconds: createCPU,
                       resolveInPlaceMicroseconds: inPlace, resolveInPlaceCPUMicroseconds: inPlaceCPU,
                       resolveAfterRenameMilliseconds: afterRename, renameDirectoryEntries: files,
                       resolveDeepMoveMilliseconds: deepMs, deepMoveEntriesSearched: searched, searchEntriesPerSecond: rate,
                       searchEntriesPerCPUSecond: cpuRate)
    }

    /// `plistbench bookmark [DIR]`: runs in DIR (default /tmp) and prints the report; messages as `bookmark bench`
    /// gave them.
    static func main(_ arguments: [String]) -> Int32 {
        do {
            let report = try run(scratch: arguments.first ?? "/tmp").report + "\n"
            do { try FileOutput.standardOutput(report) } catch {
                CommandIO.standard.writeError("bookmark: cannot write to standard output: \(error.reason)\n")
                return 1
            }
            return 0
        } catch {
            CommandIO.standard.writeError("bookmark: \(error)\n")
            return 1
        }
    }

    /// Removes a tree this benchmark made (no symlinks inside, so a plain walk is safe).
    static func removeTree(_ path: String) {
        guard let dir = opendir(path) else { _ = unlink(path); return }
        while let e = readdir(dir) {
            let name = withUnsafePointer(to: e.pointee.d_name) { $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) } }
            if name == "." || name == ".." { continue }
            let child = path + "/" + name
            if e.pointee.d_type == UInt8(DT_DIR) { removeTree(child) } else { _ = unlink(child) }
        }
        closedir(dir)
        _ = rmdir(path)
    }
}

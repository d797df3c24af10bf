// bookmark: create, resolve and inspect bookmark data. The command is the Bookmarks library's `BookmarkCommand`;
// `bench` is plistbench's (`plistbench bookmark`), run from beside this executable.
import Bookmarks
import PlistKit
#if canImport(Glibc)
import Glibc
#endif

// The arguments as the kernel passed them: file names are bytes, and `CommandLine.arguments` would turn one that is
// not UTF-8 into another name.
let arguments: [[UInt8]] = (1..<max(1, Int(CommandLine.argc))).map { i in
    CommandLine.unsafeArgv[i].map { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) } ?? []
}

if arguments.first == Array("bench".utf8) {
    // The benchmark lives with the others in plistbench; run it in this process's place.
    var executable = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let length = readlink("/proc/self/exe", &executable, executable.count - 1)
    let directory = length > 0 ? String(decoding: executable[0..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
    let plistbench = String(directory[..<(directory.lastIndex(of: "/") ?? directory.startIndex)]) + "/plistbench"
    let forwarded = [Array("plistbench".utf8), Array("bookmark".utf8)] + arguments.dropFirst()
    var argv: [UnsafeMutablePointer<CChar>?] = forwarded.map { bytes in
        let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
        for (i, byte) in bytes.enumerated() { copy[i] = CChar(bitPattern: byte) }
        copy[bytes.count] = 0
        return copy
    }
    argv.append(nil)
    execv(plistbench, &argv)
    let message = "bookmark: bench is run by plistbench (`plistbench bookmark [DIR]`), not found at \(plistbench)\n"
    CommandIO.standard.writeError(message)
    exit(1)
}
exit(BookmarkCommand.run(arguments, io: .standard))

// libFuzzer harness for a preferences domain file: the bytes are written to a domain file on tmpfs and loaded
// through the store's own path (read, decode, root check, move-aside of damaged files). Properties: the codec
// throws only PlistError; a file whose root is a dictionary loads as exactly that dictionary; any other file
// loads as an empty domain and is moved aside intact (or, for a format the codec does not support, left in place).
// The library is built with -enable-testing so the harness can drive one `DomainFile` per input without the
// process-wide caches of `PreferencesEnvironment` growing.
import PlistKit
@testable import Preferences
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

private let directory: String = {
    let base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
    let dir = "\(base)/plistkit-fuzz-prefs-\(getpid())"
    mkdir(dir, 0o700)
    atexit { FuzzPrefs.removeAll() }
    return dir
}()
private let path = directory + "/fuzz.domain.plist"
private let hub = EventHub(logsToStandardError: false)
private let movedTo = Mutex<[String]>([])
private let subscription: Int = hub.add { event in
    if case .corruptFileMovedAside(_, _, let to, _) = event { movedTo.withLock { $0.append(to) } }
}

enum FuzzPrefs {
    static func removeAll() {
        for name in FileSystem.listDirectory(directory) { unlink(directory + "/" + name) }
        rmdir(directory)
    }

    static func writeFile(_ bytes: UnsafeRawBufferPointer) {
        unlink(path)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { FuzzCheck.fail("cannot create \(path)") }
        var done = 0
        while done < bytes.count {
            let n = write(fd, bytes.baseAddress! + done, bytes.count - done)
            guard n > 0 else { FuzzCheck.fail("cannot write \(path)") }
            done += n
        }
        close(fd)
    }

    static func readFile(_ file: String) -> [UInt8]? {
        guard let result = try? FileSystem.readFile(file, limit: 1 << 30) else { return nil }
        return result.bytes
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPreferences(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    _ = subscription
    let raw = UnsafeRawBufferPointer(start: data, count: size)
    let bytes = Array(raw)
    var options = StoreOptions()
    options.syncDirectory = false
    let codec = PlistKitCodec()
    var expected: PlistDictionary?
    var unsupported = false
    do {
        if case .dictionary(let d) = try codec.decode(bytes) { expected = d }
    } catch let e as PlistError {
        unsupported = e.kind == .unsupportedFormat
    } catch {
        FuzzCheck.fail("domain codec threw a non-PlistError: \(error)")
    }
    if bytes.isEmpty { expected = nil }

    FuzzPrefs.writeFile(raw)
    movedTo.withLock { $0.removeAll() }
    let file = DomainFile(domain: "fuzz.domain", path: path, readOnly: false, options: options, events: hub, scheduler: nil)
    let loaded = file.snapshot(force: true)
    let moved = movedTo.withLock { $0 }

    if let expected {
        if loaded != expected { FuzzCheck.fail("domain loaded \(loaded.count) keys, the codec read \(expected.count)") }
        if !moved.isEmpty { FuzzCheck.fail("a readable domain file was moved aside") }
    } else {
        if !loaded.isEmpty { FuzzCheck.fail("an unreadable domain file loaded \(loaded.count) keys") }
        let detected = raw.isEmpty ? nil : PlistFormat.detect(raw)
        if unsupported && (detected == .xml || detected == .binary) {
            if !moved.isEmpty { FuzzCheck.fail("a file in an unsupported format was moved aside") }
        } else {
            guard moved.count == 1 else { FuzzCheck.fail("a damaged domain file was not moved aside (\(moved.count))") }
            if FuzzPrefs.readFile(moved[0]) != bytes { FuzzCheck.fail("the moved-aside file differs from the damaged one") }
            if FuzzPrefs.readFile(path) != nil { FuzzCheck.fail("the damaged file is still in place") }
        }
    }
    FuzzPrefs.removeAll()
    mkdir(directory, 0o700)
    return 0
}

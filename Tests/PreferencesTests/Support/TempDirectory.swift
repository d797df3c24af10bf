import Foundation
import PlistKit
@testable import Preferences
import TestSupport

/// A fresh directory under the system temp dir, removed when the value is released.
final class TempDirectory: @unchecked Sendable {
    let path: String

    /// - Parameter memoryBacked: use `/dev/shm` (tmpfs) when available. Multi-process tests use it because each
    ///   synchronize() costs two fsyncs (~10 ms on this disk) and 4,000 serialized writes would take minutes; lock,
    ///   merge and SIGKILL behaviour do not depend on the disk.
    init(_ label: String = "prefs", memoryBacked: Bool = false) {
        let base = memoryBacked && access("/dev/shm", W_OK) == 0 ? "/dev/shm" : FileManager.default.temporaryDirectory.path
        path = "\(base)/\(label)-\(getpid())-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    var locations: PreferencesLocations { .under(path) }

    /// An isolated environment over this directory (no stderr logging, the test codec, a long flush delay so tests
    /// decide when writes happen unless they ask otherwise).
    func environment(
        applicationDomain: String = "com.example.app", arguments: [String] = [], configure: (inout StoreOptions) -> Void = { _ in }
    ) -> PreferencesEnvironment {
        var options = StoreOptions()
        options.codec = TestCodec.current
        options.flushDelay = 60
        configure(&options)
        return PreferencesEnvironment(
            locations: locations, options: options, applicationDomain: applicationDomain, arguments: arguments,
            logsToStandardError: false)
    }

    /// Writes a plist file with the test codec (creating directories), binary by default.
    func writePlist(_ value: PlistValue, to file: String, format: PlistFormat = .binary) throws {
        try FileManager.default.createDirectory(
            atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let bytes = try TestCodec.current.encode(value, format: format)
        try Data(bytes).write(to: URL(fileURLWithPath: file))
    }

    /// The stored value of `key` in `domain`'s file, parsed by PlistKit.
    func storedValue(_ key: String, domain: String = "com.example.app") throws -> PlistValue? {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: locations.path(domain: domain)))
        return try PropertyList.read(bytes).value[key]
    }

    /// Reads a plist file with Foundation (an independent parser).
    func readPlistWithFoundation(_ file: String) throws -> PlistValue {
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        return try FoundationBridge.fromFoundation(
            PropertyListSerialization.propertyList(from: data, options: [], format: nil))
    }
}

/// Collects events posted by an environment.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [PreferencesEvent] = []

    init(_ environment: PreferencesEnvironment) {
        environment.addEventHandler { [weak self] event in self?.append(event) }
    }

    private func append(_ e: PreferencesEvent) { lock.lock(); items.append(e); lock.unlock() }

    var events: [PreferencesEvent] { lock.lock(); defer { lock.unlock() }; return items }
}

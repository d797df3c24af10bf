import Foundation
import PlistKit
import TestSupport
@testable import Preferences

/// The codec the store tests use: the library's default, PlistKit's.
enum TestCodec {
    static var current: any PreferencesCodec { PlistKitCodec() }
}

/// Reads and writes domain files with Foundation's `PropertyListSerialization`.
struct FoundationCodec: PreferencesCodec {
    func decode(_ bytes: [UInt8]) throws -> PlistValue {
        let object = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)
        return try FoundationBridge.fromFoundation(object)
    }

    func encode(_ value: PlistValue, format: PlistFormat) throws -> [UInt8] {
        let fmt: PropertyListSerialization.PropertyListFormat = format == .xml ? .xml : .binary
        return Array(try PropertyListSerialization.data(fromPropertyList: try FoundationBridge.toFoundation(value), format: fmt, options: 0))
    }
}

import Foundation
import Testing
@testable import PlistKit

/// The Xcode writer against the real projects: each fixture's value, written in Xcode's style with the project's
/// name, must be the fixture's bytes.
@Suite struct XcodeProjectWriterTests {
    @Test(.enabled(if: XcodeFixtures.available, XcodeFixtures.skipReason))
    func writesEveryFixtureByteForByte() throws {
        var identical: [String] = []
        for name in XcodeFixtures.names {
            let bytes = try XcodeFixtures.bytes(name)
            let value = try PropertyList.read(bytes).value
            let written = try XcodeProjectWriter.write(value, projectName: XcodeFixtures.projectName(name))
            if written == bytes {
                identical.append(name)
            } else {
                let a = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
                let b = String(decoding: written, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
                let line = (0..<min(a.count, b.count)).first { a[$0] != b[$0] } ?? min(a.count, b.count)
                Issue.record("\(name): first difference at line \(line + 1): expected \(line < a.count ? String(a[line]) : "<end>") got \(line < b.count ? String(b[line]) : "<end>")")
            }
        }
        #expect(identical.count == XcodeFixtures.names.count, "\(identical.count) of \(XcodeFixtures.names.count) identical")
    }
}

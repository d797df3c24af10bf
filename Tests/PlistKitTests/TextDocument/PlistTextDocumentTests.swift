import Foundation
import Testing
@testable import PlistKit

/// The preserving document: unedited documents write back their bytes and read to the plain reader's value.
@Suite struct PlistTextDocumentTests {
    @Test(.enabled(if: XcodeFixtures.available, XcodeFixtures.skipReason))
    func everyFixtureRoundTrips() throws {
        for name in XcodeFixtures.names {
            let bytes = try XcodeFixtures.bytes(name)
            let document = try PlistTextDocument(bytes)
            #expect(document.write() == bytes, "\(name)")
            #expect(document.value == (try PropertyList.read(bytes).value), "\(name)")
            #expect(document.layout == .xcodeProject, "\(name)")
            #expect(document.format == .openStep, "\(name)")
        }
    }
}

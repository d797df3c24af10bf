import Foundation
import PlistKit
import Testing
import TestSupport
@testable import Preferences

/// The argument domain (Core Foundation's and swift-corelibs-foundation's rules).
@Suite struct ArgumentDomainTests {
    @Test func pairsAndSkipping() {
        let d = ArgumentDomain.parse(["file.txt", "-NSShowAllViews", "YES", "-flag", "-other", "x", "-last"])
        #expect(d["NSShowAllViews"] == "YES") // a string; bool(forKey:) coerces it
        #expect(d["flag"] == nil) // followed by another -token: skipped
        #expect(d["other"] == "x")
        #expect(d["last"] == nil)
        #expect(d.count == 2)
    }

    @Test func plainValuesStayStrings() {
        #expect(ArgumentDomain.parseValue("42") == "42")
        #expect(ArgumentDomain.parseValue("a(b)") == "a(b)") // only the first character decides
    }

    @Test
    func plistValuesAreParsed() throws {
        // `-Bar '(1,2,3)'` gives ["1","2","3"] (OpenStep holds strings only).
        #expect(ArgumentDomain.parseValue("(1,2,3)") == ["1", "2", "3"])
        #expect(ArgumentDomain.parseValue("{ a = b; }") == ["a": "b"])
        #expect(ArgumentDomain.parseValue("\"quoted text\"") == "quoted text")
        #expect(ArgumentDomain.parseValue("(unclosed") == "(unclosed") // does not parse: the string itself
        // JSON is not a plist format CF parses arguments in (UserDefaults keeps these as strings).
        #expect(ArgumentDomain.parseValue("[1,2]") == "[1,2]")
        #expect(ArgumentDomain.parseValue(#"{"a":1}"#) == #"{"a":1}"#)
        // A `.strings` body is a property list to Foundation too.
        for text in [#""a" = "b";"#, #""k";"#] {
            let foundation = try? PropertyListSerialization.propertyList(from: Data(text.utf8), format: nil)
            let expected = try foundation.map { try FoundationBridge.fromFoundation($0) }
            #expect(expected != nil && ArgumentDomain.parseValue(text) == expected, "\(text)")
            #expect(ArgumentDomain.parseValue(text) != .string(text))
        }
    }

    @Test func xmlValueIsParsed() throws {
        let xml = "<plist version=\"1.0\"><array><integer>1</integer><true/></array></plist>"
        #expect(ArgumentDomain.parseValue(xml) == [1, true])
    }
}

import Foundation
import PlistKit
import Testing
@testable import Preferences
import TestSupport

/// The `defaults read` text. Layout oracle: Foundation's `NSDictionary`/`NSArray` `description`, which uses Apple's
/// layout (4-space indent, a nested container's own indentation after `key = `); compared on one-key dictionaries
/// because corelibs does not sort keys. Scalar forms follow reference §6.1 and Apple's `description`.
@Suite struct DescriptionFormatterTests {
    static func sample(_ index: Int) -> NSDictionary {
        switch index {
        case 0: return ["nested": ["e": [String]()]]
        case 1: return ["k": ["inner": ["x", "y"]]]
        case 2: return ["list": [["a": "b"]]]
        case 3: return ["simple": "word"]
        default: return ["path": "/usr/local/bin:x-y_z.$"]
        }
        // Not compared: a dictionary *value* with a space. corelibs prints it unquoted (`k = two words;`) although it
        // quotes the same string inside an array; Apple quotes both, as we do.
    }

    @Test(arguments: 0..<5)
    func layoutMatchesFoundationDescription(_ index: Int) throws {
        let dictionary = Self.sample(index)
        let value = try FoundationBridge.fromFoundation(dictionary)
        #expect(DescriptionFormatter.describe(value) == dictionary.description)
    }

    @Test func arrayLayoutMatchesFoundation() throws {
        let array = ["a", "b c", 3] as NSArray
        #expect(DescriptionFormatter.describe(try FoundationBridge.fromFoundation(array)) == array.description)
    }

    @Test func scalarsInApplesForms() {
        #expect(DescriptionFormatter.describeTopLevel("raw string, not quoted") == "raw string, not quoted")
        #expect(DescriptionFormatter.describe("") == "\"\"")
        #expect(DescriptionFormatter.describe("a\"b\\c\nd") == "\"a\\\"b\\\\c\\nd\"")
        #expect(DescriptionFormatter.describe("é") == "\"\\U00e9\"")
        #expect(DescriptionFormatter.describe(.bool(true)) == "1")
        #expect(DescriptionFormatter.describe(2.0) == "2")
        #expect(DescriptionFormatter.describe(0.5) == "0.5")
        #expect(DescriptionFormatter.describe(.real(PlistReal(Float(0.1)))) == "0.1")
        #expect(DescriptionFormatter.describe(.real(PlistReal(Double(Float(0.1))))) == "0.10000000149011612")
        #expect(DescriptionFormatter.describe(.data(Data([1, 2, 255]))) == "{length = 3, bytes = 0x0102ff}")
        #expect(DescriptionFormatter.describe(.date(PlistDate(secondsSinceReferenceDate: 0))) == "2001-01-01 00:00:00 +0000")
    }
}

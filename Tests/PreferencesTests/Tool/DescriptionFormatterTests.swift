import Foundation
import PlistKit
import Testing
@testable import Preferences
import TestSupport

/// The `defaults read` text. Layout oracle: Foundation's `NSDictionary`/`NSArray` `description`, which uses Apple's
/// layout (4-space indent, a nested container's own indentation after `key = `); compared on one-key dictionaries
/// because corelibs does not sort keys. Scalar forms follow Apple's `defaults read` and `description`.
@Suite struct DescriptionFormatterTests {
    static func sample(_ index: Int) -> NSDictionary {
        switch index {
        case 0: return ["nested": ["e": [String]()]]
        case 1: return ["k": ["inner": ["x", "y"]]]
        case 2: return ["list": [["a": "b"]]]
        case 3: return ["simple": "word"]
        default: return ["plain": "word2"]
        }
        // Not compared: strings with punctuation. corelibs leaves `_ $ . / : -` bare and a dictionary *value* with a
        // space unquoted (`k = two words;`); macOS quotes all of them (`applesOwnOutput` below).
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

    /// Text `defaults read` printed on macOS, as published: `defaults read org.xquartz.X11` (a 2021 blog post, whole)
    /// and lines of a 2024 dump of `ch.protonvpn.mac`. Only ASCII letters and digits stay bare; a date inside a
    /// dictionary is quoted; data past 24 bytes shows its first 16 and last 8 bytes in groups of four.
    @Test func applesOwnOutput() throws {
        let checked = PlistDateText.date(year: 2021, month: 4, day: 14, hour: 4, minute: 55, second: 37)
        let xquartz: PlistValue = [
            "NSWindow Frame SUUpdateAlert": "970 788 620 398 0 0 2560 1415 ",
            "NSWindow Frame x11_prefs": "487 464 584 369 0 0 2560 1415 ",
            "SUHasLaunchedBefore": true, "SULastCheckTime": .date(checked), "SUUpdateRelaunchingMarker": false,
            "app_to_run": "/opt/X11/bin/xterm", "cache_fonts": true, "done_xinit_check": true, "enable_iglx": true,
            "login_shell": "/bin/sh", "no_auth": false, "nolisten_tcp": false,
            "startx_script": "/opt/X11/bin/startx -- /opt/X11/bin/Xquartz",
        ]
        #expect(DescriptionFormatter.describe(xquartz) == """
            {
                "NSWindow Frame SUUpdateAlert" = "970 788 620 398 0 0 2560 1415 ";
                "NSWindow Frame x11_prefs" = "487 464 584 369 0 0 2560 1415 ";
                SUHasLaunchedBefore = 1;
                SULastCheckTime = "2021-04-14 04:55:37 +0000";
                SUUpdateRelaunchingMarker = 0;
                "app_to_run" = "/opt/X11/bin/xterm";
                "cache_fonts" = 1;
                "done_xinit_check" = 1;
                "enable_iglx" = 1;
                "login_shell" = "/bin/sh";
                "no_auth" = 0;
                "nolisten_tcp" = 0;
                "startx_script" = "/opt/X11/bin/startx -- /opt/X11/bin/Xquartz";
            }
            """)
        // 63 bytes of which the dump shows the first 16 and the last 8.
        let location = Data("{\"ip\":\"97.146.11".utf8) + Data(repeating: 0x2e, count: 39) + Data("reless\"}".utf8)
        try #require(location.count == 63)
        let proton: PlistValue = [
            "AutoConnect_cspence001": "st_f", "LastAppVersion": "4.1.6", "LastUserAccountPlancspence001": "free",
            "TelemetryCrashReportscspence001": "false", "UserLocation": .data(location),
            "VpnAcceleratorEnabledcspence001": .data(Data("\"on\"".utf8)), "age": "1709158831.477413",
        ]
        #expect(DescriptionFormatter.describe(proton) == """
            {
                "AutoConnect_cspence001" = "st_f";
                LastAppVersion = "4.1.6";
                LastUserAccountPlancspence001 = free;
                TelemetryCrashReportscspence001 = false;
                UserLocation = {length = 63, bytes = 0x7b226970 223a2239 372e3134 362e3131 ... 72656c65 7373227d };
                VpnAcceleratorEnabledcspence001 = {length = 4, bytes = 0x226f6e22};
                age = "1709158831.477413";
            }
            """)
        // 24 bytes are one run of hex; from 25 the 16 + 8 form (the boundary of the dump's `length = 4`/`72` cases).
        let bytes = Data((0..<25).map { UInt8($0) })
        #expect(DescriptionFormatter.describe(.data(bytes.prefix(24))) == "{length = 24, bytes = 0x000102030405060708090a0b0c0d0e0f1011121314151617}")
        #expect(DescriptionFormatter.describe(.data(bytes)) == "{length = 25, bytes = 0x00010203 04050607 08090a0b 0c0d0e0f ... 11121314 15161718 }")
        // Apple's QA1391: `(en, fr, de, …, "zh-Hans", …)`.
        #expect(DescriptionFormatter.describe(["en", "zh-Hans"]) == "(\n    en,\n    \"zh-Hans\"\n)")
        #expect(DescriptionFormatter.describeTopLevel(.date(checked)) == "2021-04-14 04:55:37 +0000")
    }
}

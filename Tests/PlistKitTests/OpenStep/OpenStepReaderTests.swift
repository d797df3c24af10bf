import Foundation
import Testing
@testable import PlistKit

/// The reader's rules, each checked against the value CF's `CFOldStylePList.c` rules give;
/// where Foundation (which reads OpenStep with CF's parser on Linux) can judge, it is asked in the same test.
@Suite struct OpenStepReaderTests {
    /// Reads `text`, checks that Foundation reads the same value, and returns ours.
    func readAgreeing(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> PlistValue {
        let ours = try OS.read(text).value
        let theirs = OS.foundation(text)
        #expect(theirs == ours, "Foundation disagrees on \(text.debugDescription)", sourceLocation: sourceLocation)
        return ours
    }

    @Test func unquotedStringCharacters() throws {
        #expect(try readAgreeing("(azAZ09_$/:.-, a/b, a:b, 1.5, -)") == ["azAZ09_$/:.-", "a/b", "a:b", "1.5", "-"])
        // `+` is not an unquoted character: `(a+b)` is an error for CF and for us.
        #expect(OS.error("(a+b)")?.kind == .syntax)
        #expect(OS.foundation("(a+b)") == nil)
        // Non-ASCII letters must be quoted.
        #expect(OS.error("(é)") != nil)
    }

    @Test func quotedStringsWithBothQuotes() throws {
        #expect(try readAgreeing(#"("a b", 'c d', "it's", 'say "hi"', "")"#) == ["a b", "c d", "it's", "say \"hi\"", ""])
        #expect(try readAgreeing("\"line1\nline2\"") == "line1\nline2")
    }

    @Test func namedEscapes() throws {
        #expect(try readAgreeing(#""\a\b\f\n\r\t\v\"\\\'""#) == "\u{7}\u{8}\u{C}\n\r\t\u{B}\"\\'")
        #expect(try readAgreeing("\"a\\\nb\"") == "a\nb")  // backslash-newline is a newline
    }

    @Test func otherEscapedCharactersStandForThemselves() throws {
        #expect(try readAgreeing(#""\x41\q\é\/""#) == "x41qé/")
    }

    @Test func octalEscapesGoThroughNeXTSTEPLatin() throws {
        #expect(try readAgreeing(#""\101\60\0601\1""#) == "A001\u{1}")
        #expect(try readAgreeing(#""\200\251\376\377\777""#) == "\u{A0}\u{2019}\u{0}\u{0}\u{0}")
        // All 128 upper bytes against Foundation's own NeXTSTEP decoder.
        var text = "("
        for b in 0x80...0xFF { text += "\"\\\(String(b, radix: 8))\"," }
        text += ")"
        let ours = try OS.read(text).value
        #expect(ours == OS.foundation(text))
        #expect(ours[0x81 - 0x80] == "À" && ours[0xA4 - 0x80] == "\u{2044}" && ours[0xFB - 0x80] == "ß")
    }

    @Test func unicodeEscapesAndSurrogatePairs() throws {
        #expect(try readAgreeing(#""\U00e9\U00E9\U41\Ug""#) == "ééA\u{0}g")  // no digits: U+0000, as CF
        #expect(try readAgreeing(#""\UD83D\UDCA9""#) == "💩")
        // Lone halves become U+FFFD, as Foundation makes them.
        #expect(try readAgreeing(#""\UD83Dx""#) == "\u{FFFD}x")
        #expect(try readAgreeing(#""\UDCA9""#) == "\u{FFFD}")
        #expect(try readAgreeing(#""\UD83D\UD83D\UDCA9""#) == "\u{FFFD}💩")
    }

    @Test func rawUTF8AndInvalidUTF8() throws {
        #expect(try readAgreeing("(\"café 💩 日本\")") == ["café 💩 日本"])
        let bad: [UInt8] = Array("(\"caf".utf8) + [0xE9] + Array("\")".utf8)
        #expect(OS.error(bytes: bad)?.kind == .encoding)
        #expect(OS.foundation(bad) == nil)
    }

    @Test func commentsAndWhitespace() throws {
        let text = "// head\n/* block */{ /*k*/ a /*x*/ = // c\n b /* y */ ; c = ( /* */ d // e\n , f, ) ; }\n// tail"
        #expect(try readAgreeing(text) == ["a": "b", "c": ["d", "f"]])
        #expect(try readAgreeing("{\u{2028}a\u{2029}=\u{B}b\u{C};}") == ["a": "b"])
        // `//` inside an unquoted string is part of it: comments start only where whitespace may be.
        #expect(try readAgreeing("(a//b)") == ["a//b"])
        #expect(try readAgreeing("(a, // x\u{2028}b)") == ["a", "b"])
    }

    @Test func hexData() throws {
        #expect(try readAgreeing("<0fAB 12\n34\t56 >") == .data(Data([0x0F, 0xAB, 0x12, 0x34, 0x56])))
        #expect(try readAgreeing("<>") == .data(Data()))
        #expect(try readAgreeing("(< >, <\n>, <0a>)") == [.data(Data()), .data(Data()), .data(Data([10]))])
        #expect(OS.error("<0fa>")?.kind == .syntax)
        #expect(OS.error("<0 f>")?.kind == .syntax)
        #expect(OS.error("<0g>")?.kind == .syntax)
        #expect(OS.error("<0fzz>")?.kind == .syntax)
        for bad in ["<0fa>", "<0 f>", "<0g>", "<zz>", "<0f"] { #expect(OS.foundation(bad) == nil, "\(bad)") }
    }

    @Test func arrays() throws {
        #expect(try readAgreeing("(a, b, )") == ["a", "b"])
        #expect(try readAgreeing("()") == [])
        #expect(try readAgreeing("(())") == [[]])
        for bad in ["(a b)", "(,)", "(a,,b)", "(a", "(a,"] {
            #expect(OS.error(bad) != nil, "\(bad)")
            #expect(OS.foundation(bad) == nil, "\(bad)")
        }
    }

    @Test func dictionaries() throws {
        #expect(try readAgreeing("{a = b; \"c d\" = (e); f = {}; g; 'h';}") == ["a": "b", "c d": ["e"], "f": [:], "g": "g", "h": "h"])
        #expect(try readAgreeing("{a = 1; a = 2;}") == ["a": "2"])  // last wins
        for bad in ["{a=b}", "{a}", "{a=b;", "{=b;}", "{a=;}", "{(a)=b;}", "{<00>=b;}", "{a==b;}"] {
            #expect(OS.error(bad) != nil, "\(bad)")
            #expect(OS.foundation(bad) == nil, "\(bad)")
        }
    }

    @Test func duplicateKeyPolicies() throws {
        var o = PlistReadOptions()
        o.duplicateKeys = .firstWins
        #expect(try OS.read("{a = 1; a = 2;}", options: o).value == ["a": "1"])
        o.duplicateKeys = .reject
        let e = OS.error("{a = 1;\n a = 2;}", options: o)
        #expect(e?.kind == .duplicateKey && e?.line == 2)
    }

    @Test func emptyDocumentsAreEmptyDictionaries() throws {
        for text in [" \n\t", "// only a comment\n", "/* c */", "\u{FEFF}"] {
            let (v, f) = try OS.read(text)
            #expect(v == [:] && f == .openStep, "\(text.debugDescription)")
        }
        #expect(OS.foundation(" \n") == [:])
    }

    /// Zero bytes: not a property list when the format is detected (Foundation: "Cannot parse a NULL or
    /// zero-length data"; plistlib and libplist refuse them too), but an empty strings file is an empty table.
    @Test func zeroBytesNeedAFormat() throws {
        let e = OS.error("")
        #expect(e?.kind == .truncated && e?.offset == 0)
        #expect(throws: (any Error).self) { try PropertyListSerialization.propertyList(from: Data(), options: [], format: nil) }
        for format in [PlistFormat.strings, .openStep] {
            #expect(try [UInt8]().withUnsafeBytes { try PropertyList.read($0, as: format) } == [:])
        }
    }

    @Test func stringsBodies() throws {
        let text = "/* Title */\n\"hello\" = \"Bonjour\";\n\"bye\" = \"Au revoir\"; // x\nshort;\n"
        let (v, f) = try OS.read(text)
        #expect(f == .strings)
        #expect(v == ["hello": "Bonjour", "bye": "Au revoir", "short": "short"])
        #expect(OS.foundation(text) == v)
        // A lone top-level string is just a string.
        #expect(try OS.read("\"hello\"") == (.string("hello"), .openStep))
        #expect(try OS.read("hello;").value == ["hello": "hello"])
        // Read as .strings explicitly: the body is parsed directly.
        #expect(try Array("a = b;".utf8).withUnsafeBytes { try PropertyList.read($0, as: .strings) } == ["a": "b"])
        // Junk after a strings body is an error (CF silently drops it).
        #expect(OS.error("a = b; }")?.kind == .syntax)
    }

    @Test func junkAfterPlist() throws {
        for bad in ["{} x", "() ()", "<00> a", "{a=b;};"] {
            let e = OS.error(bad)
            #expect(e?.kind == .syntax && e?.message.contains("junk") == true, "\(bad): \(String(describing: e))")
            #expect(OS.foundation(bad) == nil, "\(bad)")
        }
    }

    @Test func utf16AndBOMs() throws {
        let text = "/* c */ \"k\" = \"é💩\";\n(x) = y;"
        let expected = OS.foundation(Array("\"k\" = \"é💩\";".utf8))
        for bigEndian in [true, false] {
            var bytes: [UInt8] = bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]
            for u in "\"k\" = \"é💩\";".utf16 {
                bytes += bigEndian ? [UInt8(u >> 8), UInt8(u & 0xFF)] : [UInt8(u & 0xFF), UInt8(u >> 8)]
            }
            let (v, f) = try PropertyList.read(bytes)
            #expect(v == ["k": "é💩"] && f == .strings)
            #expect(v == expected)
            #expect(OS.foundation(bytes) == v)
            // An error in UTF-16 input still has a line and column.
            var bad: [UInt8] = bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]
            for u in text.utf16 { bad += bigEndian ? [UInt8(u >> 8), UInt8(u & 0xFF)] : [UInt8(u & 0xFF), UInt8(u >> 8)] }
            let e = OS.error(bytes: bad)
            #expect(e?.line == 2 && e?.column == 1, "\(String(describing: e))")
        }
        #expect(try PropertyList.read([0xEF, 0xBB, 0xBF] + Array("(a)".utf8)).value == ["a"])
        #expect(OS.error(bytes: [0xEF, 0xBB, 0xBF] + Array("(a b)".utf8))?.column == 4)
        // UTF-16 data at the top level is OpenStep, not XML (an XML name never starts with a digit).
        let utf16Data: [UInt8] = [0xFF, 0xFE] + Array("<00ff>".utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
        #expect(try PropertyList.read(utf16Data).value == .data(Data([0, 255])))
        #expect(OS.error(bytes: [0xFF, 0xFE, 0x28, 0x00, 0x00, 0xD8, 0x29, 0x00])?.kind == .encoding)
        // UTF-32 with a byte-order mark, as Foundation (CF) reads it.
        for bigEndian in [true, false] {
            var bytes: [UInt8] = bigEndian ? [0, 0, 0xFE, 0xFF] : [0xFF, 0xFE, 0, 0]
            for s in "{k = \"é💩\";}".unicodeScalars {
                let v = s.value
                let le = [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)]
                bytes += bigEndian ? le.reversed() : le
            }
            #expect(try PropertyList.read(bytes).value == ["k": "é💩"])
            #expect(OS.foundation(bytes) == ["k": "é💩"])
        }
    }

    @Test func depthCap() throws {
        let ok = String(repeating: "(", count: 512) + String(repeating: ")", count: 512)
        #expect(try OS.read(ok).value != [:])
        let over = String(repeating: "(", count: 513) + "a" + String(repeating: ")", count: 513)
        let e = OS.error(over)
        #expect(e?.kind == .depthLimit && e?.line == 1 && e?.column == 513, "\(String(describing: e))")
        #expect(OS.foundation(over) == nil)
        var o = PlistReadOptions()
        o.maxDepth = 3
        #expect(OS.error("{a={b=(c);};}", options: o) == nil)
        #expect(OS.error("{a={b=((c));};}", options: o)?.kind == .depthLimit)
        // A .strings body is a dictionary level like `{…}`: what reads can be written in every format.
        #expect(OS.error("a={b=(c);};", options: o) == nil)
        #expect(OS.error("a={b=((c));};", options: o)?.kind == .depthLimit)
        // 100,000-deep nesting: an error with a position, not a stack overflow.
        for open in ["(", "{a="] {
            let deep = String(repeating: open, count: 100_000)
            let d = OS.error(deep)
            #expect(d?.kind == .depthLimit && d?.line == 1 && d?.column != nil)
        }
    }

    @Test func objectCountCap() throws {
        var o = PlistReadOptions()
        o.maxObjectCount = 3
        #expect(OS.error("(a, b)", options: o) == nil)
        #expect(OS.error("(a, b, c)", options: o)?.kind == .countLimit)
    }

    @Test func errorsCarryLineColumnAndKeyPath() throws {
        let e = try #require(OS.error("{\n  outer = {\n    list = (a, b, <0g>);\n  };\n}"))
        #expect(e.kind == .syntax)
        #expect(e.line == 3 && e.column == 21, "\(e)")
        #expect(e.keyPath == KeyPath(components: ["outer", "list", "2"]))
        #expect(e.format == .openStep)
        #expect(e.offset != nil)
        let crlf = try #require(OS.error("(a,\r\nb,\r\nc d)"))
        #expect(crlf.line == 3 && crlf.column == 3)
    }

    @Test func badInputAlwaysGivesPositionedErrors() throws {
        let cases: [(String, PlistError.Kind)] = [
            ("(\"abc", .truncated), ("('abc", .truncated), ("{a = \"x\\", .truncated), ("(\"a\\", .truncated),
            ("/* never closed", .truncated), ("(a) /* open", .truncated), ("<0fab", .truncated), ("<0fab ", .truncated),
            ("<0>", .syntax), ("<123>", .syntax), ("<0x12>", .syntax), ("(a, /", .truncated), ("{a = b; /", .truncated),
            ("{} /", .syntax), ("(", .truncated), ("{", .truncated), ("{a", .truncated), ("{a =", .truncated),
            ("{a = b", .truncated), (")", .syntax), ("}", .syntax), (";", .syntax), ("=", .syntax), ("<*", .truncated),
        ]
        for (text, kind) in cases {
            let e = OS.error(text)
            #expect(e?.kind == kind, "\(text.debugDescription): \(String(describing: e))")
            #expect(e?.line != nil && e?.column != nil, "\(text.debugDescription)")
        }
        // Foundation also refuses these (the comment ones aside: CF accepts an unterminated trailing comment).
        for (text, _) in cases where !text.contains("/*") && text != ";" && text != "(a, /" && text != "{a = b; /" {
            #expect(OS.foundation(text) == nil, "\(text.debugDescription)")
        }
    }

    @Test func gnustepFormsAreReadAndReported() throws {
        let text = "{i = <*I-5>; u = <*I18446744073709551615>; r = <*R0.5>; n = <*Rnan>; f = <*R-inf>; t = <*BY>; "
            + "y = <*BN>; d = <*D2001-01-01 01:00:00 +0100>; b = <[AAE=]>; q = <*I\"7\">; s = plain;}"
        let (v, f) = try OS.read(text)
        #expect(f == .gnustep)
        #expect(v["i"] == .integer(-5))
        #expect(v["u"] == .integer(PlistInteger(UInt64.max)))
        #expect(v["r"] == 0.5)
        #expect(v["n"]?.realValue?.value.isNaN == true)
        #expect(v["f"] == .real(PlistReal(-Double.infinity)))
        #expect(v["t"] == true && v["y"] == false)
        #expect(v["d"] == .date(PlistDate(secondsSinceReferenceDate: 0)))
        #expect(v["b"] == .data(Data([0, 1])))
        #expect(v["q"] == .integer(7))
        #expect(v["s"] == "plain")
        // Foundation (CF) knows none of these.
        #expect(OS.foundation(text) == nil)
        #expect(try OS.read("{u = {CF$UID = <*I12>;};}").value == ["u": .uid(UID(12))])
        #expect(try OS.read("{u = {CF$UID = 12;};}").value == ["u": ["CF$UID": "12"]])
    }

    @Test func malformedGNUstepForms() throws {
        let cases: [(String, PlistError.Kind)] = [
            ("<*>", .syntax), ("<*I>", .syntax), ("<*F33>", .syntax), ("<*D5>", .invalidValue), ("<*D\"\">", .syntax),
            ("<*Ix>", .invalidValue), ("<*I18446744073709551616>", .integerOutOfRange),
            ("<*I-9223372036854775809>", .integerOutOfRange), ("<*Rabc>", .invalidValue), ("<*R0x10>", .invalidValue),
            ("<*BX>", .invalidValue), ("<*BYES>", .invalidValue), ("<*D2024-13-01 00:00:00 +0000>", .invalidValue),
            ("<*D2024-01-01 00:00:00>", .invalidValue), ("<*I5", .truncated), ("<[AAE=", .truncated),
            ("<[AAE=]", .syntax), ("<[A]>", .invalidValue), ("<[AA==]x", .syntax),
            // Data after padding and characters outside the alphabet are errors (plser refuses the first two too; it
            // skips the `*` of the third). An offset past 23:59 is no offset (GNUstep ignores such offsets).
            ("<[AA==AAEC]>", .invalidValue), ("<[!!!!]>", .invalidValue), ("<[AA AA*]>", .invalidValue),
            ("<*D2024-01-01 00:00:00 +2400>", .invalidValue), ("<*D2024-01-01 00:00:00 +0060>", .invalidValue),
        ]
        for (text, kind) in cases {
            let e = OS.error("(\n" + text + ")")
            #expect(e?.kind == kind, "\(text): \(String(describing: e))")
            #expect(e?.line == 2, "\(text): \(String(describing: e))")
        }
        // Each base64 refusal says why, at the offending character.
        for (text, message, column) in [("<[AA==AAEC]>", "after '=' padding", 7), ("<[AA!A]>", "byte 0x21 is not base64", 5),
                                        ("<[A]>", "a single character left over", 3)] {
            let e = OS.error("(\n" + text + ")")
            #expect(e?.message.contains(message) == true && e?.column == column, "\(text): \(String(describing: e))")
        }
    }
}

#!/usr/bin/env python3
"""Writes the XML corpus (Corpus/xml and Corpus/invalid/xml) and both manifests.

Run from anywhere: python3 Corpus/xml/tools/make_corpus.py

Valid files: the expected value comes from Python's plistlib (an independent XML plist reader) where plistlib
reads the file the way Core Foundation does; otherwise it is derived here from the rules in the reference
(plist-formats.md section 2.4), with the rule implemented independently of the Swift code (the CF day table for
dates, CF's base64 loop, the CF$UID rule). Invalid files: the error kind and line are hand-derived from the same rules.
"""
import base64
import datetime
import json
import math
import os
import plistlib
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
VALID = os.path.dirname(HERE)                                   # Corpus/xml
INVALID = os.path.join(os.path.dirname(VALID), "invalid", "xml")  # Corpus/invalid/xml

PROLOG = ('<?xml version="1.0" encoding="UTF-8"?>\n'
          '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">\n'
          '<plist version="1.0">\n')


def doc(body):
    return PROLOG + body + "\n</plist>\n"


# ---------------------------------------------------------------- typed JSON

REF = datetime.datetime(2001, 1, 1)


class UID:
    def __init__(self, n):
        self.n = n


class Date:
    """Seconds since 2001-01-01 (for dates Python's datetime cannot hold or that need CF normalisation)."""
    def __init__(self, seconds):
        self.seconds = seconds


def typed(v):
    if isinstance(v, bool):
        return {"bool": v}
    if isinstance(v, int):
        return {"integer": str(v)}
    if isinstance(v, float):
        if math.isnan(v):
            return {"real": "nan"}
        if math.isinf(v):
            return {"real": "inf" if v > 0 else "-inf"}
        if v == 0 and math.copysign(1, v) < 0:
            return {"real": "-0"}
        return {"real": v}
    if isinstance(v, str):
        return {"string": v}
    if isinstance(v, (bytes, bytearray)):
        return {"data": base64.b64encode(bytes(v)).decode()}
    if isinstance(v, datetime.datetime):
        if v.year >= 1600:
            return {"date": v.strftime("%Y-%m-%dT%H:%M:%SZ")}
        return {"date": (v - REF).total_seconds()}
    if isinstance(v, Date):
        return {"date": v.seconds}
    if isinstance(v, UID):
        return {"uid": v.n}
    if isinstance(v, list):
        return {"array": [typed(x) for x in v]}
    if isinstance(v, dict):
        return {"dict": [[k, typed(x)] for k, x in v.items()]}
    raise TypeError(type(v))


# ------------------------------------------------ rules derived from the reference

CF_DAYS_BEFORE_MONTH = [0, 0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334, 365]


def is_leap(y):
    return y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)


def cf_date(year, month, day, hour, minute, second):
    """CFGregorianDateGetAbsoluteTime: whole years, then CF's days-before-month table (months outside 2...13 count
    as 0), then days, hours, minutes, seconds added linearly."""
    days = (datetime.date(year, 1, 1) - datetime.date(2001, 1, 1)).days if 1 <= year <= 9999 else None
    if days is None:
        raise ValueError("year outside datetime's range")
    before = CF_DAYS_BEFORE_MONTH[month] + (1 if month > 2 and is_leap(year) else 0) if 0 <= month <= 13 else 0
    days += before + day - 1
    return Date(days * 86400 + hour * 3600 + minute * 60 + second)


B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"


def cf_base64(text):
    """CF's <data> loop: skip non-alphabet ASCII, '=' counts as a zero sextet and decides the final quantum's length,
    an incomplete final quantum is dropped."""
    out = bytearray()
    acc = count = equals = 0
    for ch in text:
        if ch == "=":
            equals += 1
        elif ch not in " \t\n\r\v\f":
            equals = 0
        if ch == "=":
            v = 0
        elif ch in B64:
            v = B64.index(ch)
        else:
            continue
        count += 1
        acc = ((acc << 6) | v) & 0xFFFFFF
        if count % 4 == 0:
            out.append(acc >> 16)
            if equals < 2:
                out.append((acc >> 8) & 0xFF)
            if equals < 1:
                out.append(acc & 0xFF)
    return bytes(out)


# ---------------------------------------------------------------- valid files

valid = []  # (file, bytes, value or None, oracle, produced, note, same_as)


def add(name, data, *, oracle="python3 plistlib", value=None, note="", same_as=None):
    if isinstance(data, str):
        data = data.encode("utf-8")
    if oracle == "python3 plistlib":
        value = plistlib.loads(data, fmt=plistlib.FMT_XML)
    valid.append((name, data, value, oracle, note, same_as))


HAND = "hand-derived from reference §2.4 (rule re-implemented in make_corpus.py)"

add("all-types.plist", doc("""<dict>
\t<key>array</key>
\t<array>
\t\t<integer>1</integer>
\t\t<string>two</string>
\t</array>
\t<key>data</key>
\t<data>
\tAAECAwQFBgcICQoLDA0ODw==
\t</data>
\t<key>date</key>
\t<date>2024-02-01T20:43:14Z</date>
\t<key>dict</key>
\t<dict>
\t\t<key>nested</key>
\t\t<true/>
\t</dict>
\t<key>false</key>
\t<false/>
\t<key>integer</key>
\t<integer>-42</integer>
\t<key>real</key>
\t<real>3.1415926535897931</real>
\t<key>string</key>
\t<string>hello &amp; &lt;world&gt;</string>
\t<key>true</key>
\t<true/>
</dict>"""), note="every value type, in Core Foundation's layout")

add("nested.plist", doc("""<array>
\t<dict>
\t\t<key>a</key>
\t\t<array>
\t\t\t<dict>
\t\t\t\t<key>b</key>
\t\t\t\t<array>
\t\t\t\t\t<array>
\t\t\t\t\t\t<string>deep</string>
\t\t\t\t\t\t<dict/>
\t\t\t\t\t\t<array/>
\t\t\t\t\t</array>
\t\t\t\t</array>
\t\t\t</dict>
\t\t</array>
\t\t<key>c</key>
\t\t<integer>3</integer>
\t</dict>
\t<string>after</string>
</array>"""), note="arrays and dictionaries inside each other")

UNICODE_BODY = """<dict>
\t<key>\u00e9</key>
\t<string>precomposed</string>
\t<key>e\u0301</key>
\t<string>combining acute: a different key</string>
\t<key>\U0001F600</key>
\t<string>astral \U0001F698 and CJK \u6f22\u5b57</string>
\t<key>\uff5e</key>
\t<string>\u05e9\u05dc\u05d5\u05dd \u0645\u0631\u062d\u0628\u0627 \ue000 \u2028</string>
</dict>"""
add("unicode-keys.plist", doc(UNICODE_BODY), note="é and e+U+0301 are two keys; astral, CJK, RTL, private use")

add("utf16le.plist", b"\xff\xfe" + doc(UNICODE_BODY).replace('encoding="UTF-8"', 'encoding="UTF-16"').encode("utf-16-le"),
    note="UTF-16LE with a byte-order mark")
add("utf16be-no-bom.plist", doc(UNICODE_BODY).replace('encoding="UTF-8"', 'encoding="UTF-16BE"').encode("utf-16-be"),
    note="UTF-16BE without a byte-order mark (recognised from the zero byte before '<')")
add("utf32le.plist", b"\xff\xfe\x00\x00" + doc(UNICODE_BODY).replace('encoding="UTF-8"', 'encoding="UTF-32"').encode("utf-32-le"),
    oracle="same_as", same_as="xml/unicode-keys.plist", note="UTF-32LE with a byte-order mark (expat cannot read it)")
add("latin1.plist", ('<?xml version="1.0" encoding="ISO-8859-1"?>\n<plist version="1.0">\n'
                     '<string>caf\u00e9 \u00bd</string>\n</plist>\n').encode("latin-1"),
    note="encoding declared as ISO-8859-1")

add("big-integers.plist", doc("""<array>
\t<integer>0</integer>
\t<integer>-1</integer>
\t<integer>9223372036854775807</integer>
\t<integer>-9223372036854775808</integer>
\t<integer>9223372036854775808</integer>
\t<integer>18446744073709551615</integer>
\t<integer>007</integer>
\t<integer>0x1F</integer>
\t<integer>0XfF</integer>
\t<integer>  42</integer>
\t<integer>+7</integer>
</array>"""), note="the whole range −2^63 … 2^64−1; leading zeros are decimal; hex; leading space and sign")

add("integer-spellings.plist", doc("""<array>
\t<integer>- 5</integer>
\t<integer>+\t5</integer>
\t<integer>-0x10</integer>
\t<integer>000</integer>
\t<integer>-0</integer>
\t<integer>0x00</integer>
</array>"""), oracle=HAND, value=[-5, 5, -16, 0, 0, 0],
    note="white space after the sign (CF allows it; plistlib does not)")

add("reals.plist", doc("""<array>
\t<real>0.10000000000000001</real>
\t<real>1e+20</real>
\t<real>-2.5</real>
\t<real>2</real>
\t<real>-0.0</real>
\t<real>4.9406564584124654e-324</real>
\t<real>1.7976931348623157e+308</real>
\t<real>  2.5</real>
\t<real>5.</real>
\t<real>.5</real>
\t<real>1E+2</real>
</array>"""), note="%.17g spellings, −0.0, subnormal and largest double, leading space, bare point")

add("reals-special.plist", doc("""<array>
\t<real>nan</real>
\t<real>NaN</real>
\t<real>+infinity</real>
\t<real>-infinity</real>
\t<real>inf</real>
\t<real>-inf</real>
\t<real>+inf</real>
\t<real>Infinity</real>
\t<real>INF</real>
</array>"""), note="every special word, in several cases")

add("dates.plist", doc("""<array>
\t<date>2001-01-01T00:00:00Z</date>
\t<date>1970-01-01T00:00:00Z</date>
\t<date>2024-02-29T23:59:59Z</date>
\t<date>9999-12-31T23:59:59Z</date>
\t<date>1600-03-01T12:00:00Z</date>
\t<date>0001-01-01T00:00:00Z</date>
</array>"""), note="ordinary dates, including the reference date and year 1")

add("dates-normalised.plist", doc("""<array>
\t<date>2024-02-30T25:61:61Z</date>
\t<date>2024-13-01T00:00:00Z</date>
\t<date>2024-00-10T00:00:00Z</date>
\t<date>2023-12-31T24:00:00Z</date>
\t<date>2024-01-00T00:00:00Z</date>
\t<date>2023-14-05T00:00:00Z</date>
</array>"""), oracle=HAND, value=[cf_date(2024, 2, 30, 25, 61, 61), cf_date(2024, 13, 1, 0, 0, 0),
                                    cf_date(2024, 0, 10, 0, 0, 0), cf_date(2023, 12, 31, 24, 0, 0),
                                    cf_date(2024, 1, 0, 0, 0, 0), cf_date(2023, 14, 5, 0, 0, 0)],
    note="out-of-range fields carry over as in CF (month 13 = next January; months 0 and 14+ count as January)")

B64_CASES = ["AA!!BB==", "AAB", "\n\t\tQUJD\n\t\tREVG\n\t", "QU JD", "QUJD====", "A=B=", "Zm9v\tYmFy", ""]
add("base64-oddities.plist", doc("<array>\n" + "".join(f"\t<data>{c}</data>\n" for c in B64_CASES) + "\t<data/>\n</array>"),
    oracle=HAND, value=[cf_base64(c) for c in B64_CASES] + [b""],
    note="non-alphabet ASCII skipped, '=' rules, incomplete final quantum dropped; <data/> is empty data")

add("cdata-comments-pi.plist", doc("""<!-- a comment before the root value -->
<dict>
\t<!-- between entries -->
\t<key><![CDATA[k&<>]]></key>
\t<string><![CDATA[<not markup> & "quotes"]]></string>
\t<?ignored processing instruction?>
\t<key>mixed</key>
\t<string>a<![CDATA[<b>]]>c</string>
</dict>
<!-- after -->"""), note="CDATA in keys and strings, comments and processing instructions between elements")

add("uid.plist", doc("""<array>
\t<dict>
\t\t<key>CF$UID</key>
\t\t<integer>0</integer>
\t</dict>
\t<dict>
\t\t<key>CF$UID</key>
\t\t<integer>4294967295</integer>
\t</dict>
\t<dict>
\t\t<key>CF$UID</key>
\t\t<string>not a number</string>
\t</dict>
\t<dict>
\t\t<key>CF$UID</key>
\t\t<integer>1</integer>
\t\t<key>other</key>
\t\t<true/>
\t</dict>
</array>"""), oracle=HAND, value=[UID(0), UID(4294967295), {"CF$UID": "not a number"}, {"CF$UID": 1, "other": True}],
    note="a one-key CF$UID dictionary holding an integer is a UID; anything else stays a dictionary")

add("empty-containers.plist", doc("""<dict>
\t<key>a</key>
\t<array/>
\t<key>b</key>
\t<dict/>
\t<key>c</key>
\t<array></array>
\t<key>d</key>
\t<dict></dict>
\t<key>e</key>
\t<string/>
\t<key>f</key>
\t<data></data>
\t<key></key>
\t<string></string>
</dict>"""), note="empty arrays, dictionaries, strings, data and an empty key")

DEPTH = 200
add(f"deep-{DEPTH}.plist", doc("<array>" * DEPTH + "<string>bottom</string>" + "</array>" * DEPTH),
    note=f"{DEPTH} nested arrays (legal; the 512 limit itself is tested in XMLReaderStructureTests)")

add("bare-root.plist", "<array>\n\t<string>no plist element</string>\n\t<integer>1</integer>\n</array>\n",
    note="no prolog, no <plist> element")

add("duplicate-keys.plist", doc("""<dict>
\t<key>a</key>
\t<integer>1</integer>
\t<key>b</key>
\t<integer>2</integer>
\t<key>a</key>
\t<integer>3</integer>
</dict>"""), note="the last value wins and keeps the first position")

add("entities-charrefs.plist", doc("""<array>
\t<string>&lt;&gt;&amp;&quot;&apos;</string>
\t<string>&#65;&#x42;&#233;&#128664;&#x1F600;</string>
</array>"""), note="the five predefined entities and decimal/hex character references, astral included")

add("whitespace-text.plist", doc("<array>\r\n\t<string>  leading and trailing  </string>\r\n"
                                 "\t<string>line one\r\nline two\rline three</string>\r\n\t<string>\ttab\t</string>\r\n</array>"),
    oracle="Foundation PropertyListSerialization (CF keeps CR in text; XMLReaderCorpusTests checks it)",
    value=["  leading and trailing  ", "line one\r\nline two\rline three", "\ttab\t"],
    note="CRLF file; CR LF and lone CR in text are kept as CF keeps them (plistlib, following XML end-of-line "
         "handling, would give LF); CR LF between elements is white space")

add("attribute-with-gt.plist", doc('<dict>\n\t<key Q=">">test</key>\n\t<string attr="a>b">v</string>\n</dict>'),
    note="an attribute value containing '>' (CF misreads it as the key '\">test'; XML, Python and libplist read 'test')")

add("control-characters.plist", doc("<dict>\n\t<key>bell\u0007</key>\n\t<string>esc \u001b[0m nul \u0000 end</string>\n</dict>"),
    oracle="hand-derived (CF writes these characters raw and reads them back; libplist agrees, XMLReaderEncodingTests)",
    value={"bell\u0007": "esc \u001b[0m nul \u0000 end"},
    note="raw C0 control characters in text, as CF writes them (not XML characters: plistlib cannot read this file)")

add("bom-utf8.plist", b"\xef\xbb\xbf" + doc("<string>after a UTF-8 byte-order mark</string>").encode())

add("nested-plist.plist", doc('<array>\n\t<plist version="1.0"><string>a</string></plist>\n\t<dict>\n'
                              '\t\t<key>k</key>\n\t\t<plist><integer>1</integer></plist>\n\t</dict>\n</array>'),
    note="<plist> nested as a value stands for the object it holds (CF, plistlib and libplist agree)")

add("xml-version-2.plist", '<?xml version="2.0" encoding="UTF-8"?>\n<plist version="1.0">\n<string>v</string>\n</plist>\n',
    note="an XML version libxml2 refuses; CF, plistlib and libplist read the document")

add("encoding-name-spellings.plist", '<?xml version="1.0" encoding="Latin-1"?>\n<plist version="1.0">\n<string>caf'.encode()
    + b"\xe9" + b"</string>\n</plist>\n",
    note="Latin-1, a spelling iconv does not know: CF matches charset names loosely, plistlib and libplist accept it")

add("space-before-declaration.plist", "\n  " + PROLOG + "<string>x</string>\n</plist>\n",
    oracle="Foundation PropertyListSerialization (XMLReaderCorpusTests checks it; libplist agrees)", value="x",
    note="white space before the XML declaration, which scripts often leave: CF and libplist read it, the XML "
         "specification and plistlib do not")

add("key-outside-dict.plist", doc("<array>\n\t<key>k</key>\n</array>"), value=["k"],
    oracle="Core Foundation as the Swift toolchain's plutil runs it (AcceptanceRulesTests compares the two live)",
    note="<key> where a value belongs is a string, as CF reads it; plistlib refuses it")

# ---------------------------------------------------------------- invalid files

invalid = []  # (file, bytes, kind, line, note)


def bad(name, data, kind, line, note):
    if isinstance(data, str):
        data = data.encode("utf-8")
    invalid.append((name, data, kind, line, note))


# The prolog takes lines 1-3, so a body's first line is line 4.
bad("integer-trailing-space.plist", doc("<array>\n\t<integer>42 </integer>\n</array>"), "invalidValue", 5,
    "trailing white space in <integer>")
bad("integer-letters.plist", doc("<integer>12a</integer>"), "invalidValue", 4, "a hex digit in a decimal integer")
bad("integer-empty.plist", doc("<integer></integer>"), "invalidValue", 4, "empty <integer>")
bad("integer-overflow.plist", doc("<integer>18446744073709551616</integer>"), "integerOutOfRange", 4, "2^64")
bad("integer-underflow.plist", doc("<integer>-9223372036854775809</integer>"), "integerOutOfRange", 4, "−2^63 − 1")
bad("real-trailing-space.plist", doc("<real>1.5 </real>"), "invalidValue", 4, "trailing white space in <real>")
bad("real-hex.plist", doc("<real>0x10</real>"), "invalidValue", 4, "hex is not a real")
bad("real-word.plist", doc("<real>infinite</real>"), "invalidValue", 4, "not one of the special words")
bad("date-fraction.plist", doc("<date>2024-02-01T20:43:14.5Z</date>"), "invalidValue", 4, "fractional seconds")
bad("date-offset.plist", doc("<date>2024-02-01T20:43:14+01:00</date>"), "invalidValue", 4, "a zone other than Z")
bad("data-non-ascii.plist", doc("<data>QUJD\u00e9</data>"), "invalidValue", 4, "a byte ≥ 0x80 in <data>")
bad("true-not-empty.plist", doc("<true>yes</true>"), "invalidValue", 4, "non-empty <true>")
bad("two-roots.plist", doc("<string>a</string>\n<string>b</string>"), "rootCount", 5, "two objects in <plist>")
bad("empty-plist.plist", doc(""), "rootCount", 5, "<plist> with no object")
bad("two-top-level-elements.plist", "<string>a</string>\n<string>b</string>\n", "rootCount", 2,
    "two root elements without <plist>")
bad("entity-declaration.plist", '<?xml version="1.0"?>\n<!DOCTYPE plist [\n<!ENTITY lol "lol">\n'
    '<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">\n]>\n<plist><string>&lol2;</string></plist>\n',
    "forbiddenConstruct", 2, "billion laughs: refused where the internal subset starts, as CF refuses it")
bad("external-entity.plist", '<?xml version="1.0"?>\n<!DOCTYPE plist [\n<!ENTITY xxe SYSTEM "file:///etc/passwd">\n]>\n'
    '<plist><string>&xxe;</string></plist>\n', "forbiddenConstruct", 2, "XXE: an external entity")
bad("parameter-entity.plist", '<?xml version="1.0"?>\n<!DOCTYPE plist [\n<!ENTITY % p SYSTEM "http://127.0.0.1:9/p.dtd">\n'
    '%p;\n]>\n<plist><true/></plist>\n', "forbiddenConstruct", 2, "an external parameter entity (never fetched)")
bad("unknown-entity.plist", doc("<string>&nbsp;</string>"), "syntax", 4, "an entity that is not predefined")
bad("unknown-tag.plist", doc("<array>\n\t<integer>1</integer>\n\t<float>1.5</float>\n</array>"), "syntax", 6,
    "an element that is not part of the plist grammar")
bad("missing-value.plist", doc("<dict>\n\t<key>a</key>\n\t<integer>1</integer>\n\t<key>b</key>\n</dict>"), "syntax", 8,
    "a key without a value")
bad("non-key-in-dict.plist", doc("<dict>\n\t<string>a</string>\n</dict>"), "syntax", 5, "a value where a key belongs")
bad("text-in-array.plist", doc("<array>\n\tloose text\n</array>"), "syntax", 5, "character data between elements")
bad("element-in-string.plist", doc("<string>a<b>bold</b></string>"), "syntax", 4, "markup inside a string")
bad("text-after-plist.plist", doc("<true/>") + "trailing junk\n", "syntax", 6,
    "text after the root element (CF ignores it; XML forbids it)")
bad("unterminated.plist", PROLOG + "<array>\n\t<string>a</string>\n", "truncated", 6, "the document stops inside <array>")
bad("invalid-utf8.plist", (PROLOG + "<dict>\n\t<key>k</key>\n\t<string>caf").encode() + b"\xc3\x28" +
    b"</string>\n</dict>\n</plist>\n", "encoding", 6, "a malformed UTF-8 sequence (offset of its first byte)")
bad("utf16-lone-surrogate.plist", b"\xff\xfe" + "<plist>\n<string>a".encode("utf-16-le") + b"\x00\xd8" +
    "</string>\n</plist>\n".encode("utf-16-le"), "encoding", 2, "an unpaired UTF-16 surrogate")
bad("control-character-in-tag.plist", doc("<str\u0001ing>x</string>"), "syntax", 4,
    "a raw control character inside markup (in text it is read, as CF and libplist do)")
bad("depth-513.plist", "<plist>" + "<array>" * 513 + "</array>" * 513 + "</plist>\n", "depthLimit", 1,
    "513 nested arrays: one more than the default limit of 512")


# ---------------------------------------------------------------- write

def write_manifest(path, entries):
    with open(os.path.join(path, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump({"files": entries}, f, ensure_ascii=False, indent=1)
        f.write("\n")


def main():
    os.makedirs(INVALID, exist_ok=True)
    entries = []
    for name, data, value, oracle, note, same_as in valid:
        with open(os.path.join(VALID, name), "wb") as f:
            f.write(data)
        e = {"file": name, "produced": "written by Corpus/xml/tools/make_corpus.py", "format": "xml"}
        if same_as:
            e["same_as"] = same_as
            e["oracle"] = "same document as " + same_as + " in another encoding"
        else:
            e["value"] = typed(value)
            e["oracle"] = oracle
        if note:
            e["note"] = note
        entries.append(e)
    write_manifest(VALID, entries)
    entries = []
    for name, data, kind, line, note in invalid:
        with open(os.path.join(INVALID, name), "wb") as f:
            f.write(data)
        entries.append({"file": name, "produced": "written by Corpus/xml/tools/make_corpus.py",
                        "error": kind, "line": line,
                        "oracle": "hand-derived from reference §2.4 and the XML specification", "note": note})
    write_manifest(INVALID, entries)
    print(f"{len(valid)} valid and {len(invalid)} invalid XML corpus files")


if __name__ == "__main__":
    main()

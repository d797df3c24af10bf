#!/usr/bin/env python3
"""Writes Corpus/keyed-archives/: hand-built NSKeyedArchiver archives (valid and hostile) and their manifest.

The archives are built with plistlib from the layouts swift-corelibs-foundation writes (NSKeyedArchiver.swift and
the classes' encode(with:)); each expected plain value is derived by hand from the plain-decoding rules in README.md,
and each hostile case names the error kind, words its message must hold and its key path.
"""
import json, os, plistlib, sys
from plistlib import UID

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Corpus", "keyed-archives")
ARRAY = {"$classname": "NSArray", "$classes": ["NSArray", "NSObject"]}
DICT = {"$classname": "NSDictionary", "$classes": ["NSDictionary", "NSObject"]}

def archive(objects, top=None, **over):
    d = {"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": top or {"root": UID(1)}, "$objects": objects}
    d.update(over)
    return d

def s(v): return {"string": v}
def i(v): return {"integer": str(v)}
def arr(*v): return {"array": list(v)}
def dct(*pairs): return {"dict": [[k, v] for k, v in pairs]}

files = []

def xml_uids(v):
    """plistlib's XML writer has no UID: CF's XML form, a one-key CF$UID dictionary."""
    if isinstance(v, UID): return {"CF$UID": v.data}
    if isinstance(v, list): return [xml_uids(e) for e in v]
    if isinstance(v, dict): return {k: xml_uids(e) for k, e in v.items()}
    return v

def add(name, plist, fmt, note, plain=None, error=None, mentions=(), key_path=None):
    if fmt == "xml": plist = xml_uids(plist)
    data = plistlib.dumps(plist, fmt=plistlib.FMT_BINARY if fmt == "binary" else plistlib.FMT_XML, sort_keys=False)
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
    entry = {"file": name, "produced": "python3 plistlib (%s) in scripts/make-keyed-archive-corpus.py" % fmt, "note": note}
    if error:
        entry.update({"error": error, "mentions": list(mentions), "oracle": "the hostile-input rules of the format reference"})
        if key_path is not None: entry["key_path"] = key_path
    else:
        entry.update({"plain": plain, "oracle": "hand-derived from README's plain-decoding rules"})
    files.append(entry)

# Valid archives.
add("array.bplist", archive(["$null", {"$class": UID(3), "NS.objects": [UID(2), UID(2)]}, "baa", ARRAY]), "binary",
    "an NSArray with a shared string", plain=arr(s("baa"), s("baa")))
add("dictionary.xml", archive(["$null", {"$class": UID(5), "NS.keys": [UID(2), UID(3)], "NS.objects": [UID(4), UID(0)]},
                               "a", "b", 7, DICT]), "xml", "an NSDictionary; a nil value becomes \"$null\"",
    plain=dct(("a", i(7)), ("b", s("$null"))))
add("url-uuid-date.bplist", archive(["$null", {"$class": UID(9), "NS.objects": [UID(2), UID(6), UID(8)]},
    {"$class": UID(5), "NS.base": UID(3), "NS.relative": UID(4)},
    {"$class": UID(5), "NS.base": UID(0), "NS.relative": UID(10)},
    "file.txt", {"$classname": "NSURL", "$classes": ["NSURL", "NSObject"]},
    {"$class": UID(7), "NS.uuidbytes": bytes(range(16))}, {"$classname": "NSUUID", "$classes": ["NSUUID", "NSObject"]},
    {"$class": UID(11), "NS.time": 1.5}, ARRAY, "https://example.com/dir/", {"$classname": "NSDate", "$classes": ["NSDate", "NSObject"]}]),
    "binary", "a URL with a base, a UUID and a date",
    plain=arr(s("https://example.com/dir/file.txt"), s("00010203-0405-0607-0809-0A0B0C0D0E0F"), {"date": 1.5}))
add("custom-cycle.xml", archive(["$null", {"$class": UID(2), "children": [UID(3)], "$$name": "parent"},
                                 {"$classname": "Node", "$classes": ["Node", "NSObject"]},
                                 {"$class": UID(2), "parent": UID(1), "$$name": "child"}]), "xml",
    "a parent/child cycle through a custom class: a {$ref} marker; escaped keys kept as stored",
    plain=dct(("$class", s("Node")), ("children", arr(dct(("$class", s("Node")), ("parent", dct(("$ref", i(1)))), ("$$name", s("child"))))),
              ("$$name", s("parent"))))
add("counted-set.bplist", archive(["$null", {"$class": UID(4), "NS.count": 2, "NS.object0": UID(2), "NS.count0": 2,
                                             "NS.object1": UID(3), "NS.count1": 1}, "x", "y",
                                   {"$classname": "NSCountedSet", "$classes": ["NSCountedSet", "NSMutableSet", "NSSet", "NSObject"]}]),
    "binary", "an NSCountedSet: each object as many times as its count", plain=arr(s("x"), s("x"), s("y")))
add("two-top-keys.xml", archive(["$null", "a", "b"], top={"first": UID(1), "second": UID(2)}), "xml",
    "several $top keys: a dictionary of them", plain=dct(("first", s("a")), ("second", s("b"))))
add("index-path.bplist", archive(["$null", {"$class": UID(2), "NSIndexPathLength": 3, "NSIndexPathData": bytes([4, 8, 0x80, 0x01])},
                                  {"$classname": "NSIndexPath", "$classes": ["NSIndexPath", "NSObject"]}]), "binary",
    "an NSIndexPath with LEB128 indices (128 takes two bytes)", plain=arr(i(4), i(8), i(128)))

# Hostile archives.
add("uid-past-table.bplist", archive(["$null", {"$class": UID(2), "NS.objects": [UID(9)]}, ARRAY]), "binary",
    "a UID past the table", error="invalidReference", mentions=["UID 1", "UID 9", "3 entries"], key_path="$objects.1.NS\\.objects.0")
add("class-description-uid.bplist",
    archive(["$null", {"$cLass": UID(2), "NS.count": 1}, {"$classname": "NSSet", "other": ["NSSet", UID(9)]}]), "binary",
    "a UID past the table inside a class description's own field (a fuzz find: it was decoded unchecked)",
    error="invalidReference", mentions=["UID 2", "UID 9", "3 entries"], key_path="$objects.2.other.1")
add("class-not-a-class.xml", archive(["$null", {"$class": UID(2)}, "NSArray"]), "xml",
    "$class pointing at a string", error="invalidReference", mentions=["UID 1", "UID 2", "not a class description"], key_path="$objects.1.$class")
add("class-chain-loop.bplist", archive(["$null", {"$class": UID(2)}, {"$class": UID(1)}]), "binary",
    "class chains that loop", error="invalidReference", mentions=["loops", "UID 1 → UID 2 → UID 1"], key_path="$objects.1.$class")
add("keys-objects-lengths.bplist", archive(["$null", {"$class": UID(3), "NS.keys": [UID(2), UID(2)], "NS.objects": [UID(2)]}, "k", DICT]),
    "binary", "NS.keys longer than NS.objects (Foundation reads out of bounds)", error="invalidValue",
    mentions=["UID 1", "NS.keys has 2", "NS.objects has 1"], key_path="root.NS\\.keys")
add("non-string-key.xml", archive(["$null", {"$class": UID(3), "NS.keys": [UID(2)], "NS.objects": [UID(2)]}, 7, DICT]), "xml",
    "an integer dictionary key", error="nonStringKey", mentions=["UID 1", "the integer 7"], key_path="root.NS\\.keys.0")
add("missing-top.bplist", {"$archiver": "NSKeyedArchiver", "$version": 100000, "$objects": ["$null"]}, "binary",
    "no $top", error="invalidValue", mentions=["no $top"], key_path="$top")
add("other-archiver.xml", archive(["$null", "x"], **{"$archiver": "NSArchiver"}), "xml",
    "another $archiver", error="unsupportedFormat", mentions=["\"NSArchiver\""], key_path="$archiver")
add("array-cycle.bplist", archive(["$null", {"$class": UID(2), "NS.objects": [UID(3)]}, ARRAY, {"$class": UID(2), "NS.objects": [UID(1)]}]),
    "binary", "an NSArray that contains itself through another (Foundation recurses without end)", error="cycle",
    mentions=["cycle", "UID 1", "NSArray"], key_path="root.0.0")
add("dict-cycle.xml", archive(["$null", {"$class": UID(3), "NS.keys": [UID(2)], "NS.objects": [UID(1)]}, "self", DICT]), "xml",
    "an NSDictionary whose value is itself", error="cycle", mentions=["UID 1", "NSDictionary"], key_path="root.self")
deep = ["$null"] + [{"$class": UID(602), "NS.objects": [UID(k + 1)] if k < 600 else []} for k in range(1, 601)] + ["pad", ARRAY]
add("deep-chain.bplist", archive(deep), "binary", "600 nested arrays, past the 512 depth cap", error="depthLimit",
    mentions=["UID 513", "512"], key_path="root." + ".".join(["0"] * 512))
inline = ["$null"] + [{"a": [UID(k + 1)] if k < 300 else []} for k in range(1, 301)]
add("inline-depth.bplist", archive(inline), "binary",
    "300 raw dictionaries each holding the next in an inline array: 600 levels of plain value past the 512 depth cap "
    "(a fuzz find: only object levels were counted, and the plain value could not be written again)",
    error="depthLimit", mentions=["UID 257", "512"], key_path="root." + ".".join(["a.0"] * 256))
dag = ["$null"] + [{"$class": UID(66), "NS.objects": [UID(k + 1), UID(k + 1)]} for k in range(1, 64)] + [{"$class": UID(66), "NS.objects": [UID(65)]}, "leaf", ARRAY]
add("shared-dag.bplist", archive(dag), "binary", "a DAG of depth 64 whose tree form has 2^64 values: the node budget",
    error="countLimit", mentions=["maxPlainNodes"], key_path="root." + ".".join(["0"] * 41 + ["1"]))
add("null-not-first.xml", archive(["x", "y"]), "xml", "$objects[0] is not \"$null\"", error="invalidValue",
    mentions=["UID 0"], key_path="$objects.0")

with open(os.path.join(OUT, "manifest.json"), "w") as f:
    json.dump({"files": files}, f, indent=1, ensure_ascii=False)
    f.write("\n")

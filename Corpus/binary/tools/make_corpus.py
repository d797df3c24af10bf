#!/usr/bin/env python3
"""Writes Corpus/binary/* and Corpus/invalid/binary/* and their manifest.json files.

Valid files are written by CPython's plistlib or assembled byte by byte below (for layouts plistlib never writes:
3-byte offsets, 4-byte reals, 16-byte negative integers, shared subtrees, other minor versions). Every valid file's
expected value is what plistlib.loads() returns for it (the independent oracle), converted to typed JSON.
Invalid files are assembled byte by byte; the expected error kind is the rule from the reference (§2.4, §4) that
the file breaks. Run from anywhere: python3 Corpus/binary/tools/make_corpus.py
"""
import base64, datetime, json, math, os, plistlib, struct, subprocess, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
VALID = os.path.dirname(HERE)
INVALID = os.path.join(os.path.dirname(VALID), 'invalid', 'binary')
REF = datetime.datetime(2001, 1, 1)


def be(v, n):
    return v.to_bytes(n, 'big', signed=v < 0)


def sized(token, n):
    if n < 15:
        return bytes([token | n])
    for marker, width in ((0x10, 1), (0x11, 2), (0x12, 4), (0x13, 8)):
        if n < 1 << (8 * width):
            return bytes([token | 0xF, marker]) + be(n, width)


def ascii_(s):
    return sized(0x50, len(s)) + s.encode('ascii')


def utf16(s):
    b = s.encode('utf-16be')
    return sized(0x60, len(b) // 2) + b


def assemble(objects, offset_size=1, ref_size=1, top=0, magic=b'bplist00', count=None, table_offset=None,
             offsets=None, gap=b'', declared_offset_size=None):
    out = bytearray(magic)
    real_offsets = []
    for o in objects:
        real_offsets.append(len(out))
        out += o
    tbl = len(out)
    for v in (offsets if offsets is not None else real_offsets):
        out += be(v, offset_size)
    out += gap
    out += bytes(6) + bytes([offset_size if declared_offset_size is None else declared_offset_size, ref_size])
    out += be(len(objects) if count is None else count, 8) + be(top, 8)
    out += be(tbl if table_offset is None else table_offset, 8)
    return bytes(out)


def refs(values, size=1):
    return b''.join(be(v, size) for v in values)


def typed(v):
    if isinstance(v, bool):
        return {'bool': v}
    if isinstance(v, int):
        return {'integer': str(v)}
    if isinstance(v, float):
        if math.isnan(v):
            return {'real': 'nan'}
        if math.isinf(v):
            return {'real': 'inf' if v > 0 else '-inf'}
        if v == 0 and math.copysign(1, v) < 0:
            return {'real': '-0'}
        return {'real': repr(v)}
    if isinstance(v, str):
        return {'string': v}
    if isinstance(v, bytes):
        return {'data': base64.b64encode(v).decode()}
    if isinstance(v, datetime.datetime):
        return {'date': (v - REF).total_seconds()}
    if isinstance(v, plistlib.UID):
        return {'uid': v.data}
    if isinstance(v, list):
        return {'array': [typed(e) for e in v]}
    if isinstance(v, dict):
        return {'dict': [[k, typed(e)] for k, e in v.items()]}
    raise TypeError(type(v))


valid = []


def add_valid(name, data, produced, note, same_as=None, value=None, oracle=None):
    with open(os.path.join(VALID, name), 'wb') as f:
        f.write(data)
    entry = {'file': name, 'format': 'binary', 'produced': produced, 'note': note}
    if same_as:
        entry['same_as'] = same_as
        entry['oracle'] = 'same bytes as ' + same_as + ' apart from the noted difference'
    elif oracle:
        entry['value'] = typed(value)
        entry['oracle'] = oracle
    else:
        entry['value'] = typed(plistlib.loads(data))
        entry['oracle'] = 'python3 plistlib.loads'
    valid.append(entry)


PY = 'python3 plistlib.dumps(fmt=FMT_BINARY) in tools/make_corpus.py'
HAND = 'assembled byte by byte in tools/make_corpus.py'

# --- valid: written by plistlib ---------------------------------------------------------------------------------
add_valid('plistlib-all-types.bplist', plistlib.dumps({
    'string': 'hello', 'unicode': 'h\u00e9llo \u4e2d\U0001F600', 'empty': '', 'int': 42, 'negative': -5,
    'big': 2**64 - 1, 'int64max': 2**63 - 1, 'int64min': -2**63, 'real': 0.1, 'nan': float('nan'),
    'inf': float('inf'), 'negzero': -0.0, 'true': True, 'false': False,
    'date': datetime.datetime(2024, 2, 1, 20, 43, 14), 'old-date': datetime.datetime(1, 1, 1),
    'frac-date': REF + datetime.timedelta(seconds=1.5), 'data': bytes(range(40)), 'array': [1, 'two', [3.0]],
    'dict': {'nested': {'deep': []}}, 'nul': 'a\x00b'}, fmt=plistlib.FMT_BINARY), PY,
    'every type plistlib writes, including 16-byte 2^64-1, NaN/inf/-0 reals, a year-1 date and U+0000')
add_valid('plistlib-2byte-refs.bplist', plistlib.dumps(
    {'k%03d' % i: [i * 1000, 's%d' % i] for i in range(300)}, fmt=plistlib.FMT_BINARY), PY,
    'more than 255 objects: 2-byte object references')
add_valid('plistlib-4byte-offsets.bplist', plistlib.dumps(
    [bytes(70000), 'after'], fmt=plistlib.FMT_BINARY), PY,
    'offset table past 65535: plistlib writes 4-byte offsets')
add_valid('plistlib-uids.bplist', plistlib.dumps(
    [plistlib.UID(0), plistlib.UID(255), plistlib.UID(256), plistlib.UID(70000), plistlib.UID(2**40)],
    fmt=plistlib.FMT_BINARY), PY, 'UIDs of 1, 2, 4 and 8 bytes')
add_valid('plistlib-lengths.bplist', plistlib.dumps({
    's14': 'a' * 14, 's15': 'b' * 15, 's16': 'c' * 16, 's255': 'd' * 255, 's256': 'e' * 256,
    'u15': '\u00e9' * 15, 'd15': bytes(15), 'a15': list(range(15)), 'a16': list(range(16))},
    fmt=plistlib.FMT_BINARY), PY, 'lengths around the 15 boundary and the 1-/2-byte length integers')
add_valid('plistlib-utf16.bplist', plistlib.dumps([
    '\u00e9', 'e\u0301', '\U0001F600\U0001F64F', '\uFFFD\uFEFF\u2028', 'mixed ascii and \u4e2d\u6587',
    '\u0000\u0001'], fmt=plistlib.FMT_BINARY), PY, 'UTF-16 strings: BMP, surrogate pairs, combining marks, NUL')
add_valid('plistlib-scalar-root.bplist', plistlib.dumps('just a string', fmt=plistlib.FMT_BINARY), PY,
          'a scalar as the root object')

# --- valid: assembled by hand -----------------------------------------------------------------------------------
big = b'\x4f\x12' + be(70000, 4) + bytes(70000)
add_valid('offsets-3byte.bplist', assemble(
    [b'\xa3' + refs([1, 2, 3], 3), big, ascii_('x'), b'\x10\x07'], offset_size=3, ref_size=3), HAND,
    '3-byte offset table and 3-byte object references (as swift-foundation and Xcode files have)')
add_valid('offsets-odd-widths.bplist', assemble(
    [b'\xa2' + refs([1, 2], 5), ascii_('five'), b'\x10\x05'], offset_size=7, ref_size=5), HAND,
    '7-byte offsets, 5-byte references')
add_valid('int-16byte.bplist', assemble([
    b'\xa5' + refs([1, 2, 3, 4, 5]),
    b'\x14' + be(0, 8) + be(2**64 - 1, 8),
    b'\x14' + be(-1, 16),
    b'\x14' + be(-2**63, 16),
    b'\x14' + be(5, 16),
    b'\x13' + be(7, 8)]), HAND,
    '16-byte integers: 2^64-1, -1, -2^63 and a non-minimal 5; a non-minimal 8-byte 7')
add_valid('real-float32.bplist', assemble([
    b'\xa4' + refs([1, 2, 3, 4]),
    b'\x22' + struct.pack('>f', 1.5), b'\x22' + struct.pack('>f', 0.1),
    b'\x22' + struct.pack('>f', float('-inf')), b'\x23' + struct.pack('>d', 0.1)]), HAND,
    '4-byte reals (as CF writes Float and libplist writes small reals) next to an 8-byte one')
shared = assemble([
    b'\xa3' + refs([1, 1, 4]),
    b'\xd1' + refs([2, 3]),
    ascii_('key'), b'\xa1' + refs([5]),
    b'\xa2' + refs([3, 3]),
    ascii_('leaf')])
add_valid('shared-subtrees.bplist', shared, HAND,
          'one dictionary referenced twice from the root and one array referenced three times (no cycle)')
add_valid('ascii-and-utf16-keys.bplist', assemble([
    b'\xd2' + refs([1, 2, 3, 4]), ascii_('plain'), utf16('\u00fcber'), b'\x09', b'\x08']), HAND,
    'dictionary keys in both string encodings')
CF = ("Core Foundation as the Swift toolchain's plutil runs it (AcceptanceRulesTests compares the two live); "
      "CFBinaryPList.c")
add_valid('duplicate-keys.bplist', assemble([
    b'\xd2' + refs([1, 1, 2, 3]), ascii_('k'), b'\x10\x01', b'\x10\x02']), HAND,
    'the same key twice: the default policy keeps the first, as CF does (CFDictionaryAddValue keeps a key already '
    'there); plistlib keeps the last', value={'k': 1}, oracle=CF)
add_valid('unreferenced-objects.bplist', assemble([
    b'\xa1' + refs([1]), b'\x09', b'\x09', b'\x08']), HAND,
    'unreferenced duplicate booleans, as CF writes them (reference §0.2)')
n = 50
aliased = assemble([b'\xaf\x10' + be(n, 1) + refs(range(1, n + 1)), b'\x4f\x10\x28' + bytes(range(40))],
                   count=n + 1, offsets=[8] + [8 + 3 + n] * n)
add_valid('aliased-objects.bplist', aliased, HAND,
          '50 offset entries aliasing one 40-byte data object: 14 times the object area if each were decoded, so '
          'it is read once, by offset (CF, libplist and plistlib read such files)')
add_valid('length-16byte.bplist', assemble([
    b'\xa2' + refs([1, 2]), b'\x5f\x14' + be(3, 16) + b'abc', b'\xaf\x14' + be(1, 16) + refs([1])]), HAND,
    'lengths written as 16-byte integers (high half zero), for a string and an array',
    value=['abc', ['abc']],
    oracle='Foundation PropertyListSerialization and libplist plistutil read this value (BinaryLengthTests asks '
           'Foundation); plistlib misreads the length width and returns empty objects')
# Strings CF reads and plistlib refuses: lone UTF-16 surrogates (CF keeps them; they write, and read here, as
# U+FFFD) and bytes >= 0x80 under the ASCII marker (CF takes each byte as its ISO Latin-1 code point).
add_valid('utf16-lone-high.bplist', assemble([b'\x62\x00\x41\xd8\x00']), HAND,
          'high surrogate at the end of a string', value='A\ufffd', oracle=CF)
add_valid('utf16-lone-low.bplist', assemble([b'\x62\xdc\x00\x00\x41']), HAND,
          'low surrogate first', value='\ufffdA', oracle=CF)
add_valid('utf16-high-high.bplist', assemble([b'\x62\xd8\x00\xd8\x00']), HAND,
          'two high surrogates', value='\ufffd\ufffd', oracle=CF)
add_valid('ascii-high-byte.bplist', assemble([b'\x53\x61\xe9\x62']), HAND,
          'byte 0xE9 under the ASCII string marker', value='a\u00e9b', oracle=CF)
v01 = bytearray(shared)
v01[7] = ord('1')
add_valid('version-bplist01.bplist', bytes(v01), HAND + ' (shared-subtrees.bplist with magic bplist01)',
          'CF accepts any bplist0? version', same_as='binary/shared-subtrees.bplist')
try:
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, 'in.plist')
        with open(src, 'wb') as f:
            plistlib.dump({'name': 'libplist', 'reals': [1.5, 2.0, 0.1], 'n': 300, 'nested': {'b': True}}, f)
        subprocess.run(['plistutil', '-i', src, '-o', os.path.join(d, 'out.bplist'), '-f', 'bin'], check=True)
        with open(os.path.join(d, 'out.bplist'), 'rb') as f:
            add_valid('libplist-written.bplist', f.read(),
                      'plistutil (libplist 2.2) -f bin from an XML file written by plistlib, in tools/make_corpus.py',
                      'libplist layout: interleaved dictionary objects, 4-byte reals for values that fit')
except FileNotFoundError:
    print('plistutil not installed: libplist-written.bplist not regenerated')
    old = os.path.join(VALID, 'libplist-written.bplist')
    if os.path.exists(old):
        with open(old, 'rb') as f:
            data = f.read()
        valid.append({'file': 'libplist-written.bplist', 'format': 'binary', 'value': typed(plistlib.loads(data)),
                      'oracle': 'python3 plistlib.loads', 'produced': 'plistutil (libplist 2.2) -f bin',
                      'note': 'libplist layout'})

# --- invalid ----------------------------------------------------------------------------------------------------
invalid = []


def add_invalid(name, data, error, note):
    with open(os.path.join(INVALID, name), 'wb') as f:
        f.write(data)
    try:
        plistlib.loads(data)
        python = 'plistlib accepts it'
    except Exception as e:  # noqa: BLE001 - any failure is a rejection
        python = 'plistlib rejects it too (%s)' % type(e).__name__
    invalid.append({'file': name, 'error': error, 'produced': HAND, 'oracle': 'reference rule; ' + python,
                    'note': note})


ok = assemble([b'\xa2' + refs([1, 2]), ascii_('abc'), b'\x10\x01'])
add_invalid('truncated-trailer.bplist', ok[:-1], 'truncated',
            'last byte missing: the last 32 bytes are no trailer (its unused bytes are not zero), reported as truncation')
add_invalid('truncated-header-only.bplist', b'bplist00', 'truncated', 'header and nothing else')
add_invalid('truncated-half.bplist', ok[:20], 'truncated', 'cut in the middle')
for magic, note in ((b'bplist15', 'CF private version 1.5'), (b'bplist16', 'NSXPC wire format'),
                    (b'bplist17', 'private variant'), (b'bplist1x', 'any 1x version'), (b'bplist20', 'version 2')):
    add_invalid('version-%s.bplist' % magic[6:].decode(), assemble([b'\x10\x01'], magic=magic),
                'unsupportedVersion', note + ': "unsupported binary plist version"')
add_invalid('trailer-offset-size-0.bplist', assemble([b'\x10\x01'], declared_offset_size=0), 'syntax', 'offset size 0')
add_invalid('trailer-ref-size-9.bplist', assemble([b'\xa1\x01', b'\x10\x01'], ref_size=9), 'syntax',
            'reference size 9')
add_invalid('trailer-count-0.bplist', assemble([b'\x10\x01'], count=0), 'invalidReference', 'no objects')
add_invalid('trailer-count-huge.bplist', assemble([b'\x10\x01'], count=2**62), 'truncated',
            '2^62 objects claimed in a 43-byte file')
add_invalid('trailer-top-past-count.bplist', assemble([b'\x10\x01'], top=1), 'invalidReference',
            'top object 1 of 1')
add_invalid('trailer-table-in-header.bplist', assemble([b'\x10\x01'], table_offset=4), 'invalidReference',
            'offset table offset inside the header')
add_invalid('trailer-table-past-end.bplist', assemble([b'\x10\x01'], table_offset=2**40), 'invalidReference',
            'offset table offset past the end')
add_invalid('trailer-gap.bplist', assemble([b'\x10\x01'], gap=b'\x00\x00'), 'syntax',
            'bytes between the offset table and the trailer (CF rejects them)')
add_invalid('refsize-too-small.bplist',
            assemble([b'\xaf\x11\x01\x00' + refs(range(1, 257), 2)[:256]] + [b'\x10\x01'] * 256,
                     offset_size=2, ref_size=1),
            'invalidReference', '257 objects with 1-byte references')
add_invalid('offsetsize-too-small.bplist',
            assemble([b'\x4f\x11\x01\x2c' + bytes(300)], offset_size=1), 'invalidReference',
            'offset table at 312 with 1-byte offsets')
add_invalid('offset-into-header.bplist', assemble([b'\xa1\x01', b'\x10\x01'], offsets=[8, 3]),
            'invalidReference', 'object offset 3 points into the header')
add_invalid('offset-into-table.bplist', assemble([b'\xa1\x01', b'\x10\x01'], offsets=[8, 12]),
            'invalidReference', 'object offset points at the offset table')
add_invalid('offset-into-trailer.bplist', assemble([b'\xa1\x01', b'\x10\x01'], offsets=[8, 20]),
            'invalidReference', 'object offset points into the trailer')
add_invalid('ref-past-count.bplist', assemble([b'\xa2\x01\x07', b'\x10\x01']), 'invalidReference',
            'array element reference 7 of 2 objects')
add_invalid('data-length-2e62.bplist', assemble([b'\x4f\x13' + be(2**62, 8)]), 'truncated',
            'data claiming 2^62 bytes (must fail before allocating)')
add_invalid('string-length-2e62.bplist', assemble([b'\x5f\x13' + be(2**62, 8)]), 'truncated',
            'ASCII string claiming 2^62 bytes')
add_invalid('utf16-length-past-end.bplist', assemble([b'\x6f\x11\xff\xff\x00\x41']), 'truncated',
            'UTF-16 string claiming 65535 units')
add_invalid('array-count-huge.bplist', assemble([b'\xaf\x13' + be(2**60, 8)]), 'truncated',
            'array claiming 2^60 elements')
add_invalid('dict-count-past-end.bplist', assemble([b'\xd5\x01\x01', b'\x10\x01']), 'truncated',
            'dictionary of 5 pairs with 2 reference bytes')
add_invalid('length-16byte-high-half.bplist', assemble([b'\x5f\x14' + be(2**64 + 3, 16) + b'abc']), 'truncated',
            'a 16-byte length whose high half is not zero: more elements than any file holds')
add_invalid('length-32byte.bplist', assemble([b'\x5f\x15' + be(3, 32) + b'abc']), 'syntax',
            'a length written as a 32-byte integer, which is not an object type (CF reads its low 64 bits)')
add_invalid('length-not-integer.bplist', assemble([b'\x4f\x50\x01']), 'syntax',
            'length marker followed by a string instead of an integer')
add_invalid('cycle-self.bplist', assemble([b'\xa1\x00']), 'cycle', 'an array containing itself')
add_invalid('cycle-two-steps.bplist', assemble([b'\xa1\x01', b'\xd1\x02\x00', ascii_('k')]), 'cycle',
            'array -> dictionary value -> array')
deep = [b'\xa1' + be(i + 1, 2) for i in range(300)] + [b'\xa1' + be(0, 2)]
add_invalid('cycle-300-steps.bplist', assemble(deep, offset_size=2, ref_size=2), 'cycle',
            'a 301-array ring')
nest = [b'\xa1' + be(i + 1, 2) for i in range(513)] + [b'\x10\x01']
add_invalid('depth-513.bplist', assemble(nest, offset_size=2, ref_size=2), 'depthLimit',
            '513 nested arrays (CF and PlistKit allow 512)')
for marker, name, note in ((b'\x00', 'null', 'null (0x00), v1x only'), (b'\x0f', 'fill', 'fill byte (0x0F)'),
                           (b'\x71\x41', 'utf8-string', 'UTF-8 string marker 0x7n, v1x only'),
                           (b'\xc1\x01', 'set', 'set 0xCn'), (b'\xb1\x01', 'ordset', 'ordered set 0xBn'),
                           (b'\x24' + bytes(16), 'real-16byte', '16-byte real'),
                           (b'\x15' + bytes(32), 'int-32byte', '32-byte integer'),
                           (b'\x34' + bytes(8), 'date-marker-34', 'date with a wrong size nibble'),
                           (b'\x91', 'marker-9', 'unassigned marker 0x9n'), (b'\xe0', 'marker-e', '0xEn'),
                           (b'\xf0', 'marker-f', '0xFn')):
    add_invalid('marker-%s.bplist' % name, assemble([b'\xa1\x01', marker]), 'syntax', 'unknown marker: ' + note)
add_invalid('int-16byte-too-big.bplist', assemble([b'\x14' + be(1, 8) + be(0, 8)]), 'integerOutOfRange',
            '16-byte integer 2^64')
add_invalid('int-16byte-too-small.bplist', assemble([b'\x14' + be(-2**63 - 1, 16)]), 'integerOutOfRange',
            '16-byte integer -2^63-1')
add_invalid('key-not-string.bplist', assemble([b'\xd1\x01\x01', b'\x10\x01']), 'nonStringKey',
            'an integer as dictionary key')
add_invalid('key-is-array.bplist', assemble([b'\xd1\x01\x02', b'\xa0', b'\x10\x01']), 'nonStringKey',
            'an array as dictionary key')
n = 2000
region = b'\x4f\x10\xff' * n + bytes(255)
overlap = assemble([b'\xaf\x11' + be(n, 2) + refs(range(1, n + 1), 2), region],
                   offset_size=2, ref_size=2, count=n + 1,
                   offsets=[8] + [8 + 4 + 2 * n + 3 * i for i in range(n)])
add_invalid('overlapping-objects.bplist', overlap, 'invalidReference',
            '2000 data objects at distinct offsets inside one another, each claiming the 255 bytes after it: '
            'decoding them all would read 86 times the object area')

for folder, entries in ((VALID, valid), (INVALID, invalid)):
    with open(os.path.join(folder, 'manifest.json'), 'w') as f:
        json.dump({'files': entries}, f, indent=1, ensure_ascii=True)
        f.write('\n')
print(len(valid), 'valid,', len(invalid), 'invalid')

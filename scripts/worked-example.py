#!/usr/bin/env python3
"""Redraw the hex dumps of docs/file-format.md's worked example (section 5).

    UTRACE_WORKED_EXAMPLE=/tmp/ex.dat build/tests/unit/test_tracedat
    scripts/worked-example.py /tmp/ex.dat docs/file-format.md

The unit test keeps its example file where the variable says.  A dump block
whose bytes moved (a format added before it) is found again by its first
row and redrawn, 16-byte aligned, with as many rows; the shift is printed
so that the prose offsets around it can be moved by as much."""
import re
import sys

ROW = re.compile(r'^([0-9a-f]{8}): ')


def row(data, off):
    chunk = data[off:off + 16]
    hexs = ' '.join(chunk[i:i + 2].hex() for i in range(0, len(chunk), 2))
    text = ''.join(chr(b) if 32 <= b < 127 else '.' for b in chunk)
    return f'{off:08x}: {hexs:<39}  {text}'


def old_bytes(line):
    hexpart = line[10:10 + 39]
    return bytes.fromhex(hexpart.replace(' ', ''))


def main():
    data = open(sys.argv[1], 'rb').read()
    lines = open(sys.argv[2]).read().split('\n')
    in5 = False
    i = 0
    while i < len(lines):
        if lines[i].startswith('## '):
            in5 = 'Worked example' in lines[i]
        m = ROW.match(lines[i]) if in5 else None
        if not m:
            i += 1
            continue
        j = i
        while j < len(lines) and ROW.match(lines[j]):
            j += 1
        start = int(m.group(1), 16)
        first = old_bytes(lines[i])
        if data[start:start + len(first)] != first:
            found = data.find(first, max(0, start - 4096))
            if found < 0:
                sys.exit(f'{start:#x}: block not found in {sys.argv[1]}')
            print(f'block at {start:#x} moved by {found - start:+#x}')
            start = found & ~15
        lines[i:j] = [row(data, start + 16 * k) for k in range(j - i)]
        i = j
    open(sys.argv[2], 'w').write('\n'.join(lines))


main()

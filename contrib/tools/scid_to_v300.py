#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""Convert a version-400 SCID database into a version-300 (SCID 3) one.

usage: scid_to_v300.py IN_BASE OUT_BASE

IN_BASE.si4 (header 182 bytes, version 400, 47-byte entries) becomes OUT_BASE.si4 with
the SCID 3 layout (spec/scid4.md §2): a 128-byte header (magic, version 300, base type,
game count, autoload, description; no custom-flag names) followed by 46-byte entries,
each being the 47-byte entry without byte 6 (length bit 16 and custom flags 1-6).
IN_BASE.sn4 and IN_BASE.sg4 are copied unchanged.

Refuses (exit 1) when a record is 65536 bytes or longer (needs length bit 16, which
version 300 cannot store) or when OUT_BASE files exist. Custom flags 1-6, if set, are
lost; the script reports how many games had them. SCID 4.7.4 opens the result read-only.
"""

import os
import shutil
import struct
import sys

MAGIC = b"Scid.si\0"
HDR400, HDR300 = 182, 128
ENT400, ENT300 = 47, 46


def convert(inb, outb):
    with open(inb + ".si4", "rb") as f:
        data = f.read()
    if len(data) < HDR400 or data[:8] != MAGIC:
        raise SystemExit(f"{inb}.si4: not a SCID index file")
    version = struct.unpack(">H", data[8:10])[0]
    if version != 400:
        raise SystemExit(f"{inb}.si4: version {version}, expected 400")
    num = int.from_bytes(data[14:17], "big")
    if len(data) != HDR400 + ENT400 * num:
        raise SystemExit(f"{inb}.si4: size {len(data)} does not match {num} games")
    for ext in ("si4", "sn4", "sg4"):
        if os.path.exists(f"{outb}.{ext}"):
            raise SystemExit(f"{outb}.{ext} exists; refusing to overwrite")
    out = bytearray(data[:HDR300])
    out[8:10] = struct.pack(">H", 300)
    custom = 0
    for k in range(num):
        e = data[HDR400 + ENT400 * k: HDR400 + ENT400 * (k + 1)]
        if e[6] & 0x80:
            raise SystemExit(f"game {k + 1}: record length >= 65536, not storable in version 300")
        if e[6] & 0x3F:
            custom += 1
        out += e[:6] + e[7:]
    with open(outb + ".si4", "wb") as f:
        f.write(out)
    shutil.copyfile(inb + ".sn4", outb + ".sn4")
    shutil.copyfile(inb + ".sg4", outb + ".sg4")
    print(f"wrote {outb}.si4 (version 300, {num} games, {len(out)} bytes)"
          + (f"; custom flags dropped from {custom} games" if custom else ""))


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().split("\n")[2], file=sys.stderr)
        return 2
    strip = lambda b: b[:-4] if b.endswith(".si4") else b  # noqa: E731
    convert(strip(argv[0]), strip(argv[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Regenerate the OLED bitmap fonts from Debian's xfonts-terminus package (run by hand, rarely).

The screens use bitmap fonts, not TrueType: a 1-bit 128x64 panel needs crisp glyphs, and a
bitmap font draws the same pixels under every Pillow and FreeType version, so the reference PNGs
compare exactly on a PC and on Raspberry Pi OS (Pillow 9.4). The glyphs are Terminus Font 4.48
(SIL OFL 1.1, see OFL.txt), converted from PCF to Pillow's own .pil/.pbm format; as the OFL asks
of a converted font, the files do not carry the reserved name. Usage::

    apt-get download xfonts-terminus && dpkg-deb -x xfonts-terminus_*.deb /tmp/ter
    python hardware/fonts/make_fonts.py /tmp/ter/usr/share/fonts/X11/misc
"""

from __future__ import annotations

import gzip
import io
import sys
from pathlib import Path

from PIL import PcfFontFile

# our name -> the Terminus file it comes from (pixel height, b = bold)
SIZES = {"mono-12b": "ter-u12b", "mono-16b": "ter-u16b", "mono-24b": "ter-u24b",
         "mono-32b": "ter-u32b"}


def main(source: Path) -> None:
    """Convert each size's ISO 8859-1 PCF file into ``<name>.pil`` + ``<name>.pbm`` here."""
    here = Path(__file__).resolve().parent
    for name, terminus in SIZES.items():
        data = gzip.decompress((source / f"{terminus}_iso-8859-1.pcf.gz").read_bytes())
        PcfFontFile.PcfFontFile(io.BytesIO(data)).save(str(here / f"{name}.pil"))
        print(f"{terminus} -> {name}.pil")


if __name__ == "__main__":
    main(Path(sys.argv[1]))

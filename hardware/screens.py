"""The OLED's screens, drawn with PIL on a 128x64 1-bit canvas (1 = lit pixel).

One screen shows one thing, large enough to read at arm's length: the prompt with its options,
the roll as read, a result, a message, and at idle the join QR code with the address.

Everything is drawn from bitmap fonts (``fonts/``, Terminus Font in Pillow's own format) and
integer rectangles and points only: no TrueType, ellipse or polygon rasterisers, whose pixels
change between Pillow and FreeType releases. So the same call gives the same pixels on a PC and
on Raspberry Pi OS (Pillow 9.4), and the reference PNGs in ``tests/hardware/reference`` compare
exactly. The fonts cover ISO 8859-1 (English, German and other Western European text); other
characters are replaced (``->`` for an arrow, ``?`` otherwise).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from urllib.parse import urlsplit

from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT = 128, 64
FONT_SIZES = (12, 16, 24, 32)  # pixel heights; the glyphs are half as wide (monospace)
FONT_DIR = Path(__file__).resolve().parent / "fonts"
ELLIPSIS = ".."

_REPLACEMENTS = {
    "\u2192": "->", "\u2190": "<-", "\u2026": "...", "\u2013": "-", "\u2014": "-",
    "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2212": "-", "\u00a0": " ",
}

# pips and symbols as pixel masks ('#' lit), drawn point by point so they never change
_PIP_4 = (".##.", "####", "####", ".##.")
_PIP_5 = (".###.", "#####", "#####", "#####", ".###.")
_FUEL = (  # a drop of fuel
    ".....#.....",
    ".....#.....",
    "....###....",
    "....###....",
    "...#####...",
    "..#######..",
    "..#######..",
    ".#########.",
    ".#########.",
    "###########",
    "###########",
    "###########",
    ".#########.",
    "..#######..",
    "...#####...",
)
_ALERT = (  # a warning triangle with its exclamation mark cut out
    ".......#.......",
    "......###......",
    "......###......",
    ".....##.##.....",
    ".....##.##.....",
    "....###.###....",
    "....###.###....",
    "...####.####...",
    "...####.####...",
    "..###########..",
    "..#####.#####..",
    ".#############.",
    "###############",
)
_PIP_LAYOUTS: dict[str, tuple[tuple[int, int], ...]] = {
    "1": ((0, 0),),
    "2": ((1, -1), (-1, 1)),
    "3": ((1, -1), (0, 0), (-1, 1)),
    "4": ((-1, -1), (1, -1), (-1, 1), (1, 1)),
    "5": ((-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)),
    "6": ((-1, -1), (-1, 0), (-1, 1), (1, -1), (1, 0), (1, 1)),
}


@cache
def font(size: int) -> ImageFont.ImageFont:
    """The bold bitmap font ``size`` pixels high (12, 16, 24 or 32).

    :raises ValueError: for another size.
    """
    if size not in FONT_SIZES:
        raise ValueError(f"no {size} px font; sizes are {FONT_SIZES}")
    return ImageFont.load(str(FONT_DIR / f"mono-{size}b.pil"))


def clean(text: str) -> str:
    """``text`` in the fonts' ISO 8859-1 repertoire: arrows and dashes spelt out, others ``?``."""
    out = []
    for ch in text:
        ch = _REPLACEMENTS.get(ch, ch)
        out.append(ch if all(ord(c) < 256 for c in ch) else "?")
    return "".join(out)


def text_width(text: str, size: int) -> int:
    """Width in pixels of ``text`` in the ``size`` font (monospace: half the height per char)."""
    return len(text) * (size // 2)


def wrap(text: str, size: int, width: int | Sequence[int]) -> list[str]:
    """Break ``text`` into lines that fit ``width`` pixels (a width per line, the last repeats).

    Breaks at spaces and at explicit newlines; a word longer than a line is split.
    """
    widths = [width] if isinstance(width, int) else list(width)
    lines: list[str] = []

    def room() -> int:
        return max(1, widths[min(len(lines), len(widths) - 1)] // (size // 2))

    for paragraph in clean(text).split("\n"):
        line = ""
        for word in paragraph.split():
            candidate = f"{line} {word}" if line else word
            if len(candidate) <= room():
                line = candidate
                continue
            if line:
                lines.append(line)
            while len(word) > room():
                lines.append(word[: room()])
                word = word[room():]
            line = word
        lines.append(line)
    return lines


def truncate(text: str, size: int, width: int) -> str:
    """``text`` cut to ``width`` pixels, ending in ``..`` when cut."""
    chars = width // (size // 2)
    if len(text) <= chars:
        return text
    return text[: max(0, chars - len(ELLIPSIS))] + ELLIPSIS


def blank() -> tuple[Image.Image, ImageDraw.ImageDraw]:
    """A dark 128x64 1-bit canvas and its drawing context."""
    image = Image.new("1", (WIDTH, HEIGHT), 0)
    return image, ImageDraw.Draw(image)


def prompt_screen(title: str, options: Sequence[str], highlighted: int) -> Image.Image:
    """The pending decision: the title (up to two lines), then the options with the highlighted
    one inverted, scrolled so it is in view, and a counter such as ``2/5`` top right.

    :raises ValueError: if ``highlighted`` is not an index of ``options`` (unless there are none).
    """
    if options and not 0 <= highlighted < len(options):
        raise ValueError(f"highlighted {highlighted} is not one of {len(options)} options")
    image, draw = blank()
    counter = f"{highlighted + 1}/{len(options)}" if options else ""
    counter_w = text_width(counter, 12) + 4 if counter else 0
    lines = wrap(title, 12, [WIDTH - counter_w, WIDTH])
    if len(lines) > 2:
        lines = [lines[0], truncate(lines[1] + " " + " ".join(lines[2:]), 12, WIDTH)]
    for i, line in enumerate(lines):
        draw.text((0, 12 * i), line, font=font(12), fill=1)
    if counter:
        draw.text((WIDTH - text_width(counter, 12), 0), counter, font=font(12), fill=1)
    rule_y = 12 * len(lines)
    draw.line([(0, rule_y), (WIDTH - 1, rule_y)], fill=1)
    top = rule_y + 2
    if not options:
        draw.text((4, top), "(no choice)", font=font(12), fill=1)
        return image
    rows = max(1, (HEIGHT - top) // 16)
    first = min(max(0, highlighted - (rows - 1) // 2), max(0, len(options) - rows))
    for row, index in enumerate(range(first, min(first + rows, len(options)))):
        y = top + 16 * row
        label = clean(options[index]).replace("\n", " ")
        size = 16 if text_width(label, 16) <= WIDTH - 8 else 12
        label = truncate(label, size, WIDTH - 8)
        fill = 1
        if index == highlighted:
            draw.rectangle([(0, y), (WIDTH - 1, y + 15)], fill=1)
            fill = 0
        draw.text((4, y + (16 - size) // 2), label, font=font(size), fill=fill)
    return image


def roll_screen(faces: Sequence[str], title: str = "Roll") -> Image.Image:
    """The roll as read: each die a lit square with dark pips, the fuel face a drop.

    Up to four dice in one row of 28 px dice, five or six in two rows of 23 px (more dice get
    smaller); an unknown face shows as ``?``.
    """
    image, draw = blank()
    draw.text((0, 0), truncate(clean(title), 12, WIDTH - 48), font=font(12), fill=1)
    if not faces:
        _centred(draw, ["no dice"], 16, top=14, bottom=HEIGHT)
        return image
    count = f"{len(faces)} {'die' if len(faces) == 1 else 'dice'}"
    draw.text((WIDTH - text_width(count, 12), 0), count, font=font(12), fill=1)
    gap = 4
    if len(faces) <= 4:
        per_row, size = len(faces), 28
    else:  # two rows; more than six dice (not in MLEM) get smaller
        per_row = (len(faces) + 1) // 2
        size = min(23, (WIDTH - gap * (per_row - 1)) // per_row)
    rows = [list(faces[i:i + per_row]) for i in range(0, len(faces), per_row)]
    area_top = 14
    total_h = len(rows) * size + (len(rows) - 1) * 3
    y = area_top + (HEIGHT - area_top - total_h) // 2
    for row in rows:
        row_w = len(row) * size + (len(row) - 1) * gap
        x = (WIDTH - row_w) // 2
        for face in row:
            _die(draw, x, y, size, str(face))
            x += size + gap
        y += size + 3
    return image


def result_screen(text: str) -> Image.Image:
    """A result in the largest font that fits without breaking a word: "CRASH 4/11"."""
    image, draw = blank()
    for size in sorted(FONT_SIZES, reverse=True):
        lines = wrap(text, size, WIDTH - 4)
        fits = len(lines) * size <= HEIGHT and all(
            len(w) <= (WIDTH - 4) // (size // 2) for w in clean(text).split()
        )
        if fits:
            break
    else:  # too long even at 12 px: what fits
        size = 12
        lines = wrap(text, size, WIDTH - 4)[: HEIGHT // size]
    _centred(draw, lines, size, top=0, bottom=HEIGHT)
    return image


def message_screen(text: str, *, alert: bool = True) -> Image.Image:
    """A message, such as an error ("Camera lost: enter dice on phone") beside a warning sign,
    or with ``alert=False`` a plain centred notice; long text shrinks to 12 px, then is cut.
    """
    image, draw = blank()
    left = 19 if alert else 2
    width = WIDTH - left - 1
    for size in (16, 12):
        lines = wrap(text, size, width)
        if len(lines) * size <= HEIGHT:
            break
    else:
        lines = wrap(text, 12, width)[: HEIGHT // 12]
        lines[-1] = truncate(lines[-1] + ELLIPSIS * 2, 12, width)
    if not alert:
        _centred(draw, lines, size, top=0, bottom=HEIGHT)
        return image
    _mask(draw, (1, (HEIGHT - len(_ALERT)) // 2), _ALERT)
    y = (HEIGHT - len(lines) * size) // 2
    for line in lines:  # left-aligned against the sign
        draw.text((left, y), line, font=font(size), fill=1)
        y += size
    return image


def idle_screen(url: str, ip: str, code: str) -> Image.Image:
    """Waiting for players: a QR code of ``url`` on the left (dark modules on a lit square, with
    a quiet zone of at least 1.5 modules), the pairing ``code`` and the address to type on the
    right: the IP address (mDNS names fail on many phones), with the port if it is not 80/443.

    A URL of up to 53 characters fits QR version 3, drawn at 2 px a module (about 10 mm on a
    0.96" panel); a longer one falls back to 1 px modules, which phones read only up close.
    """
    import segno  # pure Python; imported here so the other screens do not need it

    image, draw = blank()
    qr = segno.make(url, error="l", micro=False, boost_error=True)
    matrix = qr.matrix
    n = len(matrix)
    scale = max(1, HEIGHT // (n + 3))
    side = HEIGHT
    draw.rectangle([(0, 0), (side - 1, side - 1)], fill=1)
    offset = (side - n * scale) // 2
    for r, row in enumerate(matrix):
        for c, dark in enumerate(row):
            if dark:
                x, y = offset + c * scale, offset + r * scale
                draw.rectangle([(x, y), (x + scale - 1, y + scale - 1)], fill=0)
    # the right column: pairing code, then the address
    left = side + 3
    width = WIDTH - left
    code = clean(code)
    code_size = next((s for s in (24, 16) if text_width(code, s) <= width), 12)
    address = clean(ip)
    port = _port(url)
    if port is not None:
        address += f":{port}"
    address_lines = _split_address(address, width // 6)
    blocks: list[tuple[str, int]] = [("Code", 12), (truncate(code, code_size, width), code_size)]
    blocks += [(line, 12) for line in address_lines]
    while sum(size for _, size in blocks) > HEIGHT and blocks[0][0] == "Code":
        blocks.pop(0)  # the label goes first when the address needs the room
    total = sum(size for _, size in blocks)
    y = max(0, (HEIGHT - total) // 2)
    for text, size in blocks:
        if y + size > HEIGHT:
            break
        draw.text((left, y), text, font=font(size), fill=1)
        y += size
    return image


def _centred(draw: ImageDraw.ImageDraw, lines: Sequence[str], size: int, *, top: int,
             bottom: int, left: int = 0, right: int = WIDTH) -> None:
    """Draw ``lines`` centred in the box, each line centred horizontally."""
    y = top + (bottom - top - len(lines) * size) // 2
    for line in lines:
        x = left + (right - left - text_width(line, size)) // 2
        draw.text((x, y), line, font=font(size), fill=1)
        y += size


def _mask(draw: ImageDraw.ImageDraw, origin: tuple[int, int], rows: Sequence[str],
          fill: int = 1) -> None:
    """Draw a pixel mask ('#' = pixel) with its top-left corner at ``origin``."""
    x0, y0 = origin
    points = [(x0 + x, y0 + y) for y, row in enumerate(rows) for x, ch in enumerate(row)
              if ch == "#"]
    if points:
        draw.point(points, fill=fill)


def _die(draw: ImageDraw.ImageDraw, x: int, y: int, size: int, face: str) -> None:
    """One lit die with rounded corners (two pixels cut) and its face drawn dark."""
    draw.rectangle([(x, y), (x + size - 1, y + size - 1)], fill=1)
    corners = [(0, 0), (1, 0), (0, 1)]
    for dx, dy in corners:
        for px, py in ((x + dx, y + dy), (x + size - 1 - dx, y + dy),
                       (x + dx, y + size - 1 - dy), (x + size - 1 - dx, y + size - 1 - dy)):
            draw.point((px, py), fill=0)
    pip = _PIP_5 if size >= 26 else _PIP_4
    centre = size // 2
    if face in _PIP_LAYOUTS:
        step = round(size * 0.27)
        half = len(pip) // 2
        for dx, dy in _PIP_LAYOUTS[face]:
            _mask(draw, (x + centre + dx * step - half, y + centre + dy * step - half), pip, 0)
    elif face == "fuel":
        _mask(draw, (x + (size - len(_FUEL[0])) // 2, y + (size - len(_FUEL)) // 2), _FUEL, 0)
    else:
        label = "?"
        draw.text((x + (size - 8) // 2, y + (size - 16) // 2), label, font=font(16), fill=0)


def _port(url: str) -> int | None:
    """The port of ``url`` when a person must type it (not the scheme's default)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    default = {"http": 80, "https": 443}.get(parts.scheme)
    return None if port is None or port == default else port


def _split_address(address: str, chars: int) -> list[str]:
    """Break an address into lines of at most ``chars`` characters: an IPv4 address in two
    halves ("192.168." / "1.23:8080"), anything else after dots and colons.
    """
    if len(address) <= chars:
        return [address]
    ipv4 = re.fullmatch(r"(\d+\.\d+\.)(\d+\.\d+)(:\d+)?", address)
    if ipv4:
        head, tail, port = ipv4.group(1), ipv4.group(2), ipv4.group(3) or ""
        if len(tail + port) <= chars:
            return [head, tail + port]
        return [head, tail, port]
    lines: list[str] = []
    line = ""
    for part in re.findall(r"[^.:]+[.:]?|[.:]", address):
        if len(line) + len(part) <= chars:
            line += part
            continue
        if line:
            lines.append(line)
        while len(part) > chars:
            lines.append(part[:chars])
            part = part[chars:]
        line = part
    if line:
        lines.append(line)
    return lines

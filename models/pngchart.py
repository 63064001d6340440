"""Horizontal bar charts as PNG files, with no plotting library: a minimal
PNG encoder (zlib + struct), a 5x7 bitmap font and a few drawing helpers on
an (H, W, 3) uint8 NumPy canvas.

    panels = [("forward", [("tpucc", 634.7), ("NumPy eager", 2100.0)])]
    write_bar_chart("demo.png", "VGG19, batch 2", panels, unit="ms")
"""
from __future__ import annotations

import struct
import zlib

import numpy as np

# --- PNG ------------------------------------------------------------------------------

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunk(kind: bytes, data: bytes) -> bytes:
    """length, type, data, CRC-32 of type + data (PNG spec, section 5.3)."""
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def encode_png(pixels: np.ndarray) -> bytes:
    """An (H, W, 3) uint8 RGB image -> the bytes of a PNG file (8-bit
    truecolor, no interlacing, filter type 0 on every scanline)."""
    pixels = np.asarray(pixels)
    if pixels.ndim != 3 or pixels.shape[2] != 3 or pixels.dtype != np.uint8:
        raise ValueError(f"encode_png needs an (H, W, 3) uint8 array, got {pixels.shape} "
                         f"{pixels.dtype}")
    height, width = pixels.shape[:2]
    if height == 0 or width == 0:
        raise ValueError("encode_png: the image is empty")
    # Each scanline starts with its filter-type byte (0: the raw bytes follow).
    rows = np.concatenate([np.zeros((height, 1), np.uint8),
                           np.ascontiguousarray(pixels).reshape(height, width * 3)], axis=1)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)   # depth 8, RGB
    return (PNG_SIGNATURE + _chunk(b"IHDR", header)
            + _chunk(b"IDAT", zlib.compress(rows.tobytes(), 9)) + _chunk(b"IEND", b""))


def write_png(path, pixels: np.ndarray) -> None:
    with open(path, "wb") as f:
        f.write(encode_png(pixels))


# --- the font ---------------------------------------------------------------------------
# Each glyph is 5 pixels wide; rows from the top, "1" = ink.  Rows 0-6 hold
# capitals and digits; lowercase descenders (g j p q y) use rows 7-8.

GLYPH_WIDTH, GLYPH_HEIGHT = 5, 9

_GLYPHS = {
    " ": "00000 00000 00000 00000 00000 00000 00000",
    "0": "01110 10001 10011 10101 11001 10001 01110",
    "1": "00100 01100 00100 00100 00100 00100 01110",
    "2": "01110 10001 00001 00010 00100 01000 11111",
    "3": "11111 00010 00100 00010 00001 10001 01110",
    "4": "00010 00110 01010 10010 11111 00010 00010",
    "5": "11111 10000 11110 00001 00001 10001 01110",
    "6": "00110 01000 10000 11110 10001 10001 01110",
    "7": "11111 00001 00010 00100 01000 01000 01000",
    "8": "01110 10001 10001 01110 10001 10001 01110",
    "9": "01110 10001 10001 01111 00001 00010 01100",
    "A": "01110 10001 10001 11111 10001 10001 10001",
    "B": "11110 10001 10001 11110 10001 10001 11110",
    "C": "01110 10001 10000 10000 10000 10001 01110",
    "D": "11100 10010 10001 10001 10001 10010 11100",
    "E": "11111 10000 10000 11110 10000 10000 11111",
    "F": "11111 10000 10000 11110 10000 10000 10000",
    "G": "01110 10001 10000 10111 10001 10001 01111",
    "H": "10001 10001 10001 11111 10001 10001 10001",
    "I": "01110 00100 00100 00100 00100 00100 01110",
    "J": "00111 00010 00010 00010 00010 10010 01100",
    "K": "10001 10010 10100 11000 10100 10010 10001",
    "L": "10000 10000 10000 10000 10000 10000 11111",
    "M": "10001 11011 10101 10101 10001 10001 10001",
    "N": "10001 10001 11001 10101 10011 10001 10001",
    "O": "01110 10001 10001 10001 10001 10001 01110",
    "P": "11110 10001 10001 11110 10000 10000 10000",
    "Q": "01110 10001 10001 10001 10101 10010 01101",
    "R": "11110 10001 10001 11110 10100 10010 10001",
    "S": "01111 10000 10000 01110 00001 00001 11110",
    "T": "11111 00100 00100 00100 00100 00100 00100",
    "U": "10001 10001 10001 10001 10001 10001 01110",
    "V": "10001 10001 10001 10001 10001 01010 00100",
    "W": "10001 10001 10001 10101 10101 10101 01010",
    "X": "10001 10001 01010 00100 01010 10001 10001",
    "Y": "10001 10001 10001 01010 00100 00100 00100",
    "Z": "11111 00001 00010 00100 01000 10000 11111",
    "a": "00000 00000 01110 00001 01111 10001 01111",
    "b": "10000 10000 10110 11001 10001 10001 11110",
    "c": "00000 00000 01110 10000 10000 10001 01110",
    "d": "00001 00001 01101 10011 10001 10001 01111",
    "e": "00000 00000 01110 10001 11111 10000 01110",
    "f": "00110 01001 01000 11100 01000 01000 01000",
    "g": "00000 00000 01111 10001 10001 10001 01111 00001 01110",
    "h": "10000 10000 10110 11001 10001 10001 10001",
    "i": "00100 00000 01100 00100 00100 00100 01110",
    "j": "00010 00000 00110 00010 00010 00010 00010 10010 01100",
    "k": "10000 10000 10010 10100 11000 10100 10010",
    "l": "01100 00100 00100 00100 00100 00100 01110",
    "m": "00000 00000 11010 10101 10101 10101 10101",
    "n": "00000 00000 10110 11001 10001 10001 10001",
    "o": "00000 00000 01110 10001 10001 10001 01110",
    "p": "00000 00000 11110 10001 10001 10001 11110 10000 10000",
    "q": "00000 00000 01111 10001 10001 10001 01111 00001 00001",
    "r": "00000 00000 10110 11001 10000 10000 10000",
    "s": "00000 00000 01111 10000 01110 00001 11110",
    "t": "01000 01000 11100 01000 01000 01001 00110",
    "u": "00000 00000 10001 10001 10001 10011 01101",
    "v": "00000 00000 10001 10001 10001 01010 00100",
    "w": "00000 00000 10001 10001 10101 10101 01010",
    "x": "00000 00000 10001 01010 00100 01010 10001",
    "y": "00000 00000 10001 10001 10001 10001 01111 00001 01110",
    "z": "00000 00000 11111 00010 00100 01000 11111",
    ".": "00000 00000 00000 00000 00000 01100 01100",
    ",": "00000 00000 00000 00000 01100 00100 01000",
    ":": "00000 01100 01100 00000 01100 01100 00000",
    ";": "00000 01100 01100 00000 01100 00100 01000",
    "(": "00010 00100 01000 01000 01000 00100 00010",
    ")": "01000 00100 00010 00010 00010 00100 01000",
    "[": "01110 01000 01000 01000 01000 01000 01110",
    "]": "01110 00010 00010 00010 00010 00010 01110",
    "-": "00000 00000 00000 11111 00000 00000 00000",
    "+": "00000 00100 00100 11111 00100 00100 00000",
    "=": "00000 00000 11111 00000 11111 00000 00000",
    "/": "00001 00001 00010 00100 01000 10000 10000",
    "%": "11000 11001 00010 00100 01000 10011 00011",
    "_": "00000 00000 00000 00000 00000 00000 11111",
    "<": "00010 00100 01000 10000 01000 00100 00010",
    ">": "01000 00100 00010 00001 00010 00100 01000",
    "*": "00000 00100 10101 01110 10101 00100 00000",
    "#": "01010 01010 11111 01010 11111 01010 01010",
    "'": "00100 00100 01000 00000 00000 00000 00000",
    '"': "01010 01010 00000 00000 00000 00000 00000",
    "!": "00100 00100 00100 00100 00100 00000 00100",
    "?": "01110 10001 00001 00010 00100 00000 00100",
    "|": "00100 00100 00100 00100 00100 00100 00100",
    "^": "00100 01010 10001 00000 00000 00000 00000",
    "@": "01110 10001 10111 10101 10111 10000 01110",
    "&": "01100 10010 10100 01000 10101 10010 01101",
}
_MISSING = "11111 10001 10001 10001 10001 10001 11111"     # drawn for unknown characters


def _bitmap(spec: str) -> np.ndarray:
    rows = [[c == "1" for c in row] for row in spec.split()]
    rows += [[False] * GLYPH_WIDTH] * (GLYPH_HEIGHT - len(rows))
    return np.array(rows, dtype=bool)


FONT = {ch: _bitmap(spec) for ch, spec in _GLYPHS.items()}
_MISSING_BITMAP = _bitmap(_MISSING)


def glyph(ch: str) -> np.ndarray:
    """The (GLYPH_HEIGHT, GLYPH_WIDTH) bool bitmap of one character."""
    return FONT.get(ch, _MISSING_BITMAP)


# --- drawing ----------------------------------------------------------------------------

def text_width(text: str, scale: int) -> int:
    """Pixels taken by `text`: one blank column after each glyph."""
    return len(text) * (GLYPH_WIDTH + 1) * scale


def draw_text(canvas, x: int, y: int, text: str, color, scale: int = 2) -> None:
    """Draws `text` with its top-left corner at (x, y); clipped to the canvas."""
    height, width = canvas.shape[:2]
    for ch in text:
        bits = np.repeat(np.repeat(glyph(ch), scale, axis=0), scale, axis=1)
        h, w = min(bits.shape[0], height - y), min(bits.shape[1], width - x)
        if h > 0 and w > 0 and x >= 0 and y >= 0:
            canvas[y:y + h, x:x + w][bits[:h, :w]] = color
        x += (GLYPH_WIDTH + 1) * scale


def fill_rect(canvas, x0: int, y0: int, x1: int, y1: int, color) -> None:
    canvas[max(y0, 0):max(y1, 0), max(x0, 0):max(x1, 0)] = color


def hex_color(text: str) -> tuple:
    return tuple(int(text[i:i + 2], 16) for i in (1, 3, 5))


# --- the bar chart ----------------------------------------------------------------------

WHITE, INK, GRID = (255, 255, 255), hex_color("#222222"), hex_color("#dddddd")
HIGHLIGHT, OTHER = hex_color("#dd8452"), hex_color("#4c72b0")

SCALE = 2                                   # font pixels per glyph pixel
LINE = (GLYPH_HEIGHT + 3) * SCALE           # height of a text line
ROW = LINE + 4                              # height of one bar's row
MARGIN = 16


def _fmt(value: float) -> str:
    return f"{value:.1f}" if value < 1000 else f"{value:.0f}"


def _panel_height(bars) -> int:
    return LINE + len(bars) * ROW + LINE


def bar_chart(title: str, panels, unit: str = "ms", highlight=lambda name: False,
              width: int = 1000, footer: str = "") -> np.ndarray:
    """An RGB image: `title`, then one panel per (panel title, [(name,
    value), ...]) with a horizontal bar per value, each panel scaled to its
    own largest value; bars whose name `highlight` accepts are drawn in
    another color.  Returns an (H, W, 3) uint8 array."""
    names = [name for _, bars in panels for name, _ in bars] or [""]
    label_w = min(max(text_width(n, SCALE) for n in names), width // 2)
    value_w = text_width("00000.0 " + unit, SCALE)
    bar_x0 = MARGIN + label_w + 10
    bar_span = max(width - bar_x0 - value_w - MARGIN, 10)
    height = MARGIN + 2 * LINE + sum(_panel_height(b) for _, b in panels) + LINE + MARGIN
    canvas = np.full((height, width, 3), WHITE, np.uint8)
    draw_text(canvas, MARGIN, MARGIN, title, INK, SCALE)
    y = MARGIN + 2 * LINE
    for panel_title, bars in panels:
        draw_text(canvas, MARGIN, y, panel_title, INK, SCALE)
        y += LINE
        top = max([v for _, v in bars if v > 0], default=1.0)
        fill_rect(canvas, bar_x0 - 1, y, bar_x0, y + len(bars) * ROW, INK)    # the axis
        for name, value in bars:
            draw_text(canvas, MARGIN, y + 3, name, INK, SCALE)
            length = int(round(bar_span * max(value, 0) / top))
            color = HIGHLIGHT if highlight(name) else OTHER
            fill_rect(canvas, bar_x0, y + 2, bar_x0 + max(length, 1), y + ROW - 2, color)
            draw_text(canvas, bar_x0 + length + 6, y + 3, f"{_fmt(value)} {unit}", INK, SCALE)
            y += ROW
        fill_rect(canvas, MARGIN, y + LINE // 2, width - MARGIN, y + LINE // 2 + 1, GRID)
        y += LINE
    if footer:
        draw_text(canvas, MARGIN, y, footer, INK, SCALE)
    return canvas


def write_bar_chart(path, title: str, panels, unit: str = "ms", highlight=lambda name: False,
                    footer: str = "") -> None:
    write_png(path, bar_chart(title, panels, unit, highlight, footer=footer))

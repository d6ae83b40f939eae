"""Screenshots for browser observations: stable PNG capture, set-of-marks boxes, PNG decoding.

Capture goes through CDP ``Page.captureScreenshot`` with ``optimizeForSpeed``: Chromium then writes
every row with PNG's ``Up`` filter at zlib level 1, which :func:`decode_png` undoes with one numpy
``add`` per row (Playwright's ``page.screenshot`` mixes in ``Paeth`` rows, which take a per-pixel Python
loop: hundreds of ms). No image library is needed: the marks are a DOM overlay drawn by the browser.
"""

from __future__ import annotations

import base64
import struct
import zlib
from typing import Any

import numpy as np

__all__ = ["PALETTE", "SCREENSHOT_CSS", "capture_png", "decode_png"]

#: Applied only while a screenshot is taken: no animations, transitions, caret or focus ring, no
#: scrollbars, and one font stack, so the bytes repeat across runs on one machine. The capture also
#: waits for fonts and for loaded images to be decoded.
SCREENSHOT_CSS = """
*, *::before, *::after {
  animation: none !important; transition: none !important; caret-color: transparent !important;
  font-family: "DejaVu Sans", "Liberation Sans", Arial, sans-serif !important;
}
*:focus, *:focus-visible { outline: none !important; }
html { scrollbar-width: none !important; }
::-webkit-scrollbar { display: none !important; }
"""
_STYLE_ID = "__shopsim_shot_style"
_OVERLAY_ID = "__shopsim_som"
#: Box colours by id, chosen to stay readable with white digits on any page.
PALETTE = ("#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#008080", "#9a6324", "#800000",
           "#808000", "#000075", "#f032e6", "#469990")

_PREPARE_JS = """async ([styleId, css]) => {
  window.scrollTo(0, 0);
  let style = document.getElementById(styleId);
  if (!style) {
    style = document.createElement('style');
    style.id = styleId;
    (document.head || document.documentElement).appendChild(style);
  }
  style.textContent = css;
  void document.documentElement.offsetHeight;  // flush style and layout before the capture
  if (document.fonts) await document.fonts.ready;  // the font stack may start a load
  // decoding="async" images may otherwise be painted before they are decoded (loaded ones only:
  // a lazy image that never loads would wait forever)
  const loaded = Array.from(document.images).filter((img) => img.complete && img.naturalWidth > 0);
  await Promise.all(loaded.map((img) => img.decode().catch(() => null)));
  return [window.devicePixelRatio || 1, window.innerWidth, window.innerHeight];
}"""
_CLEANUP_JS = """(ids) => { for (const id of ids) { const el = document.getElementById(id); if (el) el.remove(); } }"""

_DRAW_JS = """([attr, overlayId, palette]) => {
  const old = document.getElementById(overlayId);
  if (old) old.remove();
  const root = document.createElement('div');
  root.id = overlayId;
  root.setAttribute('style', 'position:absolute;left:0;top:0;width:0;height:0;margin:0;padding:0;'
    + 'pointer-events:none;z-index:2147483647;');
  const sx = window.scrollX, sy = window.scrollY, vw = window.innerWidth, vh = window.innerHeight, drawn = [];
  for (const el of document.querySelectorAll('[' + attr + ']')) {
    const id = el.getAttribute(attr);
    const rects = [el.getBoundingClientRect()];
    for (const label of (el.labels || [])) rects.push(label.getBoundingClientRect());
    // only what the screenshot shows: each rect clipped to the viewport, one wholly outside it dropped
    const seen = rects.map((r) => [Math.max(r.left, 0), Math.max(r.top, 0), Math.min(r.right, vw), Math.min(r.bottom, vh)])
      .filter(([l, t, r, b]) => r > l && b > t);
    if (!seen.length) continue;
    // the 2px frame goes round the element where there is room, and stays in the viewport where there is not
    const left = Math.max(Math.min(...seen.map((r) => r[0])) - 2, 0), top = Math.max(Math.min(...seen.map((r) => r[1])) - 2, 0);
    const right = Math.min(Math.max(...seen.map((r) => r[2])) + 2, vw), bottom = Math.min(Math.max(...seen.map((r) => r[3])) + 2, vh);
    const color = palette[(Number(id) - 1) % palette.length];
    const box = document.createElement('div');
    box.setAttribute('style', `position:absolute;box-sizing:border-box;left:${left + sx}px;top:${top + sy}px;`
      + `width:${right - left}px;height:${bottom - top}px;border:2px solid ${color};`);
    const tag = document.createElement('div');
    tag.textContent = id;
    const above = top >= 16;  // else inside the box's top-left corner
    tag.setAttribute('style', `position:absolute;left:${left + sx}px;top:${(above ? top - 16 : top) + sy}px;`
      + `background:${color};color:#fff;font:bold 12px/16px "DejaVu Sans Mono",monospace;padding:0 3px;`);
    root.appendChild(box);
    root.appendChild(tag);
    drawn.push([id, box, tag]);
  }
  document.documentElement.appendChild(root);
  for (const [, , tag] of drawn) {  // a tag at the right edge moves left, into the picture
    const r = tag.getBoundingClientRect();
    if (r.right > vw) tag.style.left = `${Math.max(vw - r.width, 0) + sx}px`;
  }
  const rect = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom].map(Math.round); };
  return drawn.map(([id, box, tag]) => [id, rect(box), rect(tag)]);
}"""


def capture_png(page: Any, cdp: Any, marks: str | None = None) -> tuple[bytes, dict[str, tuple[int, ...]]]:
    """PNG bytes of the page's viewport, from the top, in CSS pixels, with :data:`SCREENSHOT_CSS` applied.

    ``marks`` names the attribute whose elements get numbered boxes (set-of-marks); the boxes are
    drawn after the screenshot style is in place (it changes the layout) and removed after the
    capture. Only what the viewport shows is marked: each box is clipped to it, and an element wholly
    outside it gets none. Returns the PNG and, per id drawn, ``(left, top, right, bottom)`` of its box
    and then of its number tag, in screenshot pixels (all within the image).
    """
    dpr, width, height = page.evaluate(_PREPARE_JS, [_STYLE_ID, SCREENSHOT_CSS])
    try:
        drawn = page.evaluate(_DRAW_JS, [marks, _OVERLAY_ID, list(PALETTE)]) if marks else []
        clip = {"x": 0, "y": 0, "width": width, "height": height, "scale": 1 / float(dpr)}
        out = cdp.send("Page.captureScreenshot", {"format": "png", "optimizeForSpeed": True, "clip": clip,
                                                  "captureBeyondViewport": False})
    finally:
        page.evaluate(_CLEANUP_JS, [_STYLE_ID, _OVERLAY_ID])
    return base64.b64decode(out["data"]), {str(i): (*box, *tag) for i, box, tag in drawn}


# ---- PNG -----------------------------------------------------------------------------------------
_CHANNELS = {0: 1, 2: 3, 4: 2, 6: 4}  # colour type -> samples per pixel (8-bit, no palette)


def decode_png(png: bytes) -> np.ndarray:
    """An 8-bit, non-interlaced greyscale/RGB(A) PNG as an ``(H, W, 3)`` uint8 RGB array.

    ``None``, ``Up`` (all of Chromium's fast encoding) and ``Sub`` rows decode with one numpy call
    per row; ``Average``/``Paeth`` rows fall back to a slow per-pixel loop.

    Raises:
        ValueError: not a PNG, or one of the forms above it does not handle (palette, 16-bit, interlaced).
    """
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, header, idat = 8, b"", []
    while pos + 8 <= len(png):
        (length,) = struct.unpack(">I", png[pos:pos + 4])
        kind, body = png[pos + 4:pos + 8], png[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        pos += 12 + length
    if len(header) != 13:
        raise ValueError("PNG without an IHDR chunk")
    width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", header)
    if depth != 8 or color not in _CHANNELS or interlace:
        raise ValueError(f"unsupported PNG: bit depth {depth}, colour type {color}, interlace {interlace}")
    bpp = _CHANNELS[color]
    stride = width * bpp
    raw = np.frombuffer(zlib.decompress(b"".join(idat)), dtype=np.uint8)
    if raw.size != height * (stride + 1):
        raise ValueError("PNG image data has the wrong size")
    rows = raw.reshape(height, stride + 1)
    filters, data = rows[:, 0], rows[:, 1:]
    out = np.empty((height, stride), dtype=np.uint8)
    prev = np.zeros(stride, dtype=np.uint8)
    for r in range(height):
        f = int(filters[r])
        if f == 0:
            out[r] = data[r]
        elif f == 2:  # Up: add the row above (uint8 arithmetic wraps, as PNG's does)
            np.add(prev, data[r], out=out[r])
        else:
            out[r] = _unfilter_row(f, data[r], prev, bpp)
        prev = out[r]
    pixels = out.reshape(height, width, bpp)
    if bpp >= 3:
        return np.ascontiguousarray(pixels[:, :, :3])
    return np.repeat(pixels[:, :, :1], 3, axis=2)


def _unfilter_row(kind: int, line: np.ndarray, prev: np.ndarray, bpp: int) -> np.ndarray:
    if kind == 1:  # Sub: a running sum per channel along the row
        return np.cumsum(line.reshape(-1, bpp), axis=0, dtype=np.uint8).reshape(-1)
    if kind not in (3, 4):
        raise ValueError(f"unknown PNG filter type {kind}")
    cur = bytearray(len(line))
    above = prev.tobytes()
    for i, x in enumerate(line.tobytes()):
        a = cur[i - bpp] if i >= bpp else 0
        b = above[i]
        if kind == 3:
            cur[i] = (x + ((a + b) >> 1)) & 0xFF
            continue
        c = above[i - bpp] if i >= bpp else 0
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        cur[i] = (x + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
    return np.frombuffer(bytes(cur), dtype=np.uint8)

"""Click mode's clicks and typing: real mouse and keyboard input at an element a page script finds.

Why not ``locator.click()``: every Playwright locator action first injects Playwright's selector
engine into the new document, which costs more than the rest of a click step together (it is most
of a click step's time). A click here is one page call, which waits for the page's stylesheets,
finds the element, checks it as Playwright's actionability checks do (attached, visible, enabled,
scrolled into view, and the element itself at its centre, not something covering it) and answers
that point; then ``page.mouse`` presses and releases there, so the browser hit-tests and the page
gets trusted events, as from a user. Typing selects the field's text and inserts the new text (as
``locator.fill`` does).
"""

from __future__ import annotations

from typing import Any

from shopsim.errors import SourceError

__all__ = ["click", "fill"]

_READY_JS = """
  // A stylesheet still loading (or failed) may move the element: wait for the page's load event.
  const sheets = Array.from(document.querySelectorAll('link[rel~="stylesheet"]'));
  if (document.readyState !== 'complete' && sheets.some((l) => !l.sheet))
    await new Promise((done) => window.addEventListener('load', done, { once: true }));
  const el = document.querySelector(selector);
  if (!el || !el.isConnected) return 'no element matches';
  if (el.disabled || el.closest('fieldset:disabled')) return 'the element is disabled';
  let box = el.getBoundingClientRect();
  if (box.bottom <= 0 || box.right <= 0 || box.top >= innerHeight || box.left >= innerWidth
      || box.top < 0 || box.left < 0 || box.bottom > innerHeight || box.right > innerWidth) {
    el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
    box = el.getBoundingClientRect();
  }
  const style = getComputedStyle(el);
  if (!(box.width > 0 && box.height > 0) || style.visibility !== 'visible') return 'the element is not visible';
"""

#: The centre of the element to click, in viewport CSS pixels, or why it cannot be clicked.
_POINT_JS = "async (selector) => {" + _READY_JS + """
  const x = box.left + box.width / 2, y = box.top + box.height / 2;
  const hit = document.elementFromPoint(x, y);
  if (!hit || !(hit === el || el.contains(hit))) {
    const what = hit ? hit.outerHTML.slice(0, 80) : 'nothing';
    return 'the element is covered at its centre by ' + what;
  }
  return [x, y];
}"""

#: Focus a text field and select its text, so that inserted text replaces it; or why it cannot be typed in.
_FOCUS_JS = "async (selector) => {" + _READY_JS + """
  if (!el.matches('input, textarea') || el.readOnly) return 'the element is not an editable text field';
  el.focus();
  el.select();
  return [];
}"""


def _checked(page: Any, script: str, selector: str) -> list[float]:
    got = page.evaluate(script, selector)
    if isinstance(got, str):
        raise SourceError(f"click mode: {got} {selector!r} on {page.url}")
    return [float(v) for v in got]


def click(page: Any, selector: str, wait_until: str) -> None:
    """Click the first element ``selector`` matches with the mouse; wait for the page it loads.

    Raises:
        SourceError: no such element, or it is hidden, disabled or covered (a broken page, not a detour).
    """
    x, y = _checked(page, _POINT_JS, selector)
    with page.expect_navigation(wait_until=wait_until):
        page.mouse.click(x, y)


def fill(page: Any, selector: str, text: str) -> None:
    """Replace the text of the field ``selector`` matches with ``text``, as typed.

    Raises:
        SourceError: no such field, or it is hidden, disabled or read-only.
    """
    _checked(page, _FOCUS_JS, selector)
    if text:
        page.keyboard.insert_text(text)
    else:
        page.keyboard.press("Delete")

"""The fenced blocks of a documentation page's section, so that tests run what a page shows rather than a copy.

``section_blocks("connecting.md", "## Kerberos (GSSAPI)", "properties")`` is the list of ```properties blocks
between that heading and the next heading of the same or a higher level.  A test that replaces only the
placeholders a page names (hosts, paths, secrets) then fails when the page's sample stops working.
"""

from __future__ import annotations

import re
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"


def section_blocks(page: str, heading: str, lang: str) -> list[str]:
    text = (DOCS / page).read_text(encoding="utf-8")
    start = text.index(f"\n{heading}\n") + len(heading) + 2
    level = heading.split(" ", 1)[0]
    following = re.compile(rf"^#{{1,{len(level)}}} ", re.MULTILINE)
    end_match = following.search(text, start)
    body = text[start:end_match.start() if end_match else len(text)]
    return [m.group(1) for m in re.finditer(rf"^```{re.escape(lang)}\n(.*?)^```$", body, re.DOTALL | re.MULTILINE)]

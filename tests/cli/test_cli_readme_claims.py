"""The README says what works (issue #29 defect 4: it described delegation-token logins and also listed them as
"not implemented", while they work: tests/network/test_delegation_token_login.py)."""

from __future__ import annotations

import re

from tests.support.cli import ROOT


def test_readme_does_not_call_token_logins_unimplemented() -> None:
    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert "delegation-token login" in text.lower()  # described...
    assert not re.search(r"delegation-token logins[^.]*not implemented", text, re.IGNORECASE)  # ...and not denied

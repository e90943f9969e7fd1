"""The zh edition's listings (issue 38, Build 2): every ``show_source`` listing of the chapters has its
docstrings and comments in Chinese, under a drift guard on the English words (never on the code)."""

from __future__ import annotations

import io
import json
import sys
import tokenize

import pytest
from test_notebooks import ROOT

from cs336_lec2 import bilingual
from cs336_lec2.source import (
    ZH_FILE,
    english_texts,
    fingerprint,
    listing,
    listing_key,
    show_source,
    translate_listing,
    zh_translations,
)

sys.path.insert(0, str(ROOT / "tools"))
from listings_zh import chapter_listings, stale
from zh_english import ENGLISH_RUN

LISTINGS = chapter_listings()
KEYS = sorted({listing_key(obj, full) for _, obj, full in LISTINGS})


def code_tokens(code: str) -> list[tuple[int, str]]:
    """The tokens of a listing without its words: comments, blank lines and docstrings' texts dropped."""
    kept = []
    for token in tokenize.generate_tokens(io.StringIO(code).readline):
        if token.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            continue
        kept.append((token.type, "<str>" if token.type == tokenize.STRING else token.string))
    return kept


def test_the_chapters_show_listings():
    assert len(LISTINGS) >= 40 and len(KEYS) >= 40  # 45 in 13 chapters when this was written


def test_every_listing_has_its_chinese_for_its_english_of_today():
    """Fails when a docstring or comment a chapter shows changes without its Chinese
    (``python tools/listings_zh.py --check`` says which; the table passed to it updates the file)."""
    assert stale(zh_translations()) == []


def test_the_guard_sees_a_changed_comment_and_a_missing_translation():
    key = "cs336_lec2.training.train_step"
    table = json.loads(json.dumps(zh_translations()))
    table[key]["english"] = fingerprint(["backward: fills p.grad for every parameter (changed)"])
    assert any(key in p and "changed" in p for p in stale(table))
    table = json.loads(json.dumps(zh_translations()))
    table[key]["zh"].pop("forward")
    assert any(key in p and "no Chinese for ['forward']" in p for p in stale(table))


def test_the_fingerprint_covers_words_not_code():
    code = 'def f(x):\n    """Add one."""\n    check_int("x", x)\n    return x + 1  # the successor\n'
    without_check = code.replace('    check_int("x", x)\n', "")
    assert english_texts(code) == english_texts(without_check) == ["Add one.", "the successor"]
    assert english_texts(code.replace("successor", "next one")) != english_texts(code)


@pytest.mark.parametrize("key", KEYS)
def test_zh_listing_is_the_same_code_with_chinese_words(key):
    obj, full = next((obj, full) for _, obj, full in LISTINGS if listing_key(obj, full) == key)
    english = listing(obj, full)
    chinese = translate_listing(english, key)
    assert code_tokens(chinese) == code_tokens(english)
    words = [w for w in english_texts(chinese) if not w.startswith(("…", "（这些检查还设置了"))]
    sentences = [m.group(0) for w in words for m in ENGLISH_RUN.finditer(w.replace("``", "`"))
                 if "`" not in w[max(m.start() - 1, 0):m.end() + 1]]
    assert not sentences, sentences
    notes = [line for line in chinese.splitlines() if line.lstrip().startswith("# …")]
    assert all("elided" not in line and "raises" not in line for line in notes), notes
    wide = [line for line in chinese.splitlines() if line not in english.splitlines()
            and bilingual.display_width(line) > 88]
    assert not wide, wide


def test_show_source_follows_the_language(monkeypatch):
    from cs336_lec2 import get_batch

    monkeypatch.setattr(bilingual, "_language", "zh")
    shown = show_source(get_batch).data
    assert "省略了检查（完整源码：cs336_lec2/data.py）" in shown and "高级索引把它们复制出来" in shown
    monkeypatch.setattr(bilingual, "_language", "en")
    assert "fancy indexing copies them out" in show_source(get_batch).data


def test_a_two_language_notebook_shows_both_listings(monkeypatch):
    from cs336_lec2 import get_batch

    published = []
    monkeypatch.setattr(bilingual, "_shell", lambda: object())
    monkeypatch.setattr(bilingual, "_publish", lambda data, metadata: published.append((data, metadata)))
    shown = show_source(get_batch)
    assert "fancy indexing" in shown.data  # the English listing, as before
    shown._ipython_display_()
    assert [m for _, m in published] == [{"lang": "en"}, {"lang": "zh"}]
    assert "高级索引" in published[1][0]["text/markdown"]


def test_the_table_ships_with_the_package():
    assert (ROOT / "src" / "cs336_lec2" / ZH_FILE).is_file()
    assert ZH_FILE in (ROOT / "pyproject.toml").read_text(encoding="utf-8")

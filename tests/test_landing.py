"""The landing page (issue 27 §9): both languages, the chapters as cards with the notebooks' titles,
every link leading to a page of the built book, nothing fetched from elsewhere."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from cs336_lec2.publish.landing import CHAPTERS, landing_page, pdf_href

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("card", CHAPTERS, ids=[c.name for c in CHAPTERS])
def test_each_card_has_its_chapters_title_in_both_languages(card):
    notebook = nbformat.read(ROOT / "notebooks" / f"{card.name}.ipynb", as_version=4)
    for lang in ("en", "zh"):
        titles = [c.source.splitlines()[0][2:] for c in notebook.cells if c.cell_type == "markdown"
                  and f"lang-{lang}" in c.metadata.get("tags", []) and c.source.startswith("# ")]
        assert titles[:1] == [card.title[lang]]


def test_every_chapter_of_the_toc_has_a_card():
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    assert re.findall(r"file: notebooks/(\w+)", toc) == [c.name for c in CHAPTERS]


def test_the_page_is_offline_and_offers_both_editions():
    html = landing_page('<link rel="icon" href="data:,">', {"zh": pdf_href("zh")})
    assert 'href="en/index.html" hreflang="en"' in html and 'href="zh/index.html" hreflang="zh-CN"' in html
    assert 'lang="zh-CN"' in html and "训练计算器" in html and "Training calculator" in html
    assert 'href="pdf/cs336-lec2-zh.pdf"' in html and "cs336-lec2-en.pdf" not in html
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)  # no CDN, no remote font
    assert 'type="module"' not in html  # works from file://


def test_every_link_of_the_built_landing_page_leads_to_a_file(built_book):
    html = (built_book / "index.html").read_text(encoding="utf-8")
    hrefs = re.findall(r'href="([^"#:]+)"', html)
    assert len(hrefs) >= 2 * (len(CHAPTERS) + 4)
    missing = [h for h in hrefs if not (built_book / h).is_file()]
    assert not missing, missing

"""The PDF of an edition (issue 27 §9, ``tools/book_pdf.py``): every code line of a chapter appears in
the PDF's text unbroken (nothing cut at the margin, nothing wrapped), and the Chinese is in it."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import unicodedata
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("book_pdf", ROOT / "tools" / "book_pdf.py")
book_pdf = importlib.util.module_from_spec(spec)
sys.modules["book_pdf"] = book_pdf
spec.loader.exec_module(book_pdf)

CHAPTER = "02_floats"


def _normal(text: str) -> str:
    # NFKC: a CJK font's glyphs may map to the Kangxi radicals (⼿ for 手) in the PDF's text.
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text)).strip()


def _skeleton(text: str) -> str:
    """A line's ASCII characters without spaces: the PDF's text puts spaces around full-width punctuation
    and some glyphs come back as CJK radicals (⻓ for 长), but a line wrapped or cut loses part of these."""
    return re.sub(r"\s+", "", "".join(char for char in _normal(text) if char.isascii()))


def test_the_print_page_joins_the_pages_in_order_with_addresses_of_the_edition(built_book):
    html = book_pdf.print_page(built_book / "zh", "zh")
    assert html.index("CS336 第 2 讲") < html.index("估算：要训练多久") < html.index("超越单卡") < html.rindex("术语表")
    assert 'src="../' not in html and "_static/mathjax/tex-chtml.js" in html
    assert "https://" not in re.sub(r'href="https://[^"]*"', "", html).split("</head>")[0]


@pytest.mark.slow
def test_every_code_line_of_a_chapter_is_unbroken_in_the_pdf(built_book, tmp_path):
    pypdf = pytest.importorskip("pypdf")
    if not book_pdf.CHROMIUM.exists():
        pytest.skip("no Chromium at /usr/bin/chromium")
    # In a process of its own: the test run's browser tests hold Playwright's sync API in this one.
    out = tmp_path / "zh.pdf"
    script = ("import sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]); import book_pdf; "
              "book_pdf.write_pdf(Path(sys.argv[2]), 'zh', Path(sys.argv[3]))")
    subprocess.run([sys.executable, "-c", script, str(ROOT / "tools"), str(built_book), str(out)], check=True,
                   timeout=900)
    text_lines = [line for page in pypdf.PdfReader(out).pages for line in page.extract_text().splitlines()]
    lines = {_skeleton(line) for line in text_lines}
    notebook = nbformat.read(built_book.parent / "stage" / "zh" / "notebooks" / f"{CHAPTER}.ipynb", as_version=4)
    code = [_skeleton(line) for cell in notebook.cells if cell.cell_type == "code"
            and not {"remove-cell", "remove-input"} & set(cell.metadata.get("tags", []))
            for line in cell.source.splitlines() if len(_skeleton(line)) >= 8]
    assert len(code) > 100
    broken = [line for line in code if not any(line in text for text in lines)]
    assert not broken, broken[:10]
    assert any("浮点格式" in _normal(text) for text in text_lines)

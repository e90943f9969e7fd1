"""Count the English sentences a reader of the built Chinese edition meets (issue 28 §1).

An *English sentence* is four or more English words in a row. The script reads a built book
(``cs336-lec2 book --build-dir DIR``: ``DIR/html/zh/`` and the staged notebooks in ``DIR/stage/zh/``)
and reports each one with where it is, in one of five kinds:

- ``prose``: the text of a page (chapter or book page), headings and tables included;
- ``output``: what a code cell printed or displayed (``say``, ``show_table``, plain ``print``);
- ``figure``: an image's ``alt`` text, and every figure of a chapter that was not drawn in Chinese
  (an image output of the zh edition whose metadata does not say ``lang: zh``, so its titles, axes
  and legends are the English ones);
- ``interface``: the theme's words around the page (buttons, tooltips, sidebar, footer, search
  page), ``title`` / ``aria-label`` / ``placeholder`` attributes, and the theme's words set in the
  page's inline scripts (the fold prompts, "Click to show");
- ``page-title``: the ``<title>`` of a page.

Not counted: code (``<pre>`` listings, ``<code>``), maths, the messages of libraries (``stderr``
and tracebacks), an element marked ``lang="en"`` (the link to the English edition), an English
gloss in full-width parentheses right after its Chinese term (``激活重计算（activation
checkpointing）``), and the names in :data:`NAMES` (titles of cited works, product names).

    python tools/zh_english.py _build            # a build folder (html/ and stage/ inside)
    python tools/zh_english.py _build --quiet    # the counts only

Exit status 0; the counts are the last lines (``total N``).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from bs4 import BeautifulSoup, Comment, Tag

from cs336_lec2.hardware import ACCELERATORS

WORD = r"[A-Za-z][A-Za-z0-9'’]*(?:-[A-Za-z0-9]+)*"
ENGLISH_RUN = re.compile(rf"(?<![\w`$\\]){WORD}(?:[ \t,;:]+{WORD}){{3,}}")
# Names and titles that stay English in a Chinese text: works cited by title, products.
NAMES = (
    "Language Modeling from Scratch",
    "Lecture 2: Pytorch, Resource Accounting",
    "Mixed Precision Training",
    "Attention Is All You Need",
    "Training Compute-Optimal Large Language Models",
    "Scaling Laws for Neural Language Models",
    "Reducing Activation Recomputation in Large Transformer Models",
    "Efficient Large-Scale Language Model Training on GPU Clusters",
    "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models",
    "Refresh on GPU",
)
# Products, as the package's tables name them (NVIDIA H100 SXM, AMD Instinct MI300X, ...).
PRODUCTS = tuple(sorted((card.name for card in ACCELERATORS.values()), key=len, reverse=True))
# An English title quoted in a Chinese sentence: 论文“Language Models are Few-Shot Learners”.
QUOTED_TITLE = re.compile(r"[“《][^“”《》\u4e00-\u9fff]+[”》]")
# A gloss: the full-width parenthesis right after a term (Chinese, or a name such as FSDP).
GLOSS_BEFORE = re.compile(r"[\u4e00-\u9fff\w*`]（$")
BLOCKS = {
    "p", "div", "li", "ul", "ol", "dl", "dt", "dd", "table", "thead", "tbody", "tr", "td", "th",
    "h1", "h2", "h3", "h4", "h5", "h6", "pre", "figure", "figcaption", "caption", "blockquote",
    "section", "article", "header", "footer", "nav", "aside", "main", "button", "label", "option",
    "title", "form", "body", "summary", "details", "br", "select", "dialog",
}
SKIP_TAGS = {"script", "style", "code", "kbd", "svg", "math", "noscript", "template"}
SKIP_CLASSES = {"math", "cell_input", "stderr", "traceback", "highlight-python", "highlight-bash",
                "highlight-ipython3", "highlight-default", "highlight-text", "highlight-console",
                "highlight-json", "highlight-yaml", "highlight-javascript"}
ATTRIBUTES = ("title", "aria-label", "placeholder", "alt", "data-bs-title", "data-tooltip")
# Theme words that a page's inline script sets (sphinx-togglebutton, sphinx-copybutton).
SCRIPT_STRINGS = re.compile(
    r"(?:toggleHint\w*|messages\s*=\s*\{[^}]*|tooltip\w*|buttonText\w*)\s*[=:]\s*(['\"])(.*?)\1", re.S)
INLINE_SCRIPT_WORDS = re.compile(r"(['\"])((?:Click|Show|Hide|Copy|Copied|Search|Failed)[^'\"]*)\1")


@dataclass(frozen=True)
class Finding:
    page: str
    kind: str
    text: str

    def __str__(self) -> str:
        return f"{self.page}: {self.kind}: {self.text}"


# A code identifier: a word with an underscore in it (fsdp2_zero2, weights_only).
IDENTIFIER = re.compile(r"(?<![\w.])[A-Za-z_][\w.]*_[\w.]*")
# A library's message that a chapter shows as it is (CONTRIBUTING, "Cell conventions"): an exception's
# text from its class name on, or what a Chinese line ending in a full-width colon quotes (a warning, a
# refusal, a source the package cites); either runs on over the following lines that hold no Chinese.
MESSAGE_START = re.compile(r"(\b[A-Z]\w*(?:Error|Exception|Warning)\b[:：]|Type-check error|出处：|：\s*$)")
CJK = re.compile(r"[\u4e00-\u9fff]")


def without_messages(text: str) -> str:
    """``text`` (one output, line by line) without the libraries' messages and the sources it quotes."""
    kept, inside = [], False
    for line in text.splitlines():
        if inside and line.strip() and not CJK.search(line):
            continue  # the message goes on
        found = MESSAGE_START.search(line)
        inside = bool(found)
        kept.append(line[:found.end()] if found else line)
    return "\n".join(kept)


def english_runs(text: str) -> list[str]:
    """The English sentences in ``text`` that are neither a gloss, a name of :data:`NAMES` nor a list
    of names (``batch, seq, d``: words separated only by commas)."""
    for name in (*NAMES, *PRODUCTS):
        text = text.replace(name, "·")
    text = QUOTED_TITLE.sub("“·”", text)
    text = IDENTIFIER.sub("·", text)
    found = []
    for m in ENGLISH_RUN.finditer(text):
        if GLOSS_BEFORE.search(text[:m.start()]):
            continue  # a gloss: 中文术语（English term）, FSDP（Fully Sharded Data Parallel，…）
        if all("," in gap for gap in re.split(WORD, m.group(0))[1:-1]):
            continue  # a list of names, not a sentence
        if all(len(word) <= 2 for word in re.findall(WORD, m.group(0))):
            continue  # an einsum / einops pattern: b i h, b j h
        found.append(m.group(0))
    return found


def _skipped(tag: Tag) -> bool:
    if tag.name in SKIP_TAGS:
        return True
    if str(tag.get("lang", "")).lower().startswith("en"):
        return True
    return bool(SKIP_CLASSES & set(tag.get("class") or []))


def _kind(node: Tag) -> str:
    for parent in [node, *node.parents]:
        classes = set(parent.get("class") or []) if isinstance(parent, Tag) else set()
        if "cell_output" in classes:
            return "output"
        if parent.name == "title":
            return "page-title"
        if parent.name == "article" or "bd-article" in classes:
            return "prose"
    return "interface"


def page_findings(html: str, page: str) -> list[Finding]:
    """The English sentences of one built page."""
    soup = BeautifulSoup(html, "html.parser")
    findings: list[Finding] = []
    for script in soup.find_all("script"):
        text = script.string or ""
        for m in list(SCRIPT_STRINGS.finditer(text)) + list(INLINE_SCRIPT_WORDS.finditer(text)):
            if len(re.findall(WORD, m.group(2))) >= 2:  # theme words: a short English label counts too
                findings.append(Finding(page, "interface", m.group(2)))
    for tag in soup.find_all(True):
        if any(_skipped(t) for t in [tag, *tag.parents] if isinstance(t, Tag) and t.name != "[document]"):
            continue
        for attribute in ATTRIBUTES:
            value = tag.get(attribute)
            if isinstance(value, str):
                kind = "figure" if tag.name == "img" else "interface"
                findings += [Finding(page, kind, run) for run in english_runs(value)]
    blocks: dict[int, tuple[Tag, list[str]]] = {}
    for node in soup.find_all(string=True):
        if isinstance(node, Comment) or not node.strip():
            continue
        parents = [p for p in node.parents if p.name != "[document]"]
        if any(_skipped(p) for p in parents):
            continue
        block = next((p for p in parents if p.name in BLOCKS), soup)
        blocks.setdefault(id(block), (block, []))[1].append(str(node))
    for block, texts in blocks.values():
        kind = _kind(block)
        if kind == "output":  # printed lines: a sentence does not run on from one line into the next
            lines = without_messages("".join(texts)).splitlines()
        else:
            lines = [" ".join(" ".join(texts).split())]
        findings += [Finding(page, kind, run) for line in lines for run in english_runs(line)]
    return findings


def figure_findings(stage: Path) -> list[Finding]:
    """Every figure of the staged zh chapters that was not drawn in Chinese."""
    findings = []
    for path in sorted((stage / "notebooks").glob("*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        for index, cell in enumerate(nb.get("cells", [])):
            for output in cell.get("outputs", []):
                if "image/png" in output.get("data", {}) and output.get("metadata", {}).get("lang") != "zh":
                    findings.append(Finding(f"notebooks/{path.stem}", "figure",
                                            f"cell {index}: a figure drawn with English labels"))
    return findings


def scan(build: Path) -> list[Finding]:
    """All findings of the zh edition of the book built in ``build``."""
    html = build / "html" / "zh"
    if not html.is_dir():
        raise FileNotFoundError(f"{html} is missing: give the --build-dir of `cs336-lec2 book`")
    findings = []
    for path in sorted(html.rglob("*.html")):
        if "_static" in path.parts or "_sources" in path.parts or path.name == "print.html":
            continue  # print.html: the pages again, joined for the PDF (tools/book_pdf.py)
        page = path.relative_to(html).with_suffix("").as_posix()
        findings += page_findings(path.read_text(encoding="utf-8"), page)
    if (build / "stage" / "zh").is_dir():
        findings += figure_findings(build / "stage" / "zh")
    return findings


def is_chapter(finding: Finding) -> bool:
    return finding.page.startswith("notebooks/")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("build", type=Path, help="the --build-dir of `cs336-lec2 book`")
    parser.add_argument("--quiet", action="store_true", help="print the counts only")
    args = parser.parse_args(argv)
    findings = scan(args.build)
    if not args.quiet:
        for finding in findings:
            print(finding)
    by_kind = Counter(f.kind for f in findings)
    chapters = sum(is_chapter(f) for f in findings)
    print("by kind: " + ", ".join(f"{k} {n}" for k, n in sorted(by_kind.items())))
    print(f"chapters {chapters}, other pages {len(findings) - chapters}")
    print(f"total {len(findings)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

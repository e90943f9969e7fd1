"""Search in the Chinese edition: the index and the query are cut into the same Chinese words.

Chinese is written without spaces, so Sphinx's default search would index a whole sentence as one
"word". Sphinx's Chinese search language cuts the pages with jieba (``jieba.cut_for_search``) when it
is installed; the glossary's terms (``book/zh/glossary.md``: 混合精度, 激活值, 优化器状态 …) are added to
jieba's dictionary so that each is one word, and every term found inside a longer word is indexed too
(``混合精度训练`` also yields ``混合精度``). In the browser, a query is cut the same way: a run of
Chinese characters that is not itself a word of the index is split into the longest index words,
left to right, so a typed phrase such as ``激活值的显存`` finds the pages with both words.
"""

from __future__ import annotations

import re
from pathlib import Path

from sphinx.search.zh import JIEBA, SearchChinese

GLOSSARY = Path("book") / "glossary.md"
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_BRACKETS = re.compile(r"（[^）]*）|\([^)]*\)")
# Words the book uses that the glossary holds only inside a longer term (混合精度训练).
EXTRA_WORDS = ("混合精度",)

# The browser's query splitter (language_data.js); searchtools.js uses it instead of its own.
JS_SPLITTER = r"""
/* cs336-lec2 (publish/zh_search.py): a run of Chinese characters that is not a word of the index is
   cut into the longest index words from the left; other text splits as Sphinx's own splitter does. */
function splitQuery(query) {
  const parts = query.split(/[^\p{Letter}\p{Number}_\p{Emoji_Presentation}]+/gu).filter((t) => t);
  const index = typeof Search !== "undefined" ? Search._index : null;
  if (!index) return parts;
  const has = (o, w) => Object.prototype.hasOwnProperty.call(o, w);
  const known = (w) => has(index.terms, w) || has(index.titleterms, w);
  const words = [];
  for (const part of parts) {
    for (const run of part.match(/\p{Script=Han}+|\P{Script=Han}+/gu)) {
      if (!/\p{Script=Han}/u.test(run) || known(run)) {
        words.push(run);
        continue;
      }
      for (let i = 0; i < run.length; ) {
        let j = Math.min(run.length, i + 12);
        while (j > i + 1 && !known(run.slice(i, j))) j--;
        if (j > i + 1) words.push(run.slice(i, j));  // a lone unknown character is skipped
        i = j;
      }
    }
  }
  return words;
}
"""


def glossary_terms(markdown: str) -> list[str]:
    """The Chinese terms of the glossary, in order, without repeats.

    A term is a definition list's term (the line before a line that starts with ``: ``) or the second
    column of a table. A term such as ``显存带宽 / 内存带宽`` or ``浮点运算、浮点运算次数`` gives each
    of its parts; a parenthesised part (``（FLOP/s）``) is dropped; :data:`EXTRA_WORDS` come first; a
    term must contain a Chinese character and be at least two characters long.
    """
    terms: list[str] = list(EXTRA_WORDS)
    lines = markdown.splitlines()
    for line, after in zip(lines, [*lines[1:], ""], strict=True):
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if after.startswith(": ") and line.strip() and not line.startswith(("#", ":", "|")):
            found = line
        elif line.lstrip().startswith("|") and len(cells) >= 2 and not set(cells[0]) <= set("-: ") \
                and cells[0] != "English":  # a table row, not its separator or header
            found = cells[1]
        else:
            continue
        for term in re.split(r"[/、，,]", _BRACKETS.sub("", found)):
            term = term.strip().strip("*")
            if len(term) >= 2 and _HAN.search(term) and " " not in term and term not in terms:
                terms.append(term)
    return terms


def write_user_dict(terms: list[str], path: Path) -> Path:
    """Write ``terms`` as a jieba user dictionary (one word a line; jieba picks the frequency)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{term}\n" for term in terms), encoding="utf-8")
    return path


class SearchChineseGlossary(SearchChinese):
    """Sphinx's Chinese search with the glossary as words, on the page and in the query."""

    js_splitter_code = JS_SPLITTER

    def init(self, options: dict[str, str]) -> None:
        super().init(options)  # loads options["dict"] into jieba
        path = options.get("dict")
        self.glossary = [w.strip() for w in Path(path).read_text(encoding="utf-8").splitlines()
                         if w.strip()] if path and Path(path).is_file() else []

    def split(self, input: str) -> list[str]:
        words = super().split(input)
        inner = [term for word in words if len(word) > 2 and _HAN.search(word)
                 for term in self.glossary if term in word and term != word]
        return words + inner


def jieba_available() -> bool:
    """Whether jieba can be imported (without it the Chinese index is whole sentences)."""
    return JIEBA

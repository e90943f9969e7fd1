"""One term, one form, book-wide (issue 28 §3): the decisions of ``book/glossary.md``, checked on every
Chinese cell of every chapter and every Chinese page of the book.

What a test cannot decide is left to the translator (CONTRIBUTING.md, "Writing Chinese"): 显存 for GPU
memory against 内存 for host memory is checked only where the sentence names the GPU (GPU 内存, H100 的内存);
the abbreviation of a large number is checked where it counts something (15T 个词元), not after its first use.
"""

from __future__ import annotations

import re
import sys

import nbformat
import pytest
from test_notebooks import CHAPTERS, ROOT, ZH_PAGES, without_code_and_math, zh_cells, zh_prose

# pattern in the prose (code spans read `c`, maths $m$) -> the book's form
ONE_FORM = {
    r"本讲": "第 2 讲 (the lecture)",
    r"拷贝": "复制",
    r"重算": "重计算",
    r"\bdtypes?\b": "数据类型 (dtype only as code)",
    r"(?<!十进制)(?<!保留三位)(?<!保留 3 位)有效数字":
        "有效位 (binary significand bits; 有效数字 only for decimal digits)",
    r"失准": "不再成立 (a formula that bends)",
    r"(?:GPU|显卡|H100|A100|B200|T4)\s*(?:上\s*)?的?\s*内存": "显存 (GPU memory)",
    r"训练步骤": "训练步",
    r"小预设|(?<!`)\bsmall\s*预设": "`small` 预设",
    r"练习\s*\d+\s*[.:：．]": "**练习 N**。",
    r"批次大小": "批大小 / 临界批大小",
    r"前后比对|参与比对": "不做输出比对",
    r"软件包(?!索引|管理)|(?<!辅助)包里": "辅助包",
    r"(?<![（/])\b[Nn]otebooks?\b(?!/)": "笔记本 (笔记本（notebook） at its first use)",
    r"(?<![（(\w.])\d+(?:\.\d+)?\s?[BT]\s*(?:个|训练数据|的训练数据|词元|参数)":
        "400 亿（40B）个参数, 15 万亿（15T）个词元",
}
# A term glossed at its first use on each chapter and page: term -> the gloss right after it.
FIRST_USE = {"辅助包": "（`cs336_lec2`）", "笔记本": "（notebook）"}


def term_slips(text: str) -> list[str]:
    """Where a Chinese Markdown text departs from the book's one form of a term."""
    plain = without_code_and_math(text)
    return [f"{m.group(0)!r} -> {instead}: {plain[max(m.start() - 8, 0):m.end() + 8]!r}"
            for pattern, instead in ONE_FORM.items() for m in re.finditer(pattern, plain)]


def unglossed(text: str) -> list[str]:
    """The terms of :data:`FIRST_USE` whose first use in ``text`` lacks its gloss."""
    prose = zh_prose(text)
    found = []
    for term, gloss in FIRST_USE.items():
        first = prose.find(term)
        if first >= 0 and not prose[first + len(term):].lstrip("*").startswith(gloss):
            found.append(f"first {term} needs {gloss}: {prose[first:first + len(term) + 14]!r}")
    return found


def chapter_slips(path) -> list[str]:
    notebook = nbformat.read(path, as_version=4)
    cells = zh_cells(notebook)
    problems = [f"cell {i}: {p}" for i, source in cells for p in term_slips(source)]
    return problems + unglossed("\n\n".join(source for _, source in cells))


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_chapter_terms_have_one_form(path):
    problems = chapter_slips(path)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("page", ZH_PAGES, ids=[p.stem for p in ZH_PAGES])
def test_page_terms_have_one_form(page):
    text = page.read_text(encoding="utf-8")
    problems = term_slips(text) + unglossed(text)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("text", "slip"),
    [
        ("本讲讲到", "本讲"), ("先拷贝一份", "拷贝"), ("逐块重算", "重算"), ("它的 dtype 是", "dtype"),
        ("bf16 有 8 位有效数字", "有效数字"), ("公式就失准了", "失准"), ("GPU 内存放不下", "GPU 内存"),
        ("H100 的内存", "H100 的内存"), ("每个训练步骤", "训练步骤"), ("用小预设", "小预设"),
        ("用 small 预设", "small 预设"), ("**练习 1.** 算一算", "练习 1."), ("临界批次大小", "批次大小"),
        ("不参与前后比对", "前后比对"), ("本书的软件包", "软件包"), ("包里的函数", "包里"),
        ("这个 notebook 里", "notebook"), ("15T 训练数据", "15T 训练数据"), ("1.4T 个词元", "1.4T 个"),
    ],
)
def test_term_slips_are_caught(text, slip):
    found = term_slips(text)
    assert found and slip in found[0], found


def test_the_book_forms_pass():
    text = ("第 2 讲；复制；激活重计算；数据类型 `dtype`；8 个有效位；3 位十进制有效数字；保留三位有效数字；"
            "公式不再成立；显存；CPU 内存；训练步；`small` 预设；**练习 1。**；临界批大小；不做输出比对；"
            "软件包索引；笔记本（notebook）；400 亿（40B）个参数；15 万亿（15T）个词元；Llama 2 7B。")
    assert term_slips(text) == []
    assert unglossed("辅助包（`cs336_lec2`）与笔记本（notebook）；之后的辅助包和笔记本不再加注。") == []
    assert unglossed("辅助包的函数，后来才写辅助包（`cs336_lec2`）") == [
        "first 辅助包 needs （`cs336_lec2`）: '辅助包的函数，后来才写辅助包（`c'"]


# --- Book-wide typography and term rules (issue 38, Build 4 / item 18) ----------------------------
# Every Chinese text a reader meets: each chapter's Chinese cells, each Chinese page, the calculator's
# Chinese strings and the Chinese results page. Code spans read `c`, formulas $m$; links keep their
# text, URLs and HTML tags go.
CJK_CHAR = r"[\u3400-\u4dbf\u4e00-\u9fff]"
LINK = re.compile(r"\[([^\]\n]*)\]\([^)\s]*\)")
URL_OR_TAG = re.compile(r"https?://\S+|<[^>\n]+>")
DEFINITION = re.compile(r"^[ \t]*:[ \t]", re.M)  # a definition list's ": " (the glossary) is markup
BOOK_WIDE = {
    # a full-width mark carries its own space: "**答案。** 天数" renders with a gap
    r"[。，；：？！）」』]\**[ \t]+(?=[^\s|])": "no space after a full-width mark (**答案**。天数)",
    r"\d[ \t]+%": "70% (no space between a number and %)",
    CJK_CHAR + r"[,;:(]|[,;:)]" + CJK_CHAR + r"|[,;:][ \t]+" + CJK_CHAR + r"|\([^()\n]*" + CJK_CHAR + r"[^()\n]*\)":
        "full-width punctuation beside Chinese (，；：（）)",
    r"激活检查点": "激活重计算 / 不重计算、选择性重计算、完全重计算",
    r"每参数": "每个参数",
    r"每元素": "每个元素",
    r"拷": "复制",
    r"激活值?显存|激活内存": "激活值内存 (activation memory, TRANSLATING.md)",
}


def book_wide_slips(text: str, markdown: bool = True) -> list[str]:
    """Where ``text`` breaks a rule of :data:`BOOK_WIDE` (``markdown``: read code spans, maths and links)."""
    plain = LINK.sub(r"\1", without_code_and_math(text)) if markdown else text
    plain = DEFINITION.sub("", URL_OR_TAG.sub("", plain))
    return [f"{instead}: {plain[max(m.start() - 8, 0):m.end() + 8]!r}"
            for pattern, instead in BOOK_WIDE.items() for m in re.finditer(pattern, plain)]


CALCULATOR_STRINGS = ROOT / "book" / "_static" / "calculator" / "strings.js"
JS_STRING = re.compile(r'"((?:[^"\\\n]|\\.)*)"')


def calculator_zh_strings() -> list[str]:
    """The Chinese strings of the calculator: the string literals of ``strings.js``'s ``ZH ?`` branch."""
    source = CALCULATOR_STRINGS.read_text(encoding="utf-8")
    start = source.index("const T = ZH ? {")
    end = source.index("} : {", start)
    return JS_STRING.findall(source[start:end])


def results_page_zh() -> str:
    """The text of the Chinese results page as the book renders it from the committed records."""
    from cs336_lec2.publish.results_page import load_records, render_markdown

    page = (ROOT / "book" / "zh" / "results.md").read_text(encoding="utf-8")
    tables = render_markdown(load_records(ROOT / "book" / "results"), "zh", None)
    return page + "\n\n" + re.sub(r"\\(.)", r"\1", tables)  # escape() undone: the words a reader sees


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_chapter_follows_the_book_wide_rules(path):
    cells = zh_cells(nbformat.read(path, as_version=4))
    problems = [f"cell {i}: {p}" for i, source in cells for p in book_wide_slips(source)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("page", ZH_PAGES, ids=[p.stem for p in ZH_PAGES])
def test_page_follows_the_book_wide_rules(page):
    problems = book_wide_slips(page.read_text(encoding="utf-8"))
    assert not problems, "\n".join(problems)


def test_calculator_and_results_follow_the_book_wide_rules():
    strings = calculator_zh_strings()
    assert len(strings) > 100 and "不重计算" in strings  # the extraction found the Chinese branch
    problems = [p for s in strings for p in book_wide_slips(s, markdown=False)]
    problems += book_wide_slips(results_page_zh())
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("**答案。** 天数", "no space after"), ("**模型算力利用率（MFU）** 是", "no space after"),
        ("这样。 下一句", "no space after"), ("算完了： **结论**", "no space after"),
        ("**答案。** 640 GB", "no space after"), ("**答案。** `x`", "no space after"),
        ("占 70 %", "no space between"), ("MFU 56.8 %", "no space between"),
        ("检查点文件, Cruncher", "full-width punctuation"), ("MFU 53.9 %; 像", "full-width punctuation"),
        ("(每个方向)", "full-width punctuation"), ("估算值:", "full-width punctuation"),
        ("函数(", "full-width punctuation"),
        ("不做激活检查点", "激活重计算"), ("每参数 18 字节", "每个参数"), ("每元素字节数", "每个元素"),
        ("拷到设备上", "复制"), ("激活值显存", "激活值内存"), ("激活显存", "激活值内存"),
    ],
)
def test_book_wide_rules_catch(text, rule):
    found = book_wide_slips(text)
    assert any(rule in f for f in found), found


def test_book_wide_rules_accept_the_books_style():
    text = ("**答案**。天数；**模型算力利用率（MFU）**是 70%。见[第 5 章](05_flops_and_mfu)和 "
            "<https://example.org/a,b>；`f(x, y)` 与 $f(a, b)$ 里的半角标点不算；GPT-2 (small) 与 "
            "Cruncher(D=4, L=2) 是英文；每个参数 18 字节，每个元素，复制到设备上，激活值内存，激活重计算。"
            "一句话。\n\n下一段：**粗体**\n\n| 表头。 |\n\n术语\n: 定义，写在冒号后面。")
    assert book_wide_slips(text) == []
    assert book_wide_slips("34 KiB (1.00×)", markdown=False) == []


# --- The package's own words in the zh edition's outputs (issue 38, Build 1 / Done-when) -----------
# What a code cell shows a reader of the Chinese edition: its outputs tagged zh and its untagged ones
# (the staging keeps both), in cells the book shows. An English *sentence* is a run of four or more
# English words with at least two function words: the package's messages are sentences, identifiers,
# units and table columns are not. Libraries' messages may stay (CONTRIBUTING.md), each under a
# Chinese line that introduces it: they are listed here and counted apart.
FUNCTION_WORDS = frozenset(re.findall(r"\w+", "a an the of to in on at by for with from into and or but not "
                                      "no is are was be been it its this that than as has have had would "
                                      "could can must"))
LIBRARY_MESSAGES = (  # torch's and jaxtyping's own words, shown on purpose (a sentence is one of their parts)
    "view size is not compatible with input tensor's size and stride",
    "one of the variables needed for gradient computation has been modified by an inplace operation",
    "The size of tensor a (4) must match the size of tensor b (5) at non-singleton dimension 1",
    "Type-check error whilst checking the parameters of __main__.scores.",
    "The problem arose whilst typechecking parameter 'k'.",
    "Type-check error whilst checking the return value of __main__.scores_swapped.",
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed.",
    "optimizer got an empty parameter list",
    "Weights only load failed.",
    "a leaf Variable that requires grad is being used in an in-place operation",
)
HIDDEN = {"remove-cell", "remove-output"}


def english_sentences(text: str) -> list[str]:
    """The English sentences of an output's text (quoted titles “…” left out)."""
    if str(ROOT / "tools") not in sys.path:
        sys.path.insert(0, str(ROOT / "tools"))
    from zh_english import ENGLISH_RUN, QUOTED_TITLE

    found = []
    for line in QUOTED_TITLE.sub("“”", text).splitlines():
        for run in ENGLISH_RUN.finditer(line):
            words = [w.lower() for w in re.findall(r"[A-Za-z]+", run.group(0))]
            if sum(w in FUNCTION_WORDS for w in words) >= 2:
                found.append(run.group(0))
    return found


def zh_output_sentences(path) -> tuple[list[str], list[str]]:
    """(the package's English sentences, the libraries' ones) a zh reader sees in a chapter's outputs."""
    own, library = [], []
    for i, cell in enumerate(nbformat.read(path, as_version=4).cells):
        if cell.cell_type != "code" or HIDDEN & set(cell.metadata.get("tags", [])):
            continue
        for output in cell.get("outputs", []):
            if output.get("metadata", {}).get("lang") == "en" or output.get("name") == "stderr":
                continue
            data = output.get("data", {})
            if data.get("text/markdown", "").startswith("```"):
                continue  # a show_source listing: code, its words checked by tests/test_source_zh.py
            text = output.get("text") or ("" if "image/png" in data else data.get("text/plain", ""))
            if output.get("output_type") == "error":
                text = f"{output.get('ename')}: {output.get('evalue')}"
            for sentence in english_sentences(text):
                is_library = any(sentence in message for message in LIBRARY_MESSAGES)
                (library if is_library else own).append(f"cell {i}: {sentence}")
    return own, library


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_zh_outputs_hold_no_english_sentence_of_the_package(path):
    """Run on the committed outputs: a chapter re-executed after a change of the package's words."""
    own, library = zh_output_sentences(path)
    assert not own, "\n".join(own)
    assert len(library) <= 7, library  # a few torch messages (a line each), each shown on purpose


@pytest.mark.parametrize(
    ("text", "count"),
    [
        ("ValueError: path must not end in .npy for a raw token file (tokens.npy): np.load would", 1),
        ("  MFU 1.97 > 1: 7.03e+13 FLOP/s measured against a peak of 3.56e+13 FLOP/s. Likely", 1),
        ("ValueError: 原始词元文件的 path 不能以 .npy 结尾（tokens.npy）", 0),
        ("torch Adagrad            step, sum                  156   4.33", 0),
        ("b i h, b j h -> b i  48               240           True", 0),
        ("出处：“NVIDIA H100 Tensor Core GPU Architecture of the year”的表 3", 0),
        ("ddp, zero1, fsdp2, fsdp2_zero2, fsdp2_blocks, ddp_accumulate, ddp_no_sync", 0),
    ],
)
def test_english_sentences_are_told_from_identifiers(text, count):
    assert min(len(english_sentences(text)), 1) == count, english_sentences(text)


def test_results_page_rows_read_in_chinese():
    text = results_page_zh()
    assert "AdaGrad 的一步：优化器状态" in text  # the records hold the memory rows
    assert not re.search(r"：(params|grads|optimizer_state|activations|total)\b", text)
    assert 'attention="' not in text and "attention=“math”" in text  # curly quotes the right way round

"""Structure of the committed chapter notebooks (DESIGN.md §3–§5); nbval checks their outputs."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
CHAPTERS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
HEADING = re.compile(r"^(#{1,6})\s", re.M)
CJK = re.compile(r"[\u4e00-\u9fff]")
MACHINE_PATH = re.compile(r"(/root/|/tmp/|/home/|site-packages|/Users/|[A-Z]:\\\\)")
ADDRESS = re.compile(r"\b0x[0-9a-fA-F]{6,}\b")
# --- Chinese typography and terminology (issue 10; book/glossary.md) -------------------------------
CJK_IDEOGRAPH = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
FENCED = re.compile(r"^[ \t]*(```|~~~).*?^[ \t]*\1[^\n]*$", re.M | re.S)
MATH_BLOCK = re.compile(r"\$\$.*?\$\$", re.S)
HTML_COMMENT = re.compile(r"<!--.*?-->", re.S)
CODE_SPAN = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)", re.S)
INLINE_MATH = re.compile(r"(?<![\\$])\$(?!\$)[^$\n]+?(?<!\\)\$")
# A line that starts a new Markdown block (the break before it is structure, not a wrapped paragraph).
BLOCK_START = re.compile(r"^[ \t]*([-*+:][ \t]|\d+[.)][ \t]|#|>|\||<|:::|\$\$|```|~~~)")
SPACED_QUOTE = re.compile(r"(?<=[^\s|>*+-])[ \t]+[“”]|[“”][ \t]+(?=[^\s|])")
CJK_ITALIC = re.compile(
    r"(?<![*\\])\*(?![*\s])([^*\n]*?)(?<![*\s\\])\*(?!\*)|(?<![\w\\])_(?![_\s])([^_\n]*?)(?<![_\s])_(?!\w)"
)
# Terms the Chinese edition does not use (book/glossary.md); each maps to what to write instead.
BANNED_TERMS = {
    "计算核": "内核（kernel）",
    "激活检查点": "激活重计算（activation checkpointing，亦称梯度检查点）",
    "去缩放": "反缩放 (unscale)",
    "代码单元(?!格)": "代码单元格",
    "[上下这该]一?个?单元(?![格测])": "单元格 (a notebook cell)",
    "乘加融合": "融合乘加（FMA）",
    "主频": "时钟频率",
    "本包|程序包": "辅助包",
    "讲义|课上": "第 2 讲 / 本讲 (the lecture)",
    r"\d+\s*张\s*(?:[A-Z]|GPU|显卡|卡)": "块 (8 块 H100)",
    "[一二]阶动量": "一阶矩、二阶矩",
    r"et al\b": "等人",
    r"(?<!自动微分（)\bautograd\b": "自动微分（autograd） first, then 自动微分",
    # Issue 21: one form for each of these across the book.
    "每参数": "每个参数",
    "震荡": "振荡 (an oscillating loss)",
    "位置下标": "位置索引",
    r"等人\s*\d{4}\s*年": "作者 等人（2020） in running text, （作者 等人，2020） in parentheses",
    r"(?:偏小|缩小|减小|减少|降低|小|少|低)了?\s*(?:约|大约|近|将近|整整)?\s*(?:[\d.,]+|[两三四五六七八九十百千万]+)\s*倍":
        "“A 只有 B 的 1/N”或“B 是 A 的 N 倍” (a factor below 1)",
}


# A MyST directive fenced like code (```{note}, ```{warning} ...) holds prose: it is checked too (issue 21).
DIRECTIVE_OPTIONS = re.compile(r"\A(?:[ \t]*:[\w-]+:[^\n]*\n)+")
PROSE_DIRECTIVE = re.compile(r"^[ \t]*(```|~~~)\{(?!code)[\w-]+\}[^\n]*\n(.*?)^[ \t]*\1[ \t]*$", re.M | re.S)


def zh_prose(text: str) -> str:
    """The prose of a Markdown text: without fenced code, display maths and HTML comments."""
    # A directive's body is prose, less its option lines (":class: dropdown") at the top.
    text = PROSE_DIRECTIVE.sub(lambda m: "\n" + DIRECTIVE_OPTIONS.sub("", m.group(2)) + "\n", text)
    for pattern in (FENCED, MATH_BLOCK, HTML_COMMENT):
        text = pattern.sub("\n", text)
    return text


def without_code_and_math(text: str) -> str:
    return INLINE_MATH.sub("$m$", CODE_SPAN.sub("`c`", zh_prose(text)))


def zh_typography(text: str) -> list[str]:
    """Typography slips of a Chinese Markdown text (issue 10, items 5 and 6), one message each."""
    found = []
    prose = zh_prose(text)
    lines = prose.split("\n")
    for a, b in itertools.pairwise(lines):
        if not a.strip() or not b.strip() or BLOCK_START.match(b) or a.lstrip().startswith(("#", "|")):
            continue
        if a.endswith(("  ", "\\")):
            continue  # an explicit line break is meant
        if CJK.search(a) or CJK.search(b):
            found.append(f"hard line break inside a paragraph: {a[-12:]!r} / {b.strip()[:12]!r}")
    for span in CODE_SPAN.finditer(prose):
        if CJK_IDEOGRAPH.search(span.group(2)):
            found.append(f"Chinese inside a code span: {span.group(0)!r}")
    plain = without_code_and_math(text)
    for m in SPACED_QUOTE.finditer(plain):
        found.append(f"space beside a full-width quote: {plain[max(m.start() - 6, 0):m.end() + 6]!r}")
    for m in CJK_ITALIC.finditer(plain):
        if CJK_IDEOGRAPH.search(m.group(0)):
            found.append(f"italic Chinese (use bold or nothing): {m.group(0)!r}")
    depth = 0
    for ch in plain:
        depth += {"（": 1, "）": -1}.get(ch, 0)
        if depth > 1:
            found.append("nested full-width parentheses")
            break
    return found


def zh_terms(text: str) -> list[str]:
    """Terms the glossary replaces, found in a Chinese Markdown text (code and maths excluded)."""
    plain = without_code_and_math(text)
    found = []
    for pattern, instead in BANNED_TERMS.items():
        for m in re.finditer(pattern, plain):
            found.append(f"{m.group(0)!r} -> {instead}")
    return found


def tags(cell) -> list[str]:
    return cell.get("metadata", {}).get("tags", [])


def output_text(output) -> str:
    text = output.get("text", "")
    data = output.get("data", {})
    return "".join(text) + "".join(data.get("text/plain", "")) + "".join(data.get("text/markdown", ""))


@pytest.fixture(params=CHAPTERS, ids=[p.stem for p in CHAPTERS], scope="module")
def notebook(request):
    return nbformat.read(request.param, as_version=4)


def test_all_twelve_chapters_exist_and_are_in_the_toc():
    toc = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    listed = re.findall(r"file: notebooks/(\S+)", toc)
    assert [p.stem for p in CHAPTERS] == listed
    assert len(CHAPTERS) >= 12


def test_valid_nbformat(notebook):
    nbformat.validate(notebook)
    assert notebook.metadata["kernelspec"]["name"] == "python3"


def test_executed_top_to_bottom_without_errors(notebook):
    code = [c for c in notebook.cells if c.cell_type == "code" and c.source.strip()]
    assert [c.execution_count for c in code] == list(range(1, len(code) + 1))
    errors = [o for c in code for o in c.outputs if o.output_type == "error"]
    assert not errors, [f"{o.ename}: {o.evalue}" for o in errors]


def test_one_parameters_cell_with_device_and_preset(notebook):
    cells = [c for c in notebook.cells if "parameters" in tags(c)]
    assert len(cells) == 1
    src = cells[0].source
    assert re.search(r'^device = "auto"$', src, re.M)
    assert re.search(r'^preset = "auto"$', src, re.M)


def test_bilingual_pairs(notebook):
    cells = notebook.cells
    for i, cell in enumerate(cells):
        if cell.cell_type != "markdown" or not cell.source.strip():
            continue
        t = tags(cell)
        assert ("lang-en" in t) != ("lang-zh" in t), f"cell {i}: prose needs exactly one of lang-en / lang-zh"
        if "lang-en" in t:
            zh = cells[i + 1]
            assert zh.cell_type == "markdown" and "lang-zh" in tags(zh), f"cell {i}: no lang-zh cell follows"
            assert HEADING.findall(cell.source) == HEADING.findall(zh.source), f"cell {i}: heading levels differ"
            assert CJK.search(zh.source), f"cell {i + 1}: the Chinese cell has no Chinese"
            assert len(CJK.findall(cell.source)) < 0.05 * len(cell.source), f"cell {i}: English cell is Chinese"
        else:
            assert "lang-en" in tags(cells[i - 1]), f"cell {i}: lang-zh cell without its lang-en cell"


def test_title_and_exercises(notebook):
    prose = [c for c in notebook.cells if c.cell_type == "markdown"]
    assert prose[0].source.startswith("# ") and "lang-en" in tags(prose[0])
    headings = [c.source.splitlines()[0] for c in prose if c.source.startswith("## ")]
    assert "## Exercises" in headings and "## 练习" in headings
    cells = notebook.cells
    start = next(i for i, c in enumerate(cells) if c.cell_type == "markdown" and c.source.startswith("## Exercises"))
    answers = [i for i, c in enumerate(cells) if "answer" in tags(c)]
    assert answers and min(answers) > start, "answers are tagged `answer` and come after ## Exercises"
    prose = [i for i in answers if cells[i].cell_type == "markdown"]
    code = [i for i in answers if cells[i].cell_type == "code"]
    assert 2 <= len(prose) // 2 <= 4, "2-4 exercises, each with an answer in both languages"
    for i in prose:
        first = cells[i].source.lstrip()
        assert first.startswith("**Answer.**" if "lang-en" in tags(cells[i]) else "**答案**。"), f"cell {i}"
    for i in code:
        # an answer's code follows its prose pair (or another answer code cell): one dropdown in the book
        assert "answer" in tags(cells[i - 1]), f"cell {i}: answer code must follow its answer prose"
        assert "hide-cell" not in tags(cells[i]), f"cell {i}: the answer tag folds it; no hide-cell"
    assert any("assert" in cells[i].source for i in code), "the answers' code asserts what they claim"
    for i, c in enumerate(cells):
        if c.cell_type == "code" and "hide-cell" in tags(c):
            raise AssertionError(f"cell {i}: hide-cell is for nothing now; use answer, checks or plot")


def test_code_cells_carry_no_language_tag(notebook):
    for cell in notebook.cells:
        if cell.cell_type == "code":
            assert not {"lang-en", "lang-zh"} & set(tags(cell))
            assert "NBVAL_" not in cell.source, "use the nbval-* tags, not comment markers"


def test_ignored_outputs_assert_their_validity(notebook):
    cells = notebook.cells
    ignored = [i for i, c in enumerate(cells) if "nbval-ignore-output" in tags(c)]
    assert ignored, "every chapter has machine-dependent output somewhere (at least the device)"

    def asserts(i):  # the cell itself, or a `checks` cell after it before the next prose
        after = itertools.takewhile(lambda c: c.cell_type == "code", cells[i + 1:])
        folded = any("checks" in tags(c) and "assert" in c.source for c in after)
        # or it prints what it measured (say/show_* print in both languages: cs336_lec2.bilingual)
        shows = ("assert", "print", "say(", "show_table(", "show_figures(", "start(")
        return any(word in cells[i].source for word in shows) or folded

    silent = [cells[i].source.splitlines()[0] for i in ignored if not asserts(i)]
    assert not silent


def test_no_machine_paths_or_addresses_in_outputs(notebook):
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            text = output_text(output)
            assert not MACHINE_PATH.search(text), MACHINE_PATH.search(text).group(0)
            assert not ADDRESS.search(text), ADDRESS.search(text).group(0)


def test_no_stderr_in_checked_cells(notebook):
    for cell in notebook.cells:
        if cell.cell_type != "code" or "nbval-ignore-output" in tags(cell):
            continue
        streams = [o.name for o in cell.outputs if o.output_type == "stream"]
        assert "stderr" not in streams, cell.source.splitlines()[0]


def test_plots_are_png_not_svg(notebook):
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            assert "image/svg+xml" not in output.get("data", {})


def test_no_papermill_leftovers(notebook):
    assert "papermill" not in notebook.metadata
    assert not any("injected-parameters" in tags(c) for c in notebook.cells)


def zh_cells(notebook) -> list[tuple[int, str]]:
    return [(i, c.source) for i, c in enumerate(notebook.cells) if c.cell_type == "markdown" and "lang-zh" in tags(c)]


# A term glossed in parentheses where a chapter first uses it (book/glossary.md).
GLOSSED_AT_FIRST_USE = {
    "词元": "token",
    "自动微分": "autograd",
    "(?<!操作系统)内核": "kernel",
    "融合乘加": "FMA",
    "激活重计算": "activation checkpointing",
}


def unglossed_first_uses(text: str) -> list[str]:
    """Glossary terms whose first use in `text` lacks the English in full-width parentheses."""
    plain = without_code_and_math(text)
    found = []
    for term, english in GLOSSED_AT_FIRST_USE.items():
        first = re.search(term, plain)
        if first and not plain[first.end():].lstrip("*").startswith(f"（{english}"):
            found.append(f"first {first.group(0)} needs （{english}）: {plain[first.start():first.end() + 12]!r}")
    return found


def stride_as_step_size(en: str, zh: str) -> bool:
    """A pair whose English speaks of strides (and not of step sizes) but whose Chinese says 步长."""
    return bool(re.search(r"strides?\b", en, re.I)) and "步长" in zh and not re.search(r"step[ -]size", en, re.I)


def test_chinese_typography(notebook):
    problems = [f"cell {i}: {p}" for i, src in zh_cells(notebook) for p in zh_typography(src)]
    assert not problems, "\n".join(problems)


def test_chinese_terms_follow_the_glossary(notebook):
    cells = zh_cells(notebook)
    problems = [f"cell {i}: {p}" for i, src in cells for p in zh_terms(src)]
    problems += [f"cell {i}: stride is 步幅 (步长 is a step size)" for i, src in cells
                 if stride_as_step_size(notebook.cells[i - 1].source, src)]
    problems += unglossed_first_uses("\n\n".join(src for _, src in cells))
    assert not problems, "\n".join(problems)


ZH_PAGES = sorted((ROOT / "book" / "zh").glob("*.md"))


@pytest.mark.parametrize("page", ZH_PAGES, ids=[p.stem for p in ZH_PAGES])
def test_chinese_book_pages(page):
    text = page.read_text(encoding="utf-8")
    problems = zh_typography(text) + zh_terms(text)
    assert not problems, "\n".join(problems)


def test_glossary_typography():
    problems = zh_typography((ROOT / "TRANSLATING.md").read_text(encoding="utf-8"))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize(
    ("text", "slip"),
    [
        ("第一行写到这里，\n第二行接着写。", "hard line break"),
        ("A paragraph in English\n续写的中文。", "hard line break"),
        ("- 列表项写到一半\n  接着写。", "hard line break"),
        ("它叫 “FN” 变体。", "space beside a full-width quote"),
        ("```{note}\n它叫 “FN” 变体。\n```", "space beside a full-width quote"),
        ("它叫“FN” 变体。", "space beside a full-width quote"),
        ("这是*强调*的写法。", "italic Chinese"),
        ("这是 _强调_ 的写法。", "italic Chinese"),
        ("写成 `序列长度²` 不行。", "Chinese inside a code span"),
        ("外层（内层（再一层）结束）。", "nested full-width parentheses"),
    ],
)
def test_typography_check_catches(text, slip):
    assert any(slip in p for p in zh_typography(text)), zh_typography(text)


@pytest.mark.parametrize(
    "text",
    [
        "# 标题\n\n第一段一行写完。\n\n- 列表项一\n- 列表项二\n\n| 表头 |\n|---|\n| “引号” |",
        "它叫“FN”变体；**强调**用粗体；*Colab* 这样的英文斜体可以；$a_b \\cdot c_d$ 和 `x_y * z_w` 不是斜体。",
        "代码块里的换行不算：\n\n```python\n# 注释\nx = 1\n```\n\n$$\n\\text{甲}\n\\text{乙}\n$$",
        "显式换行可以保留：  \n第二行。",
        "```{admonition} 旁注\n:class: dropdown\n折叠起来的正文。\n```",  # an option line is not prose
    ],
)
def test_typography_check_accepts_clean_text(text):
    assert zh_typography(text) == []


@pytest.mark.parametrize(
    ("text", "term"),
    [
        ("计算核启动", "计算核"),
        ("激活检查点", "激活检查点"),
        ("先去缩放", "去缩放"),
        ("下面的代码单元计算", "代码单元"),
        ("下一个单元打印", "下一个单元"),
        ("乘加融合指令", "乘加融合"),
        ("CPU 主频", "主频"),
        ("本包的函数", "本包"),
        ("讲义说", "讲义"),
        ("课上的例子", "课上"),
        ("8 张 H100", "8 张 H"),
        ("Adam 的一阶动量", "一阶动量"),
        ("Kaplan et al. (2020)", "et al"),
        ("用 autograd 求导", "autograd"),
        ("方差小 100 倍", "小 100 倍"),
    ],
)
def test_term_check_catches(text, term):
    found = zh_terms(text)
    assert found and term in found[0], found


def test_term_check_accepts_the_glossary_terms():
    text = (
        "内核（kernel）启动；操作系统内核；融合乘加（FMA）；时钟频率；辅助包（`cs336_lec2`）；第 2 讲；本讲；"
        "8 块 H100；一阶矩、二阶矩；Kaplan 等人（2020）；自动微分（autograd）；`torch.autograd`；"
        "单元格；代码单元格；单元测试；激活重计算；反缩放；B 是 A 的 100 倍；只有 A 的 0.3 倍；差了一倍；翻倍。"
    )
    assert zh_terms(text) == []


def test_first_use_gloss_and_stride_checks():
    assert unglossed_first_uses("词元（token）之后，词元不再加注。") == []
    assert unglossed_first_uses("**内核**（kernel）；操作系统内核") == []
    assert unglossed_first_uses("操作系统内核不算；内核启动") == ["first 内核 needs （kernel）: '内核启动'"]
    assert unglossed_first_uses("词元 id，后来才写词元（token）")
    assert stride_as_step_size("The stride of x.", "x 的步长")
    assert not stride_as_step_size("The stride of x.", "x 的步幅")
    assert not stride_as_step_size("A step size per coordinate.", "每个坐标的步长")


def test_every_english_comment_has_its_chinese_and_no_translation_is_stale(notebook):
    # The zh edition shows a code cell's comments in Chinese (cell metadata zh_comments, applied when an
    # edition is staged: publish/cells.py). A comment changed in English leaves its translation stale.
    from cs336_lec2.publish.cells import COMMENTS_KEY, comment_lines

    words = re.compile(r"[A-Za-z]{2,} [A-Za-z]{2,}")  # a phrase, not a list of names (batch, seq, d)
    for i, cell in enumerate(notebook.cells):
        if cell.cell_type != "code" or "remove-cell" in tags(cell):
            continue
        translated = cell.metadata.get(COMMENTS_KEY) or {}
        comments = comment_lines(cell.source)
        stale = [en for en in translated if en not in comments]
        assert not stale, f"cell {i}: zh_comments translates comments the code no longer has: {stale}"
        missing = [text for text in comments if words.search(text) and text not in translated]
        assert not missing, f"cell {i}: comments without a Chinese translation in zh_comments: {missing}"

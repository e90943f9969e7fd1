"""The book's landing page (``_build/html/index.html``): what the book is, who it is for, the chapters as
cards, the calculator and how to run, in English and in Chinese (issue 27 §9).

One static page, no CDN and no module script: it works offline and from ``file://``. Both languages
are in the page; a two-button switch shows one (the reader's last choice, kept in ``localStorage``, else
the browser's language), and without JavaScript both are shown. The chapters' titles are those of the
notebooks (a test compares them).
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from urllib.parse import quote


@dataclass(frozen=True)
class Card:
    """One chapter: its file name, its title and one line about it, per language."""

    name: str
    title: dict[str, str]
    line: dict[str, str]


def _card(name: str, en_title: str, zh_title: str, en: str, zh: str) -> Card:
    return Card(name, {"en": en_title, "zh": zh_title}, {"en": en, "zh": zh})


CHAPTERS = (
    _card("01_napkin_math", "1. Napkin math: how long, and how big?", "1. 估算：要训练多久，能训练多大？",
          "How long a training run takes and how big a model fits, from 6ND, the dense peak and MFU.",
          "用 6ND、稠密峰值和 MFU 估算一次训练要多久、能训练多大的模型。"),
    _card("02_floats", "2. Floating-point formats: fp32, fp16, bf16, fp8 and TF32",
          "2. 浮点格式：fp32、fp16、bf16、fp8 与 TF32",
          "How each format spends its bits on range and on precision.",
          "每种格式怎样把二进制位分给表示范围和精度。"),
    _card("03_tensors", "3. Tensors: storage, strides and views", "3. 张量：存储、步幅与视图",
          "A tensor is a storage and its strides: which operations are free views and which copy.",
          "张量就是一块存储加上步幅：哪些操作是不占内存的视图，哪些会复制。"),
    _card("04_einops", "4. Named dimensions: jaxtyping and einops", "4. 具名维度：jaxtyping 与 einops",
          "Naming the dimensions of a tensor instead of counting their positions.",
          "给张量的维度起名字，而不是靠位置记住它们。"),
    _card("05_flops_and_mfu", "5. FLOPs and MFU", "5. 浮点运算次数与 MFU",
          "Counting a matrix multiplication's FLOPs, timing it right, and the roofline that caps MFU.",
          "统计矩阵乘法的浮点运算次数，正确计时，以及限制 MFU 的屋顶线模型。"),
    _card("06_gradients_and_backward_flops", "6. Gradients and backward FLOPs", "6. 梯度与反向传播的浮点运算次数",
          "Why the backward pass costs twice the forward: 6 FLOPs per parameter and token.",
          "为什么反向传播的代价是前向的 2 倍：每个参数、每个词元共 6 次浮点运算。"),
    _card("07_parameters_and_init", "7. Parameters and initialisation", "7. 参数与初始化",
          "Counting parameters, and an initialisation that keeps activations at scale.",
          "统计参数量，以及让激活值保持大小的初始化。"),
    _card("08_randomness_and_data", "8. Randomness and data", "8. 随机性与数据",
          "Seeds that reproduce a run, and tokens read from a memory-mapped file.",
          "让一次运行可以复现的随机种子，以及从内存映射文件读取的词元。"),
    _card("09_optimizers", "9. Optimizers", "9. 优化器",
          "SGD, momentum, Adam and AdamW by hand, step for step against torch.optim, and their state in bytes.",
          "手写 SGD、动量、Adam 与 AdamW，每一步都与 torch.optim 一致，并算出它们状态的字节数。"),
    _card("10_memory_accounting", "10. Memory accounting", "10. 内存核算",
          "Every byte of a training step, checked against what the allocator holds.",
          "训练一步用到的每个字节，并与分配器实际占用的字节数对照。"),
    _card("11_training_loop_and_checkpoints", "11. The training loop and checkpoints", "11. 训练循环与检查点",
          "A training loop with gradient accumulation, and checkpoints that resume exactly.",
          "带梯度累积的训练循环，以及能恰好接着训练的检查点。"),
    _card("12_mixed_precision", "12. Mixed precision training", "12. 混合精度训练",
          "Autocast, master weights and loss scaling, and what each one saves.",
          "autocast、主权重与损失缩放，以及它们各自省下了什么。"),
    _card("13_transformer_accounting", "13. Accounting for a Transformer", "13. Transformer 的资源核算",
          "Parameters, FLOPs and activation memory of a whole Transformer, checked against published models.",
          "整个 Transformer 的参数量、浮点运算次数与激活值内存，并与已发布的模型对照。"),
    _card("14_sharding", "14. Beyond one GPU: data parallelism, ZeRO and FSDP",
          "14. 超越单卡：数据并行、ZeRO 与 FSDP",
          "The memory of each GPU and the bytes each step sends, with data parallelism, ZeRO and FSDP.",
          "数据并行、ZeRO 与 FSDP 下每块 GPU 的显存，以及每一步发送的字节数。"),
)

WORDS = {
    "en": {
        "lang": "en", "title": "CS336 Lecture 2: PyTorch and resource accounting",
        "what": "An executable textbook for lecture 2 of Stanford CS336, <i>Language Modeling from Scratch</i>: "
                "the memory (bytes) and compute (FLOPs) of training a language model, worked out from a "
                "float's bits up to a sharded Transformer. Every number is computed in a code cell and checked "
                "against an independent source.",
        "who": "For students of the course and for anyone who trains models with PyTorch and wants to know where "
               "the memory and the time go. You need Python, basic PyTorch and matrix multiplication; no GPU.",
        "read": "Read the book", "chapters": "Chapters", "tools": "Tools and set-up",
        "calculator": "Training calculator",
        "calculator_line": "Parameters, FLOPs, GPU-days and memory per GPU of a model, in the browser.",
        "how": "Run, test and re-measure",
        "how_line": "Open a chapter in Colab, or locally: <code>make book</code> builds this book, "
                    "<code>make test</code> runs every check.",
        "glossary": "Glossary", "glossary_line": "Each term in one sentence, with its chapter.",
        "results": "Hardware results",
        "results_line": "What the chapters measured on each machine that ran them, side by side.",
        "pdf": "PDF", "pdf_line": "The whole book in one file.",
    },
    "zh": {
        "lang": "zh-CN", "title": "CS336 第 2 讲：PyTorch 与资源核算",
        "what": "斯坦福 CS336《从零开始的语言建模》第 2 讲的可执行教材：训练语言模型要花多少内存（字节）和算力"
                "（浮点运算次数），从一个浮点数的二进制位一直算到分片训练的 Transformer。每个数字都由代码单元格算出，"
                "并与独立来源核对。",
        "who": "写给这门课的学生，以及所有用 PyTorch 训练模型、想弄清内存和时间花在哪里的人。需要 Python、"
               "PyTorch 基础和矩阵乘法；不需要 GPU。",
        "read": "开始阅读", "chapters": "章节", "tools": "工具与运行",
        "calculator": "训练计算器",
        "calculator_line": "在浏览器中算出一个模型的参数量、浮点运算次数、GPU·天和每块 GPU 的显存。",
        "how": "运行、测试与重新测量",
        "how_line": "在 Colab 中打开任意一章；或在本地用 <code>make book</code> 构建本书，"
                    "用 <code>make test</code> 运行全部检查。",
        "glossary": "术语表", "glossary_line": "每个术语一句话释义，并链接到讲解它的章节。",
        "results": "硬件实测结果",
        "results_line": "各章在每台运行过它们的机器上测得的结果，并排对照。",
        "pdf": "PDF", "pdf_line": "整本书的一个文件。",
    },
}

STYLE = """
:root{--fg:#1f2328;--muted:#57606a;--line:#d0d7de;--card:#f6f8fa;--accent:#0969da}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--muted:#9198a1;--line:#3d444d;--card:#151b23;
--accent:#4493f8}body{background:#0d1117}}
body{font-family:system-ui,-apple-system,"Segoe UI","Noto Sans CJK SC","PingFang SC",sans-serif;color:var(--fg);
margin:0;line-height:1.6}
main{max-width:64rem;margin:0 auto;padding:2rem 1.25rem 4rem}
h1{font-size:2rem;line-height:1.25;margin:.5rem 0 1rem}h2{font-size:1.3rem;margin:2.5rem 0 1rem}
h1,h2,.cards strong{word-break:keep-all;overflow-wrap:break-word}
.switch{display:flex;gap:.5rem;justify-content:flex-end}
.switch button{font:inherit;border:1px solid var(--line);background:none;color:var(--fg);border-radius:6px;
padding:.2rem .8rem;cursor:pointer}
.switch button[aria-pressed=true]{background:var(--accent);border-color:var(--accent);color:#fff}
.lead{font-size:1.1rem}.muted{color:var(--muted)}
.read{display:inline-block;margin:1rem 0;padding:.6rem 1.4rem;border-radius:6px;background:var(--accent);
color:#fff;text-decoration:none;font-weight:600}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(17rem,1fr));gap:1rem;padding:0;margin:0;
list-style:none}
.cards a{display:block;height:100%;box-sizing:border-box;padding:1rem;border:1px solid var(--line);
border-radius:8px;background:var(--card);color:inherit;text-decoration:none}
.cards a:hover{border-color:var(--accent)}.cards strong{display:block;margin-bottom:.3rem}
.cards span{color:var(--muted);font-size:.95rem}
html.one [data-lang]{display:none}html.one.show-en [data-lang=en],html.one.show-zh [data-lang=zh]{display:block}
"""

SCRIPT = """
(function () {
  var root = document.documentElement, KEY = "cs336-lec2-language";
  function remember(lang) {  // localStorage works from file:// too; a browser that refuses it just forgets
    try { localStorage.setItem(KEY, lang); } catch (e) {}
  }
  function stored() {
    try { return localStorage.getItem(KEY); } catch (e) { return null; }
  }
  function show(lang) {
    root.className = "one show-" + lang;
    root.lang = lang === "zh" ? "zh-CN" : "en";
    document.querySelectorAll(".switch button").forEach(function (b) {
      b.setAttribute("aria-pressed", String(b.dataset.show === lang));
    });
  }
  document.querySelectorAll(".switch button").forEach(function (b) {
    b.addEventListener("click", function () { show(b.dataset.show); remember(b.dataset.show); });
  });
  var choice = location.hash === "#en" ? "en" : location.hash === "#zh" ? "zh" : stored();
  show(choice === "en" || choice === "zh" ? choice : /^zh/i.test(navigator.language || "") ? "zh" : "en");
})();
"""


def _section(lang: str, pdfs: dict[str, str]) -> str:
    w = WORDS[lang]
    cards = "\n".join(
        f'    <li><a href="{lang}/notebooks/{c.name}.html"><strong>{escape(c.title[lang])}</strong>'
        f"<span>{escape(c.line[lang])}</span></a></li>"
        for c in CHAPTERS
    )
    tools = [(f"{lang}/book/calculator.html", w["calculator"], w["calculator_line"]),
             (f"{lang}/book/how_to_run.html", w["how"], w["how_line"]),
             (f"{lang}/book/results.html", w["results"], w["results_line"]),
             (f"{lang}/book/glossary.html", w["glossary"], w["glossary_line"])]
    if lang in pdfs:
        tools.append((escape(pdfs[lang], quote=True), w["pdf"], w["pdf_line"]))
    tool_cards = "\n".join(f'    <li><a href="{href}"><strong>{escape(title)}</strong><span>{line}</span></a></li>'
                           for href, title, line in tools)
    return f"""<section data-lang="{lang}" lang="{w['lang']}">
  <h1>{escape(w['title'])}</h1>
  <p class="lead">{w['what']}</p>
  <p class="muted">{escape(w['who'])}</p>
  <a class="read" href="{lang}/index.html" hreflang="{w['lang']}">{escape(w['read'])}</a>
  <h2>{escape(w['chapters'])}</h2>
  <ul class="cards">
{cards}
  </ul>
  <h2>{escape(w['tools'])}</h2>
  <ul class="cards">
{tool_cards}
  </ul>
</section>"""


def landing_page(icon_link: str, pdfs: dict[str, str] | None = None) -> str:
    """The root ``index.html``: both editions' introductions and chapter cards.

    ``icon_link`` is the page's ``<link rel="icon">``; ``pdfs`` maps an edition to its PDF's address,
    relative to the page (a card is added for each).
    """
    pdfs = pdfs or {}
    sections = "\n".join(_section(lang, pdfs) for lang in WORDS)
    return f"""<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>CS336 Lecture 2 · 第 2 讲</title>
{icon_link}
<style>{STYLE}</style>
</head>
<body>
<main>
<nav class="switch" aria-label="Language · 语言">
  <button type="button" data-show="en" lang="en">English</button>
  <button type="button" data-show="zh" lang="zh-CN">中文</button>
</nav>
{sections}
</main>
<script>{SCRIPT}</script>
</body>
</html>
"""


def pdf_href(lang: str) -> str:
    """Where an edition's PDF lies, relative to the landing page."""
    return f"pdf/{quote(f'cs336-lec2-{lang}.pdf')}"

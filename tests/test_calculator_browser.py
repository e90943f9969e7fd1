"""The calculator page in headless Chromium: fast, usable, laid out within its cards at a desk and on a phone.

That the page's JavaScript equals the Python reference is ``tests/test_calculator_node.py``'s (the
same scripts, in Node, on every preset and 1,000 random configurations); here the page itself. It must
be interactive within a second of a cold local load (the best of five; on a machine too busy for the
book's theme to load a page in 750 ms, within 1.5 times that page's time) and recalculate within a
frame, 16 ms (the best median of three batches, layout included); the measured times are printed and
written to ``_build/test-book/calculator-timing.json``. Opened from disk at 1400 and 400 px in both
editions, no control sticks out of its card, no choice is cut, no header breaks inside a word, and an
invalid input shows its error right under it, in view, with no verdict left on the stale results
(screenshots in ``_build/test-book/screenshots``).
"""

from __future__ import annotations

import json
import statistics

import pytest
from test_browser import _open, browser, site  # noqa: F401  (the offline Chromium and the served book)
from test_calculator_node import mismatches

from cs336_lec2.calculator import DEFAULTS, calculate
from cs336_lec2.publish.book import EDITIONS

pytestmark = [pytest.mark.slow, pytest.mark.browser]
PAGE = "book/calculator.html"
# The verdicts of the results (not of the inline calculator further down the page) a reader can see
VERDICT = ".cs336-calc-results .cs336-calc-fits:visible, .cs336-calc-results .cs336-calc-nofit:visible"
EVALUATE = """configs => configs.map(c => {
  try { return window.cs336Calculator.serialize(window.cs336Calculator.calculate(c)); }
  catch (e) { return {error: String(e)}; }
})"""


@pytest.fixture(scope="module")
def calculator(browser, site):  # noqa: F811
    page, problems = _open(browser, f"{site}/en/{PAGE}")
    page.wait_for_function("window.cs336Calculator && window.cs336Calculator.ready !== null")
    yield page
    assert not problems, problems
    page.close()


def _fresh_loads(browser, url: str, until: str, count: int) -> list[float]:  # noqa: F811
    """Milliseconds from navigation start to ``until`` (a JS expression) on ``count`` cold loads of ``url``."""
    times = []
    for _ in range(count):  # a fresh context each time: nothing cached
        context = browser.new_context()
        page = context.new_page()
        page.goto(url, wait_until="domcontentloaded")
        page.wait_for_function(f"({until}) !== null && ({until}) !== undefined && ({until}) > 0")
        times.append(page.evaluate(until))
        context.close()
    return times


def test_load_and_recalculation_times(browser, site, built_book):  # noqa: F811
    ready = "window.cs336Calculator && window.cs336Calculator.ready"
    loads = _fresh_loads(browser, f"{site}/en/{PAGE}", ready, 5)
    if min(loads) >= 1000:  # a busy machine: five more, then the theme's own time on a page without the calculator
        loads += _fresh_loads(browser, f"{site}/en/{PAGE}", ready, 5)
    baseline = None
    if min(loads) >= 1000:
        dcl = "performance.getEntriesByType('navigation')[0].domContentLoadedEventEnd"
        baseline = min(_fresh_loads(browser, f"{site}/en/book/how_to_run.html", dcl, 5))
    page, problems = _open(browser, f"{site}/en/{PAGE}")
    page.wait_for_function("window.cs336Calculator && window.cs336Calculator.ready !== null")
    batches = [page.evaluate("""() => {
        const api = window.cs336Calculator, input = api.form.elements.num_gpus, times = [];
        for (let i = 0; i < 40; i++) {
            input.value = String(8 * (1 + (i % 32)));
            const start = performance.now();
            input.dispatchEvent(new Event("input", {bubbles: true}));  // recalculate and re-render
            void document.body.offsetHeight;  // and lay the page out again
            times.push(performance.now() - start);
        }
        return times; }""") for _ in range(3)]  # three batches: the best median (a shared machine)
    medians = [statistics.median(times) for times in batches]
    timing = {"load_ms": loads, "load_best_ms": min(loads), "theme_only_ms": baseline,
              "recalc_batch_medians_ms": medians, "recalc_best_median_ms": min(medians),
              "recalc_max_ms": max(max(times) for times in batches)}
    (built_book.parent / "calculator-timing.json").write_text(json.dumps(timing, indent=1), encoding="utf-8")
    print(f"calculator timing: {timing}")
    # Interactive within a second; on a machine so busy that the book's theme alone takes 750 ms to
    # load a page (everything runs several times slower), the calculator may add half as much again.
    assert min(loads) < 1000 or (baseline >= 750 and min(loads) < 1.5 * baseline), timing
    assert min(medians) < 16, timing
    assert not problems, problems
    page.close()


def test_inputs_are_labelled_keyboard_usable_and_kept_in_the_url(calculator):
    unlabelled = calculator.evaluate("""() => [...window.cs336Calculator.form.elements]
        .filter(e => e.matches('input, select'))
        .filter(e => !document.querySelector(`label[for="${e.id}"]`)?.textContent.trim()).map(e => e.name)""")
    assert unlabelled == []
    calculator.focus("#calc-num_gpus")
    calculator.keyboard.press("Control+A")
    calculator.keyboard.type("64")
    calculator.focus("#calc-stage")
    calculator.keyboard.press("End")  # the last choice: ZeRO-3 / FSDP
    calculator.wait_for_function("location.hash.includes('zero=zero3')")  # the address follows
    config = calculator.evaluate("window.cs336Calculator.fromHash(location.hash)")
    assert config["num_gpus"] == 64 and config["stage"] == "zero3", config
    assert "gpus=64" in calculator.url and "zero=zero3" in calculator.url
    shown = calculator.locator(".cs336-calc-results").inner_text()
    assert f"{calculate(config)['parameters']['total']:,}" in shown


@pytest.mark.parametrize("lang", list(EDITIONS))
def test_a_deep_link_opens_its_configuration_in_both_editions(browser, site, built_book, lang):  # noqa: F811
    link = "#model=llama2-7b&seq=4096&batch=1&gpus=64&zero=zero3&prec=mixed_bf16_fp32_grads"
    page, problems = _open(browser, f"{site}/{lang}/{PAGE}{link}")
    page.wait_for_function("window.cs336Calculator && window.cs336Calculator.ready !== null")
    form = page.evaluate("""() => Object.fromEntries([...window.cs336Calculator.form.elements]
        .filter(e => e.name).map(e => [e.name, e.type === 'checkbox' ? e.checked : e.value]))""")
    assert (form["model"], form["num_gpus"], form["stage"], form["d_model"]) == ("llama2-7b", "64", "zero3", "4096")
    config = {"model": "llama2-7b", "seq_len": 4096, "micro_batch": 1, "num_gpus": 64, "stage": "zero3",
              "precision": "mixed_bf16_fp32_grads"}
    assert page.evaluate("window.cs336Calculator.fromHash(location.hash)") == config
    assert not mismatches(calculate(config), page.evaluate(EVALUATE, [config])[0])
    assert "6,738,415,616" in page.locator(".cs336-calc-results").inner_text()
    legend = page.locator(".cs336-calc-form legend").first.inner_text()
    assert legend == ("模型" if lang == "zh" else "Model")
    shots = built_book.parent / "screenshots"
    shots.mkdir(exist_ok=True)
    page.screenshot(path=str(shots / f"calculator-{lang}.png"), full_page=True)
    assert not problems, problems
    page.close()


def test_defaults_are_the_python_defaults(calculator):
    assert calculator.evaluate("window.cs336Calculator.DATA.defaults") == json.loads(json.dumps(DEFAULTS))


# Every control whose right edge passes its card's, every select whose chosen text is wider than the box
# shows it, every table header in which a Latin word is wider than its cell (so it breaks inside the word).
LAYOUT = """() => {
  const canvas = document.createElement("canvas").getContext("2d");
  const width = (el, text) => {
    const s = getComputedStyle(el);
    canvas.font = `${s.fontWeight} ${s.fontSize} ${s.fontFamily}`;
    return canvas.measureText(text).width;
  };
  const inner = (el) => {
    const s = getComputedStyle(el);
    return el.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
  };
  const contentRight = (fs) => {  // the card's content edge: inside its border and padding
    const s = getComputedStyle(fs);
    return fs.getBoundingClientRect().right - parseFloat(s.borderRightWidth) - parseFloat(s.paddingRight);
  };
  const out = [...document.querySelectorAll(".cs336-calc-form .cs336-calc-field > *")].filter(el => !el.hidden)
    .map(el => [el.id || el.htmlFor, el.getBoundingClientRect().right - contentRight(el.closest("fieldset"))])
    .filter(([, d]) => d > 0.5);
  const cut = [...document.querySelectorAll(".cs336-calc-form select")]
    .map(el => [el.id, width(el, el.selectedOptions[0].text) - (inner(el) - 20)]).filter(([, d]) => d > 0);
  const broken = [...document.querySelectorAll("#cs336-validation th, .cs336-calc-table th")]
    .flatMap(th => (th.textContent.match(/[A-Za-z0-9][A-Za-z0-9.,%]*/g) || []).map(w => [w, width(th, w) - inner(th)]))
    .filter(([, d]) => d > 0.5);
  return {out, cut, broken, page: document.documentElement.scrollWidth - window.innerWidth};
}"""


@pytest.mark.parametrize("width", [1400, 400])
@pytest.mark.parametrize("lang", list(EDITIONS))
def test_the_form_fits_its_cards_and_an_error_shows_under_its_input(browser, built_book, lang, width):  # noqa: F811
    page = browser.new_page(viewport={"width": width, "height": 900})
    problems: list[str] = []
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.goto((built_book / lang / PAGE).as_uri(), wait_until="load")  # from disk, as the README sends readers
    page.wait_for_function("() => document.getElementById('cs336-validation').dataset.ready === '1'", timeout=10_000)
    page.evaluate("document.fonts.ready")
    for gpu in ("h100-sxm", "rtx-4090", "a100-pcie-80gb"):  # the longest names of a card
        page.select_option("#calc-gpu", gpu)
        page.select_option("#calc-recompute", "selective")  # the longest choice
        layout = page.evaluate(LAYOUT)
        assert (layout["out"], layout["cut"], layout["broken"]) == ([], [], []), (gpu, layout)
    assert layout["page"] <= 2, layout  # no sideways scrolling of the page (2 px: the theme's own, issue 35)
    shots = built_book.parent / "screenshots"
    shots.mkdir(exist_ok=True)
    page.locator("#cs336-calculator").screenshot(path=str(shots / f"calculator-{lang}-{width}.png"))
    # an invalid value in a field far down the form: its error right under it, on screen; no verdict left
    page.fill("#calc-num_gpus", "0")
    page.wait_for_selector(".cs336-calc-results.cs336-calc-stale")
    page.evaluate("document.getElementById('calc-num_gpus').scrollIntoView({block: 'center'})")
    field, error = page.locator("#calc-num_gpus").bounding_box(), page.locator("#calc-num_gpus-error").bounding_box()
    assert 0 <= error["y"] - (field["y"] + field["height"]) < 24 and error["y"] + error["height"] <= 900, (field, error)
    assert page.locator("#calc-num_gpus-error").inner_text() == page.evaluate(
        "window.CS336_CALC.reason(window.CS336_CALC.readValid({num_gpus: 0}).errors.num_gpus)")
    assert page.locator(".cs336-calc-error li").count() == 0  # typed, not linked: nothing at the top of the form
    assert page.locator(VERDICT).count() == 0
    page.screenshot(path=str(shots / f"calculator-{lang}-{width}-error.png"))
    page.fill("#calc-num_gpus", "8")
    page.wait_for_function("() => !document.querySelector('.cs336-calc-results.cs336-calc-stale')")
    assert not page.locator("#calc-num_gpus-error").is_visible()
    assert page.locator(".cs336-calc-summary .cs336-calc-fits, .cs336-calc-summary .cs336-calc-nofit").count() == 1
    assert not problems, problems
    page.close()

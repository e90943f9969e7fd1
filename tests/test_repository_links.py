"""Links to the book's repository come from one setting, ``_config.yml``'s ``repository: url:`` (issue 35
item 6): unset, the book has no Colab, repository or issue button and the Colab copies' install line says
how to install the package by hand; set, every one of them points to it."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
import yaml

from cs336_lec2.publish.book import EDITIONS, _edition_config, toc_files
from cs336_lec2.publish.pages import edition_links, install_line, repository_url

ROOT = Path(__file__).resolve().parent.parent
FORK = "https://github.com/my-org/my-fork"
# Every address a page could use to reach a repository host or launch a notebook there.
REPOSITORY_LINK = re.compile(r'href="(https?://(?:github\.com|gitlab\.com|colab\.research\.google\.com|'
                             r'mybinder\.org)[^"]*)"')
BUTTONS = ("btn-launch-colab", "btn-source-repository-button", "btn-source-issues-button")


def _config(url: object) -> dict:
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    config["repository"]["url"] = url
    return config


def test_the_committed_config_sets_no_repository():
    """The book's own repository is not public (issue 35.6): nothing may link to a guess of it."""
    assert repository_url(yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))) is None


@pytest.mark.parametrize("url", ["", "  ", None])
def test_without_a_repository_the_install_line_says_how_to_install(url):
    for lang in EDITIONS:
        line = install_line(_config(url), lang)
        assert line.startswith("# ") and "\n" not in line, line  # a comment: running it does nothing
        assert "git clone" in line and "pip install ." in line and "cs336-lec2" in line
        assert "http" not in line and "%pip" not in line
    assert re.search(r"[\u4e00-\u9fff]", install_line(_config(url), "zh"))
    assert not re.search(r"[\u4e00-\u9fff]", install_line(_config(url), "en"))


def test_with_a_repository_the_install_line_installs_from_it():
    for lang in EDITIONS:
        assert install_line(_config(FORK + "/"), lang) == f'%pip install -q "cs336-lec2 @ git+{FORK}"'


@pytest.mark.parametrize("bad", ['https://x/" ; rm -rf ~', "github.com/org/repo", "https://x/a b", 42])
def test_a_repository_that_is_no_url_is_refused_naming_the_setting(bad):
    with pytest.raises(ValueError, match=r"^_config\.yml: repository: url: must look like"):
        install_line(_config(bad))


def test_without_a_repository_an_edition_has_no_launch_repository_or_issue_button():
    from jupyter_book.config import yaml_to_sphinx

    for lang in EDITIONS:
        config = edition_links(_config(""), lang)
        assert "repository" not in config and "launch_buttons" not in config and "colab_branch" not in config
        assert not any(config["html"][b] for b in ("use_repository_button", "use_issues_button"))
        theme = yaml_to_sphinx(config)[0]["html_theme_options"]  # Jupyter Book's own reading of it
        assert "repository_url" not in theme and "launch_buttons" not in theme
        assert theme["use_repository_button"] is False and theme["use_issues_button"] is False


def test_with_a_repository_each_edition_launches_colab_on_its_own_branch_folder():
    from jupyter_book.config import yaml_to_sphinx

    for lang in EDITIONS:
        config = edition_links(_config(FORK), lang)
        assert config["repository"] == {"url": FORK, "branch": "colab", "path_to_book": lang}
        assert "colab_branch" not in config  # Jupyter Book's config has no such key
        theme = yaml_to_sphinx(config)[0]["html_theme_options"]
        assert theme["repository_url"] == FORK and theme["launch_buttons"]["colab_url"]
        assert theme["use_repository_button"] is True and theme["use_issues_button"] is True


def test_the_edition_config_reads_the_committed_setting():
    for edition in EDITIONS.values():
        assert "repository" not in _edition_config(ROOT, edition)


def _chapter_pages(html: Path, lang: str) -> list[Path]:
    return [html / lang / f"{entry}.html" for entry in toc_files(ROOT / "_toc.yml") if entry.startswith("notebooks/")]


@pytest.mark.slow
def test_the_built_book_links_to_no_unset_repository(built_book):
    for lang in EDITIONS:
        pages = _chapter_pages(built_book, lang)
        assert len(pages) >= 14
        for page in pages:
            text = page.read_text(encoding="utf-8")
            header = text[:text.index('<article class="bd-article"')]  # the buttons live above the article
            assert not REPOSITORY_LINK.findall(header), (page, REPOSITORY_LINK.findall(header))
            assert not [b for b in BUTTONS if b in text], page
            assert "colab.research.google.com" not in text and "cs336-lec2/cs336-lec2" not in text, page
            copy = nbformat.read(built_book.parent / "colab" / lang / "notebooks" / f"{page.stem}.ipynb", as_version=4)
            first = next(c for c in copy.cells if c.cell_type == "code")
            assert first.source == install_line(_config(""), lang), (lang, page.stem, first.source)


@pytest.mark.slow
def test_a_book_with_a_repository_set_links_its_buttons_to_it(tmp_path, small_book_repo):
    """One setting changed, every button appears and opens the edition's copy on the colab branch."""
    from cs336_lec2.publish.book import build_book

    chapter = "01_napkin_math"
    root = small_book_repo([chapter])
    config = root / "_config.yml"
    text = config.read_text(encoding="utf-8")
    assert text.count('  url: ""\n') == 1
    config.write_text(text.replace('  url: ""\n', f"  url: {FORK}\n"), encoding="utf-8")
    html = build_book(root, build_dir=tmp_path / "build", strict=True)
    for lang in EDITIONS:
        page = (html / lang / "notebooks" / f"{chapter}.html").read_text(encoding="utf-8")
        links = set(REPOSITORY_LINK.findall(page))
        colab = f"https://colab.research.google.com/github/my-org/my-fork/blob/colab/{lang}/notebooks/{chapter}.ipynb"
        assert colab in links, links
        copy = nbformat.read(tmp_path / "build" / "colab" / lang / "notebooks" / f"{chapter}.ipynb", as_version=4)
        first = next(c for c in copy.cells if c.cell_type == "code")  # what the button opens installs from the fork
        assert first.source == f'%pip install -q "cs336-lec2 @ git+{FORK}"', first.source
        assert FORK in links and any(link.startswith(f"{FORK}/issues/new?") for link in links), links
        assert all(link.startswith((FORK, "https://colab.research.google.com/github/my-org/my-fork/"))
                   for link in links), links

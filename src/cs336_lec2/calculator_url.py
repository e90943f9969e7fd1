"""The calculator page's address, read as the page reads it: one grammar, the same answers in Python and JavaScript.

``calculator.html#model=llama2-7b&gpus=64&zero=zero3`` holds a configuration: the short names of
:data:`~cs336_lec2.calculator.URL_KEYS`, each once, with values written strictly
(:data:`~cs336_lec2.calculator.URL_GRAMMAR`):

* whole numbers (``gpus``, ``layers``, ``hs`` the head size, ...) in decimal digits only, at most 15 of them: ``0x40``,
  ``1e3``, ``1.5``, ``-8`` and an empty value are errors, not numbers;
* ``tokens`` in decimal, optionally with a decimal exponent (``2e12``, ``1.5e13``), and whole;
* ``mfu`` a decimal fraction (``0.4``, ``.5``, ``1``), no exponent;
* booleans ``1``, ``0``, ``true`` or ``false``: ``gated=yes``, ``tied=2`` and ``flash=banana`` are errors;
* names of choices (``model``, ``gpu``, ``zero``, ...) as they are, checked by
  :func:`~cs336_lec2.calculator.normalize` like every range (``gpus=0``, ``mfu=1.5``, HFU above 1).

:func:`read_url` is what the page does with an address: it keeps every valid field, drops each bad one
(its default applies) and returns the errors by field, so a bad value never silently shows another
model. ``book/_static/calculator/url.js`` repeats it from the same grammar
(:data:`~cs336_lec2.calculator.URL_GRAMMAR`, in data.js), and ``tests/test_calculator_node.py`` checks
that both give the same configuration and the same bad fields on every link of issue 29 item 16 and
hundreds of broken ones, and that an address :func:`url_of` writes reads back in JavaScript and back.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction
from typing import Any
from urllib.parse import quote, unquote

from .calculator import FIELDS, LINKED, URL_GRAMMAR, URL_KEYS, normalize
from .checks import beartype_on_first_call

WHOLE = re.compile(URL_GRAMMAR["int"])
TOKENS = re.compile(URL_GRAMMAR["tokens"])
FRACTION = re.compile(URL_GRAMMAR["real"])
BOOLEANS = URL_GRAMMAR["booleans"]
NAMES = {short: key for key, short in URL_KEYS.items()}
SAFE = "-_.!~*'()"  # what JavaScript's encodeURIComponent leaves as it is


def _value(key: str, raw: str) -> Any:
    """``raw`` as the value of ``key``; ``ValueError`` when it is not written as that kind of value."""
    kind = FIELDS[key].kind
    if kind == "bool":
        if raw not in BOOLEANS:
            raise ValueError(f"{key} must be 1, 0, true or false, got {raw!r}")
        return BOOLEANS[raw]
    if kind == "tokens":
        match = TOKENS.fullmatch(raw)
        if not match:
            raise ValueError(f"tokens must be a whole number in decimal (2e12 allowed), got {raw!r}")
        whole, decimals, exponent = match.groups()
        value = Fraction(int(whole + (decimals or "")), 10 ** len(decimals or "")) * 10 ** int(exponent or 0)
        if value.denominator != 1:
            raise ValueError(f"tokens must be a whole number, got {raw!r}")
        return int(value)
    if kind == "int":
        if not WHOLE.fullmatch(raw):
            raise ValueError(f"{key} must be a whole number in decimal digits, got {raw!r}")
        return int(raw)
    if kind == "real":
        if not FRACTION.fullmatch(raw):
            raise ValueError(f"{key} must be a decimal number such as 0.4, got {raw!r}")
        return float(raw)
    return raw


def parse_url(fragment: str) -> tuple[dict[str, Any], dict[str, str]]:
    """The fields a fragment (``"#model=llama2-7b&gpus=64"``) writes correctly, and the errors by field.

    An error's key is the config key (``num_gpus``), or the name as written when it is no input at all.
    Ranges and the rules between fields are :func:`~cs336_lec2.calculator.normalize`'s (see :func:`read_url`).
    """
    if not isinstance(fragment, str):
        raise TypeError(f"fragment must be a str, got {type(fragment).__name__}")
    config: dict[str, Any] = {}
    errors: dict[str, str] = {}
    seen: set[str] = set()
    for pair in filter(None, fragment.removeprefix("#").split("&")):
        name, _, raw = pair.partition("=")
        name, raw = unquote(name), unquote(raw)
        key = NAMES.get(name)
        if key is None:
            errors[name] = f"{name!r} is not an input of the calculator; known: {sorted(NAMES)}"
            continue
        if key in seen:
            errors[key] = f"{name} is given twice"
            config.pop(key, None)
            continue
        seen.add(key)
        try:
            config[key] = _value(key, raw)
        except ValueError as err:
            errors[key] = str(err)
    return config, errors


def read_url(fragment: str) -> tuple[dict[str, Any], dict[str, str]]:
    """What the page shows for an address: the normalized config of its valid fields, and every error by field.

    A field :func:`~cs336_lec2.calculator.normalize` refuses is dropped (its default applies) and
    listed, and the rest is normalized again, until all that is left is valid.
    """
    config, errors = parse_url(fragment)
    while True:
        try:
            return normalize(config), errors
        except (ValueError, TypeError) as err:
            field: str = getattr(err, "field", "")  # normalize names the field of each error it raises
            errors.setdefault(field, str(err))
            if field in config:
                del config[field]
            elif field in LINKED:  # a default broke a rule of the sizes given:
                for key in LINKED:  # drop the sizes, keep the rest
                    config.pop(key, None)
            else:
                config.clear()


def config_from_url(fragment: str) -> dict[str, Any]:
    """The config a fragment describes (only the fields it gives), or ``ValueError`` listing every bad field."""
    config, errors = parse_url(fragment)
    if not errors:
        _, errors = read_url(fragment)
    if errors:
        raise ValueError("fragment has bad inputs: " + "; ".join(errors.values()))
    return config


def url_of(config: Mapping[str, Any]) -> str:
    """The page's address of a configuration: what differs from what its model sets by itself, in short names.

    ``url_of(normalize({"model": "llama2-7b", "num_gpus": 64}))`` is ``"#model=llama2-7b&gpus=64"``;
    :func:`read_url` gives the configuration back (url.js's ``toHash`` writes the same address).
    """
    c = normalize(config)
    base = normalize({"model": c["model"]})
    parts = []
    for key, value in c.items():
        if key != "model" and value == base[key]:
            continue
        # as JavaScript's String() writes it: true -> 1, 1.0 -> 1 (an MFU is at least 0.001: no exponent)
        text = (str(int(value)) if isinstance(value, bool) else repr(value).removesuffix(".0")
                if isinstance(value, float) else str(value))
        parts.append(f"{URL_KEYS[key]}={quote(text, safe=SAFE)}")
    return "#" + "&".join(parts)


beartype_on_first_call(globals())  # beartype checks this module's calls from the first (checks.py)

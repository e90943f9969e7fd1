// The page's address, read as cs336_lec2.calculator_url reads it (one grammar, the same answers; the
// browser test compares them). An ordinary script: it adds parseHash, readHash and toHash to
// window.CS336_CALC (data.js and formulas.js come first).
(function (NS) {
"use strict";
const { ARCHITECTURE, DATA, ConfigError, normalize } = NS;
const NAMES = Object.fromEntries(Object.entries(DATA.url_keys).map(([k, v]) => [v, k]));
const WHOLE = /^[0-9]{1,15}$/;
const TOKENS = /^([0-9]{1,20})(?:\.([0-9]{1,20}))?(?:[eE]([0-9]{1,2}))?$/;
const FRACTION = /^(?:[0-9]{0,15}\.?[0-9]{1,20}|[0-9]{1,15}\.)$/;
const BOOLEANS = { 1: true, true: true, 0: false, false: false };

/** calculator_url._value: ``raw`` as the value of ``key``; a ConfigError when it is not written as one. */
function value(key, raw) {
  const kind = typeof DATA.defaults[key];
  if (kind === "boolean") {
    if (!Object.hasOwn(BOOLEANS, raw)) throw new ConfigError(key, "bool");
    return BOOLEANS[raw];
  }
  if (key === "tokens") {
    const m = TOKENS.exec(raw);
    if (!m) throw new ConfigError(key, "tokensSyntax");
    const [, whole, decimals = "", exponent = "0"] = m;
    const num = BigInt(whole + decimals) * 10n ** BigInt(exponent), den = 10n ** BigInt(decimals.length);
    if (num % den) throw new ConfigError(key, "tokensSyntax");
    const n = num / den;
    return n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;  // normalize refuses it then, as Python does
  }
  if (key === "mfu") {  // the one float input
    if (!FRACTION.test(raw)) throw new ConfigError(key, "decimal");
    return Number(raw);
  }
  if (kind === "number" || key === "head_size") {  // head_size's default is null (d / H)
    if (!WHOLE.test(raw)) throw new ConfigError(key, "digits");
    return Number(raw);
  }
  return raw;
}

function decode(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;  // a lone "%": Python's unquote keeps it as it is
  }
}

/** calculator_url.parse_url: the fields written correctly, and a ConfigError per bad field. */
function parseHash(hash) {
  const config = {}, errors = {}, seen = new Set();
  for (const pair of hash.replace(/^#/, "").split("&")) {
    if (!pair) continue;
    const at = pair.indexOf("=");
    const name = decode(at < 0 ? pair : pair.slice(0, at)), raw = at < 0 ? "" : decode(pair.slice(at + 1));
    const key = NAMES[name];
    if (key === undefined) {
      errors[name] = new ConfigError(name, "unknown");
      continue;
    }
    if (seen.has(key)) {
      errors[key] = new ConfigError(key, "twice");
      delete config[key];
      continue;
    }
    seen.add(key);
    try {
      config[key] = value(key, raw);
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      errors[key] = e;
    }
  }
  return { config, errors };
}

/** calculator_url.read_url, for a parsed or a typed config: the normalized valid fields, every error by field. */
function readValid(config, errors = {}) {
  const kept = { ...config };
  for (;;) {
    try {
      return { config: normalize(kept), errors };
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      if (!(e.field in errors)) errors[e.field] = e;
      if (e.field in kept) delete kept[e.field];
      else if (ARCHITECTURE.includes(e.field) || e.field === "seq_len") {  // a default broke a rule of the sizes
        for (const key of [...ARCHITECTURE, "seq_len"]) delete kept[key];  // given: drop them, keep the rest
      } else for (const key of Object.keys(kept)) delete kept[key];
    }
  }
}

function readHash(hash) {
  const { config, errors } = parseHash(hash);
  return readValid(config, errors);
}

/** The address of a normalized config: only what differs from what its model sets by itself. */
function toHash(c) {
  const base = normalize({ model: c.model });
  const parts = [];
  for (const [key, v] of Object.entries(c)) {
    if (key !== "model" && v === base[key]) continue;
    parts.push(`${DATA.url_keys[key]}=${encodeURIComponent(typeof v === "boolean" ? Number(v) : v)}`);
  }
  return `#${parts.join("&")}`;
}

Object.assign(NS, { parseHash, readValid, readHash, toHash });
})(window.CS336_CALC = window.CS336_CALC || {});

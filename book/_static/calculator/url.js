// The page's address, read as cs336_lec2.calculator_url reads it (one grammar, the same answers;
// tests/test_calculator_node.py compares them both ways). The short names, each input's kind and the
// patterns of its values come from data.js (DATA.schema). An ordinary script: it adds parseHash,
// readValid, readHash and toHash to window.CS336_CALC (data.js and formulas.js come first).
(function (NS) {
"use strict";
const { DATA, FIELDS, ConfigError, normalize } = NS;
const SCHEMA = DATA.schema;
const NAMES = Object.fromEntries(SCHEMA.fields.map((f) => [f.url, f.key]));
const whole = (pattern) => new RegExp(`^(?:${pattern})$`);  // Python's re.fullmatch
const WHOLE = whole(SCHEMA.url.int), TOKENS = whole(SCHEMA.url.tokens), FRACTION = whole(SCHEMA.url.real);
const BOOLEANS = SCHEMA.url.booleans;

/** calculator_url._value: ``raw`` as the value of ``key``; a ConfigError when it is not written as one. */
function value(key, raw) {
  const kind = FIELDS[key].kind;
  if (kind === "bool") {
    if (!Object.hasOwn(BOOLEANS, raw)) throw new ConfigError(key, "bool");
    return BOOLEANS[raw];
  }
  if (kind === "tokens") {
    const m = TOKENS.exec(raw);
    if (!m) throw new ConfigError(key, "tokensSyntax");
    const [, digits, decimals = "", exponent = "0"] = m;
    const num = BigInt(digits + decimals) * 10n ** BigInt(exponent), den = 10n ** BigInt(decimals.length);
    if (num % den) throw new ConfigError(key, "tokensSyntax");
    const n = num / den;
    return n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : n;  // normalize refuses it then, as Python does
  }
  if (kind === "real") {
    if (!FRACTION.test(raw)) throw new ConfigError(key, "decimal");
    return Number(raw);
  }
  if (kind === "int") {
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
  const config = {}, errors = Object.create(null), seen = new Set();  // "__proto__" can be a bad name too
  for (const pair of hash.replace(/^#/, "").split("&")) {
    if (!pair) continue;
    const at = pair.indexOf("=");
    const name = decode(at < 0 ? pair : pair.slice(0, at)), raw = at < 0 ? "" : decode(pair.slice(at + 1));
    const key = Object.hasOwn(NAMES, name) ? NAMES[name] : undefined;
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
function readValid(config, errors = Object.create(null)) {
  const kept = { ...config };
  for (;;) {
    try {
      return { config: normalize(kept), errors };
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      if (!(e.field in errors)) errors[e.field] = e;
      if (e.field in kept) delete kept[e.field];
      else if (SCHEMA.linked.includes(e.field)) {  // a default broke a rule of the sizes given:
        for (const key of SCHEMA.linked) delete kept[key];  // drop them, keep the rest
      } else for (const key of Object.keys(kept)) delete kept[key];
    }
  }
}

function readHash(hash) {
  const { config, errors } = parseHash(hash);
  return readValid(config, errors);
}

/** calculator_url.url_of: the address of a config, only what differs from what its model sets by itself. */
function toHash(config) {
  const c = normalize(config), base = normalize({ model: c.model });
  const parts = [];
  for (const [key, v] of Object.entries(c)) {
    if (key !== "model" && v === base[key]) continue;
    parts.push(`${FIELDS[key].url}=${encodeURIComponent(typeof v === "boolean" ? Number(v) : v)}`);
  }
  return `#${parts.join("&")}`;
}

Object.assign(NS, { parseHash, readValid, readHash, toHash });
})(window.CS336_CALC = window.CS336_CALC || {});

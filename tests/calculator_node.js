// The calculator's JavaScript in Node, for tests/test_calculator_node.py: no book build, no browser.
// Loads data.js, formulas.js and url.js as the page does (ordinary scripts sharing window.CS336_CALC),
// reads one JSON request on stdin and writes one JSON answer on stdout:
//   {"patch": "<JS run first, with NS in scope>", "calculate": [config], "readHash": [fragment], "toHash": [config]}
// Results hold BigInts as {"int": "<decimal>"} (serialize); a refused input as {"error": {field, code, params}}.
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

const dir = path.join(__dirname, "..", "book", "_static", "calculator");
globalThis.window = globalThis;
for (const name of ["data.js", "formulas.js", "url.js"]) {
  vm.runInThisContext(fs.readFileSync(path.join(dir, name), "utf8"), { filename: name });
}
const NS = window.CS336_CALC;

function attempt(run) {
  try {
    return NS.serialize(run());
  } catch (e) {
    if (!(e instanceof NS.ConfigError)) throw e;
    return { error: { field: e.field, code: e.code, params: e.params } };
  }
}

const request = JSON.parse(fs.readFileSync(0, "utf8"));
if (request.patch) new Function("NS", request.patch)(NS);
const answer = {
  calculate: (request.calculate || []).map((c) => attempt(() => NS.calculate(c))),
  readHash: (request.readHash || []).map((h) => {
    const r = NS.readHash(h);
    return { config: r.config, errors: Object.keys(r.errors) };
  }),
  toHash: (request.toHash || []).map((c) => attempt(() => NS.toHash(c))),
};
process.stdout.write(JSON.stringify(answer));

// A minimal code-context engine over workbench's JSON protocol (`cmd:node grep_engine.js`).
//
// It answers the `capabilities` handshake and `context_pack`, by grep: every word of the query
// (three letters or more, common words left out) is counted in each text file of each repository
// and in its path, and the files with the highest counts are returned, best first. Anything else
// is answered `unsupported capability`, so workbench skips those suites. Node's standard library only.
"use strict";

const fs = require("fs");
const path = require("path");
const readline = require("readline");

const STOP = new Set(["the", "and", "for", "with", "from", "that", "this", "when", "into", "not", "are", "use", "add", "fix"]);
const SKIP_DIRS = new Set([".git", "node_modules", "__pycache__", ".venv", "dist", "build", "vendor"]);
const MAX_BYTES = 512 * 1024;

function words(query) {
  const found = query.replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase().match(/[a-z0-9]+/g) || [];
  return [...new Set(found.filter((w) => w.length >= 3 && !STOP.has(w)))];
}

function files(root, rel = "") {
  const out = [];
  const entries = fs.readdirSync(path.join(root, rel), { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) out.push(...files(root, child));
    } else if (entry.isFile()) {
      out.push(child);
    }
  }
  return out;
}

function count(text, term) {
  let n = 0;
  for (let at = text.indexOf(term); at !== -1; at = text.indexOf(term, at + term.length)) n += 1;
  return n;
}

function score(root, rel, terms) {
  let data;
  try {
    const fd = fs.openSync(path.join(root, rel), "r");
    const buffer = Buffer.alloc(MAX_BYTES);
    const read = fs.readSync(fd, buffer, 0, MAX_BYTES, 0);
    fs.closeSync(fd);
    data = buffer.subarray(0, read);
  } catch (error) {
    return 0;
  }
  if (data.includes(0)) return 0;
  const text = data.toString("utf8").toLowerCase();
  const lowered = rel.toLowerCase();
  return terms.reduce((sum, t) => sum + count(text, t) + 3 * count(lowered, t), 0);
}

function contextPack(request) {
  const terms = words(request.query || "");
  const ranked = [];
  for (const repo of request.repos || []) {
    for (const rel of files(repo.path)) {
      const hits = score(repo.path, rel, terms);
      if (hits) ranked.push([-hits, repo.name, rel]);
    }
  }
  ranked.sort((a, b) => a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) || (a[2] < b[2] ? -1 : a[2] > b[2] ? 1 : 0));
  const limit = Number(request.limit || 8);
  return { primary: ranked.slice(0, limit).map(([, repo, p]) => ({ repo, path: p })), related: [] };
}

function answer(request) {
  if (request.capability === "capabilities") {
    return { capabilities: ["context_pack"], name: "grep-engine-js", version: "0.1" };
  }
  if (request.capability === "context_pack") return contextPack(request);
  return { error: `unsupported capability: ${request.capability}` };
}

const lines = readline.createInterface({ input: process.stdin });
lines.on("line", (line) => {
  if (!line.trim()) return;
  const request = JSON.parse(line);
  const body = answer(request);
  body.id = request.id;
  process.stdout.write(JSON.stringify(body) + "\n");
});

// The engine's own accuracy harness, written from the solumbe/otito EVALS rules:
// precision@k over files returned (capped at k), recall@k, MRR within k, fallback cases excluded.
// Usage: node harness.js path/to/corpus.json  -> prints the seed's "Retrieval:" line.
'use strict';
const fs = require('fs');
const path = require('path');
const { contextPack } = require('./engine');

const corpusPath = path.resolve(process.argv[2]);
const corpus = JSON.parse(fs.readFileSync(corpusPath, 'utf8'));
const k = corpus.k || 5;
const corpusDir = path.dirname(corpusPath);

function fixtureDir(name) {
  const entry = (corpus.fixtureRoots || {})[name] || `fixtures/${name}`;
  for (const base of [corpusDir, path.dirname(corpusDir)]) {
    const candidate = path.resolve(base, entry);
    if (fs.existsSync(candidate)) return candidate;
  }
  throw new Error(`fixture ${name} not found`);
}

let p = 0, r = 0, rr = 0, scored = 0, passed = 0;
for (const c of corpus.retrieval || []) {
  const names = c.repoFixtures || [c.repoFixture];
  const multi = names.length > 1;
  const pack = contextPack(c.query, names.map((name) => ({ name, path: fixtureDir(name) })), 8);
  const id = (f) => (multi ? `${f.repo}/${f.path}` : f.path);
  const primary = [...new Set(pack.primary.map(id))];
  const all = new Set([...primary, ...pack.related.map(id)]);
  const top = primary.slice(0, k);
  const expected = c.expectedPrimary;
  const anyOk = !c.expectedAnyOf || c.expectedAnyOf.some((f) => all.has(f));
  if (expected.length === 0) { if (all.size > 0 && anyOk) passed += 1; continue; }
  const hits = top.filter((f) => expected.includes(f)).length;
  p += top.length ? hits / top.length : 0;
  r += hits / expected.length;
  const first = top.findIndex((f) => expected.includes(f));
  rr += first >= 0 ? 1 / (first + 1) : 0;
  scored += 1;
  if (expected.every((f) => top.includes(f)) && anyOk) passed += 1;
}
const fmt = (x) => String(Math.round(x * 1000) / 1000);
console.log(`Retrieval: p@${k}=${fmt(p / scored)}, r@${k}=${fmt(r / scored)}, mrr=${fmt(rr / scored)} (${passed}/${(corpus.retrieval || []).length} cases pass)`);

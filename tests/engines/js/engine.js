// A small lexical context engine in JavaScript, standing in for a solumbe/otito-style tool.
// `node engine.js` speaks workbench's JSON-lines protocol; `require('./engine').contextPack`
// is what its own harness (harness.js) calls, so both score exactly the same packs.
'use strict';
const fs = require('fs');
const path = require('path');
const readline = require('readline');

const SKIP = new Set(['.git', 'node_modules', 'dist', 'build', 'vendor', '__pycache__']);

function listFiles(root, rel = '') {
  const out = [];
  for (const entry of fs.readdirSync(path.join(root, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const child = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) { if (!SKIP.has(entry.name)) out.push(...listFiles(root, child)); }
    else if (entry.isFile()) out.push(child);
  }
  return out;
}

function words(text) {
  return (text.match(/[A-Za-z][a-z0-9]*|[A-Z]+(?![a-z])/g) || []).map((w) => w.toLowerCase()).filter((w) => w.length > 2);
}

function contextPack(query, repos, limit) {
  const terms = new Set(words(query));
  const scored = [];
  for (const repo of repos) {
    for (const file of listFiles(repo.path)) {
      const pathWords = words(file);
      const body = words(fs.readFileSync(path.join(repo.path, file), 'utf8'));
      let score = 0;
      for (const w of pathWords) if (terms.has(w)) score += 3;
      for (const w of body) if (terms.has(w)) score += 1;
      if (score > 0) scored.push({ repo: repo.name, path: file, score });
    }
  }
  scored.sort((a, b) => b.score - a.score || (a.repo + a.path < b.repo + b.path ? -1 : 1));
  const primary = scored.slice(0, Math.min(3, limit)).map(({ repo, path: p }) => ({ repo, path: p }));
  const related = scored.slice(3, limit).map(({ repo, path: p }) => ({ repo, path: p }));
  return { primary, related };
}

module.exports = { contextPack };

if (require.main === module) {
  const rl = readline.createInterface({ input: process.stdin });
  rl.on('line', (line) => {
    const request = JSON.parse(line);
    if (request.capability !== 'context_pack') {
      process.stdout.write(JSON.stringify({ error: `unsupported capability ${request.capability}` }) + '\n');
      return;
    }
    process.stdout.write(JSON.stringify(contextPack(request.query, request.repos, request.limit)) + '\n');
  });
}

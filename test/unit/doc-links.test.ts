/**
 * The README is the newcomer's map: every relative link in it and in docs/
 * must lead somewhere (the file exists, and a `#fragment` names a heading of
 * that file as GitHub spells its anchors), and the README links in one click
 * to each thing a new user looks for first. A renamed heading or a moved
 * file fails here instead of in front of a reader.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

const root = process.cwd();

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
}

function anchorsIn(file: string): Set<string> {
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.startsWith('```')) fenced = !fenced;
    const m = !fenced && /^#{1,6}\s+(.*)$/.exec(line);
    if (!m) continue;
    let a = anchorOf(m[1]);
    for (let n = 1; anchors.has(a); n++) a = `${anchorOf(m[1])}-${n}`;
    anchors.add(a);
  }
  return anchors;
}

/** Relative link targets of a markdown file (outside code blocks and spans). */
function linksIn(file: string): string[] {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((t) => !/^[a-z]+:/i.test(t));
}

function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  for (const target of linksIn(file)) {
    const [rel, fragment] = target.split('#');
    const dest = rel ? path.resolve(path.dirname(file), rel) : file;
    if (!existsSync(dest)) { broken.push(`${target}: no such file`); continue; }
    if (fragment && statSync(dest).isFile() && dest.endsWith('.md') && !anchorsIn(dest).has(fragment)) broken.push(`${target}: no such heading`);
  }
  return broken;
}

test('every relative link in README.md and docs/ leads to a file and heading that exist', () => {
  const files = ['README.md', ...readdirSync('docs').filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
  const broken = files.flatMap((f) => brokenLinks(path.join(root, f)).map((b) => `${f}: ${b}`));
  assert.deepEqual(broken, []);
});

test('README.md stays short and links, in one click, to what a new user looks for first', () => {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  assert.ok(readme.split('\n').length < 200, 'README.md is under 200 lines');
  const targets = new Set(linksIn(path.join(root, 'README.md')).map((t) => t.split('#')[0]));
  for (const doc of ['docs/getting-started.md', 'docs/real-nodes.md', 'docs/kubeadm.md', 'docs/storage.md', 'docs/dashboard.md', 'docs/known-gaps.md', 'docs/contributing.md']) {
    assert.ok(targets.has(doc), `README links to ${doc}`);
  }
});

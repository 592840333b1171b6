/**
 * Every manifest in the shared seed notes must pass validation after defaulting,
 * as it does against a real 1.32 apiserver. The notes mix prose and YAML; a
 * document starts at a top-level `apiVersion:` line and runs while lines are
 * blank, indented, list items or top-level keys.
 */
import { strict as assert } from 'node:assert';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { applyDefaults } from '../../src/api/defaults/index.js';
import { fieldErrorMessage } from '../../src/api/field-errors.js';
import { findByKind } from '../../src/api/resources.js';
import { validateCreate } from '../../src/api/validation/index.js';

const seedsDir = join(dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/seeds');

function extractDocs(text: string): string[] {
  const docs: string[] = [];
  let current: string[] | undefined;
  const close = () => { if (current) docs.push(current.join('\n')); current = undefined; };
  for (const line of text.split(/\r?\n/)) {
    if (/^apiVersion:\s*\S/.test(line)) {
      close();
      current = [line];
    } else if (current && line.trim() === '---') {
      close();
    } else if (current && line.trim() === '') {
      current.push('');
    } else if (current && (/^[ \t-]/.test(line) || /^[A-Za-z][A-Za-z0-9]*:( |$)/.test(line))) {
      current.push(line);
    } else {
      close();
    }
  }
  close();
  return docs;
}

const seedFiles = readdirSync(seedsDir).filter((f) => f.endsWith('.txt')).sort();

test('the seed notes contain manifests', () => {
  const total = seedFiles.reduce((n, f) => n + extractDocs(readFileSync(join(seedsDir, f), 'utf8')).length, 0);
  assert.ok(total >= 5, `only ${total} manifests found`);
});

for (const file of seedFiles) {
  extractDocs(readFileSync(join(seedsDir, file), 'utf8')).forEach((doc, i) => {
    const obj = parse(doc);
    test(`${file} #${i} ${obj.kind}/${obj.metadata?.name} is valid after defaulting`, () => {
      const info = findByKind(obj.apiVersion, obj.kind);
      assert.ok(info, `${obj.apiVersion} ${obj.kind} is not served`);
      if (info.namespaced) obj.metadata.namespace ??= 'default';
      const key = `${obj.apiVersion}/${obj.kind}`;
      applyDefaults(key, obj);
      const errs = validateCreate(key, obj).map(fieldErrorMessage);
      assert.deepEqual(errs, []);
    });
  });
}

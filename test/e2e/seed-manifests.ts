/**
 * Pulls the Kubernetes manifests out of the seed notes (prose in Korean with
 * YAML blocks): a manifest starts at an `apiVersion:` line and runs while
 * lines are indented, blank, comments, or top-level YAML keys.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

const topLevelKey = /^(apiVersion|kind|metadata|spec|data|stringData|type|status|items):/;

export function extractManifests(text: string): string[] {
  const out: string[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (!/^apiVersion:\s*\S/.test(lines[i])) continue;
    const doc: string[] = [];
    let j = i;
    for (; j < lines.length; j++) {
      const l = lines[j];
      if (j > i && /^apiVersion:/.test(l)) break;
      if (l === '---') break;
      if (l.trim() === '' || /^\s/.test(l) || l.startsWith('#') || topLevelKey.test(l)) { doc.push(l); continue; }
      break;
    }
    while (doc.length && (doc[doc.length - 1].trim() === '' || /^\s*#/.test(doc[doc.length - 1]))) doc.pop();
    const yamlText = doc.join('\n') + '\n';
    const obj = parse(yamlText);
    if (obj?.kind && obj?.metadata?.name) out.push(yamlText);
    i = j - 1;
  }
  return out;
}

export function seedManifests(dir: string): { file: string; yaml: string; obj: any }[] {
  const res: { file: string; yaml: string; obj: any }[] = [];
  for (const f of readdirSync(dir).sort()) {
    for (const y of extractManifests(readFileSync(join(dir, f), 'utf8'))) res.push({ file: f, yaml: y, obj: parse(y) });
  }
  return res;
}

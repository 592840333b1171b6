// V8 keeps a script's source in the heap for as long as the script lives (its lazy functions compile
// from it), as one byte per character when every character is Latin-1 and two otherwise. esbuild
// escapes what it writes in string literals, but not the comments it keeps nor regular expression
// literals, so one `→` in a comment doubled main.cjs's 3.6 MB in the serving heap (bench/startup.ts,
// idle RSS). Every character past ASCII becomes its \u escape, which means the same thing in a
// string, a template's cooked value, a regular expression (with or without the u flag: a pair of
// surrogate escapes is one code point there) and an identifier, and is only text in a comment.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** `text` with every UTF-16 code unit past 0x7f written as a \u escape. */
export function asciiOnly(text) {
  return text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** Rewrites the .js files of `dir` that hold a character past ASCII. */
export function asciiOnlyFiles(dir) {
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.js')) continue;
    const file = join(dir, name);
    const text = readFileSync(file, 'utf8');
    if (/[^\x00-\x7f]/.test(text)) writeFileSync(file, asciiOnly(text));
  }
}

/**
 * Schema `pattern`s as upstream runs them: Go's regexp, which is RE2 (linear
 * time in the input, no backreferences or lookarounds). JavaScript's RegExp
 * backtracks (`^(a+)+$` on 'a'×27+'!' takes seconds and doubles per 'a'), so
 * patterns go through @bufbuild/re2, the RE2/J port @bufbuild/cel already
 * uses for CEL's matches(). Its syntax errors are Go's words
 * (`error parsing regexp: invalid or unsupported Perl syntax: ...`).
 */
import { RE2JS } from '@bufbuild/re2';

type Compiled = { re?: RE2JS; error?: string };
const cache = new Map<string, Compiled>();
const cacheLimit = 1000;

function compile(pattern: string): Compiled {
  let c = cache.get(pattern);
  if (!c) {
    try { c = { re: RE2JS.compile(pattern) }; } catch (e) { c = { error: (e as Error).message }; }
    // Patterns come from CRDs, a bounded set; the limit only keeps a fuzzer from growing the map.
    if (cache.size >= cacheLimit) cache.delete(cache.keys().next().value as string);
    cache.set(pattern, c);
  }
  return c;
}

/** Go's regexp.Compile error for a pattern, or undefined when it compiles. */
export const patternError = (pattern: string): string | undefined => compile(pattern).error;

/**
 * Whether `value` matches `pattern` anywhere, as go-openapi's validator calls
 * regexp.MatchString (unanchored). A pattern that does not compile matches
 * nothing, as go-openapi reports the value as not matching.
 */
export function patternMatches(pattern: string, value: string): boolean {
  const { re } = compile(pattern);
  return re ? re.test(value) : false;
}

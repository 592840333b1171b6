/**
 * Label selectors as apimachinery `pkg/labels` (v1.32) parses, matches and
 * prints them, and `metav1.LabelSelectorAsSelector` builds them.
 *
 * A requirement matches a label set when (upstream's order):
 *  1. Exists: the key is present;
 *  2. In, =, ==: the key is present and its value is one of the values;
 *  3. NotIn, !=: the key is absent, or its value is none of the values;
 *  4. DoesNotExist: the key is absent;
 *  5. Gt, Lt: the key is present and both its value and the single value are
 *     integers in that order.
 * A selector matches when all its requirements do; "everything" has none;
 * "nothing" (from a nil LabelSelector) matches no set.
 *
 * Parsing and conversion errors throw `LabelSelectorError` carrying upstream's
 * text (`unable to parse requirement: ...`); callers answer 400 with it.
 */
import { FieldError, GoValue, fieldErrorMessage, invalid, notSupported } from './field-errors.js';
import { isQualifiedName, isValidLabelValue } from './names.js';

/** selection.Operator values. */
export type Operator = 'in' | 'notin' | '=' | '==' | '!=' | 'gt' | 'lt' | 'exists' | '!';

export interface Requirement {
  readonly key: string;
  readonly operator: Operator;
  /** As given; `in`/`notin` parsed from a string come sorted and de-duplicated. */
  readonly values: readonly string[];
}

export interface Selector {
  /** Sorted by key. */
  readonly requirements: readonly Requirement[];
  /** Set only for the selector that matches nothing (a nil LabelSelector). */
  readonly nothing?: true;
}

export type Labels = Readonly<Record<string, string>>;

/** metav1.LabelSelector. */
export interface LabelSelector {
  matchLabels?: Record<string, string> | null;
  matchExpressions?: { key: string; operator: string; values?: string[] | null }[] | null;
}

export class LabelSelectorError extends Error {}

export const everything: Selector = { requirements: [] };
export const nothing: Selector = { requirements: [], nothing: true };

const binaryOperators: Operator[] = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];
const validOperators: Operator[] = [...binaryOperators, 'exists', '!'];

/** Go's `%#v` of a []string, as upstream prints bad values. */
function goStrings(v: readonly string[] | null): GoValue {
  if (v === null) return new GoValue('[]string(nil)');
  return new GoValue(`[]string{${v.map((s) => JSON.stringify(s)).join(', ')}}`);
}

/** utilerrors.Aggregate's text: one message alone, several in brackets, duplicates dropped. */
function aggregate(errs: FieldError[]): string {
  const msgs = [...new Set(errs.map(fieldErrorMessage))];
  return msgs.length === 1 ? msgs[0] : `[${msgs.join(', ')}]`;
}

const isInteger = (s: string) => /^[+-]?\d+$/.test(s);

/**
 * labels.NewRequirement: validates the key, the number of values for the
 * operator, and every value. `rawValues` null stands for a nil Go slice.
 */
export function newRequirement(key: string, operator: Operator, rawValues: readonly string[] | null): Requirement {
  const values = rawValues ?? [];
  const errs: FieldError[] = [];
  const keyErrs = isQualifiedName(key);
  if (keyErrs.length > 0) errs.push(invalid('key', key, keyErrs.join('; ')));
  switch (operator) {
    case 'in': case 'notin':
      if (values.length === 0) errs.push(invalid('values', goStrings(rawValues), "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=': case '==': case '!=':
      if (values.length !== 1) errs.push(invalid('values', goStrings(rawValues), 'exact-match compatibility requires one single value'));
      break;
    case 'exists': case '!':
      if (values.length !== 0) errs.push(invalid('values', goStrings(rawValues), 'values set must be empty for exists and does not exist'));
      break;
    case 'gt': case 'lt':
      if (values.length !== 1) errs.push(invalid('values', goStrings(rawValues), "for 'Gt', 'Lt' operators, exactly one value is required"));
      values.forEach((v, i) => {
        if (!isInteger(v)) errs.push(invalid(`values[${i}]`, v, "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
    default:
      errs.push(notSupported('operator', operator, validOperators));
  }
  values.forEach((v, i) => {
    const valueErrs = isValidLabelValue(v);
    if (valueErrs.length > 0) errs.push(invalid(`values[${i}][${key}]`, v, valueErrs.join('; ')));
  });
  if (errs.length > 0) throw new LabelSelectorError(aggregate(errs));
  return { key, operator, values: [...values] };
}

/** Selector.Add: appends and sorts by key (stable). */
function withRequirements(reqs: Requirement[]): Selector {
  return { requirements: [...reqs].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)) };
}

/** labels.SelectorFromSet: key=value for every entry; empty → everything. No validation. */
export function selectorFromSet(set: Labels | null | undefined): Selector {
  return withRequirements(Object.entries(set ?? {}).map(([key, v]) => ({ key, operator: '=', values: [v] })));
}

const labelSelectorOperators: Record<string, Operator> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!' };

/**
 * metav1.LabelSelectorAsSelector: nil → nothing, empty → everything,
 * matchLabels as `=` then matchExpressions; throws on an unknown operator
 * (`"Foo" is not a valid label selector operator`) or invalid requirement.
 */
export function selectorFromLabelSelector(ls: LabelSelector | null | undefined): Selector {
  if (ls === null || ls === undefined) return nothing;
  const labels = ls.matchLabels ?? {};
  const exprs = ls.matchExpressions ?? [];
  if (Object.keys(labels).length + exprs.length === 0) return everything;
  const reqs: Requirement[] = Object.keys(labels).sort().map((k) => newRequirement(k, '=', [labels[k]]));
  for (const e of exprs) {
    const op = Object.hasOwn(labelSelectorOperators, e.operator) ? labelSelectorOperators[e.operator] : undefined;
    if (op === undefined) throw new LabelSelectorError(`${JSON.stringify(e.operator)} is not a valid label selector operator`);
    reqs.push(newRequirement(e.key, op, e.values && e.values.length > 0 ? e.values : null));
  }
  return withRequirements(reqs);
}

/** The requirement's match rules, numbered as in the file comment. */
export function requirementMatches(r: Requirement, labels: Labels): boolean {
  const has = Object.hasOwn(labels, r.key);
  switch (r.operator) {
    case 'exists': return has; // 1
    case 'in': case '=': case '==': return has && r.values.includes(labels[r.key]); // 2
    case 'notin': case '!=': return !has || !r.values.includes(labels[r.key]); // 3
    case '!': return !has; // 4
    case 'gt': case 'lt': { // 5
      if (!has || r.values.length !== 1 || !isInteger(labels[r.key]) || !isInteger(r.values[0])) return false;
      const have = BigInt(labels[r.key]);
      const want = BigInt(r.values[0]);
      return r.operator === 'gt' ? have > want : have < want;
    }
    default: return false;
  }
}

export function matchesSelector(sel: Selector, labels: Labels | null | undefined): boolean {
  if (sel.nothing) return false;
  const ls = labels ?? {};
  return sel.requirements.every((r) => requirementMatches(r, ls));
}

/** Selector.Empty(): selects everything. The nothing selector is not empty. */
export function isEverything(sel: Selector): boolean {
  return !sel.nothing && sel.requirements.length === 0;
}

const sortedValues = (vs: readonly string[]) => [...vs].sort().join(',');

/** Requirement.String(): `a=b`, `a in (x,y)`, `!a`, `a`; multiple values sorted. */
export function requirementToString(r: Requirement): string {
  switch (r.operator) {
    case 'exists': return r.key;
    case '!': return `!${r.key}`;
    case 'in': return `${r.key} in (${sortedValues(r.values)})`;
    case 'notin': return `${r.key} notin (${sortedValues(r.values)})`;
    case 'gt': return `${r.key}>${sortedValues(r.values)}`;
    case 'lt': return `${r.key}<${sortedValues(r.values)}`;
    default: return `${r.key}${r.operator}${sortedValues(r.values)}`;
  }
}

/** Selector.String(): requirements joined by ','; everything and nothing are "". */
export function selectorToString(sel: Selector): string {
  return sel.requirements.map(requirementToString).join(',');
}

/** Selector.RequiresExactMatch: the single value an =, == or one-valued in requirement on `label` demands. */
export function requiresExactMatch(sel: Selector, label: string): string | undefined {
  const r = sel.requirements.find((x) => x.key === label);
  if (!r || !['=', '==', 'in'].includes(r.operator) || r.values.length !== 1) return undefined;
  return r.values[0];
}

// ---- the parser: upstream's lexer and recursive descent, token by token ----

type Token =
  | 'error' | 'eos' | ')' | ',' | '!' | '==' | '=' | '>' | 'identifier' | 'in' | '<' | '!=' | 'notin' | '(';

interface Item { tok: Token; lit: string }

const literalTokens: Readonly<Record<string, Token>> = {
  ')': ')', ',': ',', '!': '!', '==': '==', '=': '=', '>': '>', 'in': 'in', '<': '<', '!=': '!=', 'notin': 'notin', '(': '(',
};

const isWhitespace = (ch: string) => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
const isSpecialSymbol = (ch: string) => '=!(),><'.includes(ch) && ch !== '';

function lex(s: string): Item[] {
  const items: Item[] = [];
  let pos = 0;
  const read = () => (pos < s.length ? s[pos++] : '');
  for (;;) {
    let ch = read();
    while (ch !== '' && isWhitespace(ch)) ch = read();
    if (ch === '') {
      items.push({ tok: 'eos', lit: '' });
      return items;
    }
    pos--;
    items.push(isSpecialSymbol(ch) ? scanSpecialSymbol() : scanIDOrKeyword());
  }

  function scanIDOrKeyword(): Item {
    let lit = '';
    for (let ch = read(); ch !== ''; ch = read()) {
      if (isSpecialSymbol(ch) || isWhitespace(ch)) {
        pos--;
        break;
      }
      lit += ch;
    }
    return Object.hasOwn(literalTokens, lit) ? { tok: literalTokens[lit], lit } : { tok: 'identifier', lit };
  }

  /** The longest run of special symbols that still forms an operator. */
  function scanSpecialSymbol(): Item {
    let buffer = '';
    let last: Item | undefined;
    for (let ch = read(); ch !== ''; ch = read()) {
      if (!isSpecialSymbol(ch)) {
        pos--;
        break;
      }
      buffer += ch;
      if (Object.hasOwn(literalTokens, buffer)) last = { tok: literalTokens[buffer], lit: buffer };
      else if (last) {
        pos--;
        break;
      }
    }
    return last ?? { tok: 'error', lit: `error expected: keyword found '${buffer}'` };
  }
}

class Parser {
  private position = 0;
  constructor(private readonly items: Item[]) {}

  /** In the values context the keywords in/notin are plain identifiers. */
  private asValue(item: Item): Item {
    return item.tok === 'in' || item.tok === 'notin' ? { tok: 'identifier', lit: item.lit } : item;
  }
  lookahead(values: boolean): Item {
    const item = this.items[this.position];
    return values ? this.asValue(item) : item;
  }
  consume(values: boolean): Item {
    const item = this.items[this.position++];
    return values ? this.asValue(item) : item;
  }

  parse(): Requirement[] {
    const reqs: Requirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead(true);
      if (tok === 'eos') return reqs;
      if (tok !== 'identifier' && tok !== '!') throw new LabelSelectorError(`found '${lit}', expected: !, identifier, or 'end of string'`);
      try {
        reqs.push(this.parseRequirement());
      } catch (e) {
        throw new LabelSelectorError(`unable to parse requirement: ${(e as Error).message}`);
      }
      const next = this.consume(true);
      if (next.tok === 'eos') return reqs;
      if (next.tok !== ',') throw new LabelSelectorError(`found '${next.lit}', expected: ',' or 'end of string'`);
      const after = this.lookahead(true);
      if (after.tok !== 'identifier' && after.tok !== '!') throw new LabelSelectorError(`found '${after.lit}', expected: identifier after ','`);
    }
  }

  private parseRequirement(): Requirement {
    const [key, inferred] = this.parseKeyAndInferOperator();
    if (inferred) return newRequirement(key, inferred, []);
    const operator = this.parseOperator();
    const values = operator === 'in' || operator === 'notin' ? this.parseValues() : this.parseExactValue();
    return newRequirement(key, operator, [...values].sort());
  }

  /** The key, and `exists` / `!` when no binary operator follows. */
  private parseKeyAndInferOperator(): [string, Operator | undefined] {
    let item = this.consume(true);
    let operator: Operator | undefined;
    if (item.tok === '!') {
      operator = '!';
      item = this.consume(true);
    }
    if (item.tok !== 'identifier') throw new Error(`found '${item.lit}', expected: identifier`);
    const keyErrs = isQualifiedName(item.lit);
    if (keyErrs.length > 0) throw new Error(fieldErrorMessage(invalid('<nil>', item.lit, keyErrs.join('; '))));
    const next = this.lookahead(true).tok;
    if ((next === 'eos' || next === ',') && operator !== '!') operator = 'exists';
    return [item.lit, operator];
  }

  private parseOperator(): Operator {
    const { tok, lit } = this.consume(false);
    switch (tok) {
      case 'in': return 'in';
      case '=': return '=';
      case '==': return '==';
      case '>': return 'gt';
      case '<': return 'lt';
      case 'notin': return 'notin';
      case '!=': return '!=';
      default: throw new Error(`found '${lit}', expected: ${binaryOperators.join(', ')}`);
    }
  }

  /** `(a,b,c)`; empty members are "" and `()` is {""}. */
  private parseValues(): Set<string> {
    const open = this.consume(true);
    if (open.tok !== '(') throw new Error(`found '${open.lit}' expected: '('`);
    const { tok, lit } = this.lookahead(true);
    if (tok === ')') {
      this.consume(true);
      return new Set(['']);
    }
    if (tok !== 'identifier' && tok !== ',') throw new Error(`found '${lit}', expected: ',', ')' or identifier`);
    const s = this.parseIdentifiersList();
    if (this.consume(true).tok !== ')') throw new Error(`found '${lit}', expected: ')'`);
    return s;
  }

  private parseIdentifiersList(): Set<string> {
    const s = new Set<string>();
    for (;;) {
      const { tok, lit } = this.consume(true);
      if (tok === 'identifier') {
        s.add(lit);
        const next = this.lookahead(true);
        if (next.tok === ',') continue;
        if (next.tok === ')') return s;
        throw new Error(`found '${next.lit}', expected: ',' or ')'`);
      }
      if (tok !== ',') throw new Error(`found '${lit}', expected: ',', or identifier`);
      if (s.size === 0) s.add(''); // "(,"
      const next = this.lookahead(true).tok;
      if (next === ')') {
        s.add(''); // ",)"
        return s;
      }
      if (next === ',') {
        this.consume(true);
        s.add(''); // ",,"
      }
    }
  }

  private parseExactValue(): Set<string> {
    const next = this.lookahead(true).tok;
    if (next === 'eos' || next === ',') return new Set(['']);
    const { tok, lit } = this.consume(true);
    if (tok === 'identifier') return new Set([lit]);
    throw new Error(`found '${lit}', expected: identifier`);
  }
}

/**
 * labels.Parse: `a=b,c!=d,e in (x,y),f notin (z),g,!h` (also `==`, `>`, `<`).
 * Requirements come sorted by key; "" is everything.
 */
export function parseSelector(selector: string): Selector {
  return withRequirements(new Parser(lex(selector)).parse());
}

/**
 * A YAML request body, parsed once: one pass of the yaml package's Lexer and
 * Parser bounds the nesting depth (iteratively, stopping as soon as the limit
 * is passed: the package's Composer recurses) and feeds the same CST tokens
 * to its Composer, and a LineCounter. The value is the Document's, and the
 * Document and LineCounter are what the strict duplicate-key check reads
 * (yaml-duplicates.ts) instead of parsing the text again. The 2.6 MiB body of
 * 200,000 keys was parsed three times (depth bound, value, duplicate keys).
 *
 * The value and the errors are yaml.parse's (its parseDocument, then toJS),
 * without the process warnings it emits for a document's YAML warnings: a
 * client's body does not write to the server's stderr.
 */
import type { Document, LineCounter } from 'yaml';
import { lazyRequire } from '../util/lazy-require.js';
import { badRequest } from '../api/status.js';
import { maxNestingDepth, valueTooDeep } from '../api/nesting.js';

const yaml = lazyRequire<typeof import('yaml')>('yaml');

/** A YAML body's one document and the line counter fed by the parser that read it. */
export interface ParsedYAML { document: Document.Parsed; lineCounter: LineCounter }

/** What decoding a YAML body gives: its value, and its parsed form for the strict checks. */
export interface YAMLBody { value: unknown; parsed: ParsedYAML }

/** The options of today's (and upstream-matching) decode: duplicate keys are found by the strict check, not refused here. */
const composeOptions = { uniqueKeys: false, intAsBigInt: false } as const;

/**
 * YAML, refused past maxNestingDepth as go-yaml refuses past its own limit
 * (by the text's depth first, then the composed value's: aliases can nest
 * deeper than the text), with yaml.parse's errors in go-yaml's framing.
 */
export function decodeYAMLBody(text: string): YAMLBody {
  const tooDeep = (line?: number) => badRequest(`error converting YAML to JSON: yaml: ${line ? `line ${line}: ` : ''}exceeded max depth of ${maxNestingDepth}`);
  const read = readYAMLDocument(text);
  if ('tooDeepAt' in read) throw tooDeep(lineAt(text, read.tooDeepAt));
  const { document, lineCounter } = read;
  let value: unknown;
  try {
    if (document.errors.length > 0) throw parseError(text, document.errors[0]!);
    value = document.toJS();
  } catch (e) {
    throw badRequest(`error converting YAML to JSON: yaml: ${(e as Error).message.split('\n')[0]}`);
  }
  if (valueTooDeep(value)) throw tooDeep();
  return { value, parsed: { document, lineCounter } };
}

/**
 * The first document of the text as yaml.parseDocument composes it (a second
 * document is its MULTIPLE_DOCS error, and is not composed), or the offset
 * where the CST parser's stack first grows past what a document of
 * maxNestingDepth needs: the document, each open collection and at most two
 * more tokens (a scalar, a pending key).
 */
export function readYAMLDocument(text: string): ParsedYAML | { tooDeepAt: number } {
  const { Composer, Lexer, LineCounter, Parser, YAMLParseError } = yaml();
  const lineCounter = new LineCounter();
  const parser = new Parser(lineCounter.addNewLine);
  const composer = new Composer(composeOptions);
  let document: Document.Parsed | undefined;
  let more = false;
  const take = (docs: Iterable<Document.Parsed>) => {
    for (const doc of docs) {
      if (!document) { document = doc; continue; }
      if (!more) document.errors.push(new YAMLParseError([doc.range[0], doc.range[1]], 'MULTIPLE_DOCS', 'Source contains multiple documents; please use YAML.parseAllDocuments()'));
      more = true;
    }
  };
  lineCounter.addNewLine(0);
  for (const lexeme of new Lexer().lex(text)) {
    const offset = parser.offset;
    for (const token of parser.next(lexeme)) if (!more) take(composer.next(token));
    if (parser.stack.length > maxNestingDepth + 3) return { tooDeepAt: offset };
  }
  for (const token of parser.end()) if (!more) take(composer.next(token));
  if (!more) take(composer.end(true, text.length));
  return { document: document!, lineCounter };
}

function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i >= 0 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/**
 * The error yaml.parse throws for a text whose document has errors. Its
 * message is prettified with the text around the error (its first line,
 * which the answer quotes, ends with a colon or not by what that text is):
 * the package keeps that code to itself, so an invalid body is read by
 * yaml.parse once more for its exact words. Its depth is already bounded.
 */
function parseError(text: string, first: Error): Error {
  try {
    yaml().parse(text, composeOptions);
  } catch (e) {
    return e as Error;
  }
  return first;
}

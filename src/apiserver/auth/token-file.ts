/**
 * Static tokens, kube-apiserver's --token-auth-file: a CSV file with at least
 * three columns, `token,user,uid`, and optionally a fourth, `"group1,group2"`
 * (staticfile/tokenfile.go). A row with an empty token is skipped; a row with
 * fewer than three columns makes the file invalid; a later duplicate wins.
 */
import { readFileSync } from 'node:fs';
import type { UserInfo } from './types.js';

/**
 * CSV as Go's encoding/csv reads it with TrimLeadingSpace: quoted fields may
 * hold commas, newlines and "" for a quote; blank lines are skipped.
 */
export function parseCSV(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  let fieldStart = true;
  const endField = () => { row.push(field); field = ''; fieldStart = true; };
  const endRow = () => {
    endField();
    if (!(row.length === 1 && row[0] === '')) rows.push(row);
    row = [];
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (c === '"') quoted = false; else field += c;
    } else if (fieldStart && (c === ' ' || c === '\t')) {
      continue;
    } else if (fieldStart && c === '"') {
      quoted = true; fieldStart = false;
    } else if (c === ',') endField();
    else if (c === '\n') endRow();
    else if (c !== '\r' || text[i + 1] !== '\n') { field += c; fieldStart = false; }
  }
  if (field !== '' || row.length > 0) endRow();
  return rows;
}

export function parseTokenFile(text: string, path = 'token file'): Map<string, UserInfo> {
  const tokens = new Map<string, UserInfo>();
  for (const record of parseCSV(text)) {
    if (record.length < 3) {
      throw new Error(`token file '${path}' must have at least 3 columns (token, user name, user uid), found ${record.length}`);
    }
    const [token, name, uid, groups] = record as [string, string, string, string | undefined];
    if (token === '') continue;
    tokens.set(token, { name, uid, groups: groups === undefined ? [] : groups.split(',').filter((g) => g !== '') });
  }
  return tokens;
}

export function readTokenFile(path: string): Map<string, UserInfo> {
  return parseTokenFile(readFileSync(path, 'utf8'), path);
}

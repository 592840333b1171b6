/**
 * `token list` output exactly as kubeadm prints it: each token goes through
 * its own text/tabwriter (minwidth 10, padding 3, spaces), the header sharing
 * the first token's, with the TTL, USAGES and DESCRIPTION cells pre-padded to
 * 9, 22 and 56 characters so the separate blocks still line up.
 */
import { tokenFromIDAndSecret, type BootstrapToken } from '../../api/bootstraptoken/index.js';

export const tokenListColumns = ['TOKEN', 'TTL', 'EXPIRES', 'USAGES', 'DESCRIPTION', 'EXTRA GROUPS'];

/** apimachinery's duration.ShortHumanDuration: one unit, "<invalid>" for more than a second in the past. */
export function shortHumanDuration(ms: number): string {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.trunc(ms / 60_000);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.trunc(ms / 3_600_000);
  if (hours < 24) return `${hours}h`;
  if (hours < 24 * 365) return `${Math.trunc(hours / 24)}d`;
  return `${Math.trunc(hours / 24 / 365)}y`;
}

const width = (s: string) => [...s].length;
const padRight = (s: string, n: number) => s + ' '.repeat(Math.max(0, n - width(s)));

/**
 * Go's tabwriter over lines whose cells all end in a tab but the last: a
 * column is as wide as its widest cell plus the padding, at least minwidth.
 */
export function tabwrite(rows: string[][], minwidth = 10, padding = 3): string {
  const widths: number[] = [];
  for (const row of rows) row.slice(0, -1).forEach((c, i) => { widths[i] = Math.max(widths[i] ?? minwidth, width(c) + padding); });
  return rows.map((row) => row.map((c, i) => (i < row.length - 1 ? padRight(c, widths[i]!) : c)).join('') + '\n').join('');
}

/** formatBootstrapToken: one row's cells. */
export function tokenRow(t: BootstrapToken, now: Date): string[] {
  let ttl = '<forever>';
  let expires = '<never>';
  if (t.expires) {
    ttl = shortHumanDuration(t.expires.getTime() - now.getTime());
    expires = t.expires.toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  return [
    tokenFromIDAndSecret(t.token.id, t.token.secret),
    padRight(ttl, 9),
    expires,
    padRight(t.usages.join(',') || '<none>', 22),
    padRight(t.description || '<none>', 56),
    t.groups.join(',') || '<none>',
  ];
}

/** The whole listing; nothing at all (not even the header) when there are no tokens. */
export function formatTokenList(tokens: BootstrapToken[], now: Date): string {
  return tokens.map((t, i) => tabwrite(i === 0 ? [tokenListColumns, tokenRow(t, now)] : [tokenRow(t, now)])).join('');
}

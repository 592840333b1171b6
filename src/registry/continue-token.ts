/**
 * Continue tokens of paginated lists: the revision the first page was read at and the key
 * the next page starts from (upstream's storage.EncodeContinue carries the same two facts).
 * A page served from the watch cache hands out the same token, so the next page is read
 * from storage at that revision, as upstream's cacher does.
 */
import { badRequest } from '../api/status.js';

export function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'k8ts.1', rv, start })).toString('base64url');
}

export function decodeContinue(token: string, prefix: string): { rv: number; start: string } {
  try {
    const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
    if (t.v === 'k8ts.1' && Number.isInteger(t.rv) && typeof t.start === 'string' && t.start.startsWith(prefix)) return t;
  } catch { /* fall through */ }
  throw badRequest('continue key is not valid: invalid continue token');
}

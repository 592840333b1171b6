/** Integer query parameters of list and watch, read as upstream's parameter codec reads them. */
import { parseInt64 } from '../../api/list-options.js';
import { HandlerContext, query } from './context.js';

/** An int64 parameter (limit, timeoutSeconds): absent is undefined, anything else must parse or the request is a 400. */
export function int64Param(ctx: HandlerContext, name: string): bigint | undefined {
  const raw = query(ctx, name);
  return raw === undefined ? undefined : parseInt64(raw);
}

/** A bigint as a number, saturating at the largest exact integers (beyond them every count or duration means the same). */
export function clampToNumber(n: bigint): number {
  const max = BigInt(Number.MAX_SAFE_INTEGER);
  return Number(n > max ? max : n < -max ? -max : n);
}

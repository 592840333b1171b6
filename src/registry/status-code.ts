/**
 * The HTTP code of a Status error thrown by the store (a `StatusError` or
 * anything carrying `code`), or undefined for other errors. Callers that
 * tolerate NotFound or AlreadyExists compare it instead of reading `code`
 * off an untyped catch variable.
 */
export function statusCode(e: unknown): number | undefined {
  const code = (e as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'number' ? code : undefined;
}

/** etcd's answers that the contract gives a meaning to (mvcc's ErrCompacted and ErrFutureRev). */

export function isCompactedError(err: unknown): boolean {
  return err instanceof Error && err.message.includes('required revision has been compacted');
}

export function isFutureRevisionError(err: unknown): boolean {
  return err instanceof Error && err.message.includes('required revision is a future revision');
}

/** File-path rules for volume items, sub-paths and host paths (validateLocalDescendingPath and friends). */
import { FieldError, invalid } from '../field-errors.js';
import { appendAll } from '../append.js';

/** validatePathNoBacksteps: no `..` element. */
export function validatePathNoBacksteps(target: string, path: string): FieldError[] {
  // A path without '..' anywhere has no '..' element: no copy and split of every mount and item path.
  if (!target.includes('..')) return [];
  return target.replace(/\\/g, '/').split('/').includes('..') ? [invalid(path, target, "must not contain '..'")] : [];
}

/** validateLocalDescendingPath: relative, without `..` elements. */
export function validateLocalDescendingPath(target: string, path: string): FieldError[] {
  const errs: FieldError[] = [];
  if (target.startsWith('/')) errs.push(invalid(path, target, 'must be a relative path'));
  appendAll(errs, validatePathNoBacksteps(target, path));
  return errs;
}

/**
 * Whether validateLocalNonReservedPath (or validateLocalDescendingPath) can find anything in `target`:
 * only an absolute path or one with `..` in it. Without, a caller need not make the field's path.
 */
export const mayNotBeLocal = (target: string) => target.startsWith('/') || target.includes('..');

/** ValidateLocalNonReservedPath: also may not start with `..`. */
export function validateLocalNonReservedPath(target: string, path: string): FieldError[] {
  const errs = validateLocalDescendingPath(target, path);
  if (target.startsWith('..') && !target.startsWith('../')) errs.push(invalid(path, target, "must not start with '..'"));
  return errs;
}

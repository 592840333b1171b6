/**
 * Tolerations (ValidateTolerations) and taint effects, in upstream's order:
 *  1. a non-empty key is a qualified name;
 *  2. an empty key needs operator Exists ("match all values and all keys");
 *  3. tolerationSeconds needs effect NoExecute;
 *  4. Equal (or empty) needs a valid label value; Exists needs an empty value; other operators are unsupported;
 *  5. a non-empty effect is NoSchedule, PreferNoSchedule or NoExecute.
 */
import { FieldError, invalid, notSupported, required } from '../field-errors.js';
import { isValidLabelValue } from '../names.js';
import { validateLabelName } from './labels.js';
import { arr, child, has, index, obj, str } from './util.js';
import { appendAll } from '../append.js';

export const taintEffects = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'];

/** validateTaintEffect. */
export function validateTaintEffect(effect: string, allowEmpty: boolean, path: string): FieldError[] {
  if (!allowEmpty && effect.length === 0) return [required(path)];
  return taintEffects.includes(effect) ? [] : [notSupported(path, effect, taintEffects)];
}

export function validateTolerations(tolerations: unknown, path: string): FieldError[] {
  const errs: FieldError[] = [];
  arr(tolerations).forEach((raw, i) => {
    const t = obj(raw);
    const p = index(path, i);
    const keyName = str(t.key);
    const operator = str(t.operator);
    const value = str(t.value);
    const effect = str(t.effect);
    if (keyName.length > 0) appendAll(errs, validateLabelName(keyName, child(p, 'key')));
    if (keyName.length === 0 && operator !== 'Exists') {
      errs.push(invalid(child(p, 'operator'), operator, 'operator must be Exists when `key` is empty, which means "match all values and all keys"'));
    }
    if (has(t.tolerationSeconds) && effect !== 'NoExecute') {
      errs.push(invalid(child(p, 'effect'), effect, "effect must be 'NoExecute' when `tolerationSeconds` is set"));
    }
    if (operator === 'Equal' || operator === '') {
      const msgs = isValidLabelValue(value);
      if (msgs.length > 0) errs.push(invalid(child(p, 'operator'), value, msgs.join(';')));
    } else if (operator === 'Exists') {
      if (value.length > 0) errs.push(invalid(child(p, 'operator'), value, "value must be empty when `operator` is 'Exists'"));
    } else {
      errs.push(notSupported(child(p, 'operator'), operator, ['Equal', 'Exists']));
    }
    if (effect.length > 0) appendAll(errs, validateTaintEffect(effect, true, child(p, 'effect')));
  });
  return errs;
}

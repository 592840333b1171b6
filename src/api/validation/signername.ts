/** ValidateSignerName: `example.com/signer-name` with DNS-label domain parts and DNS-subdomain path parts. */
import { FieldError, invalid, required } from '../field-errors.js';
import { DNS1123LabelMaxLength, DNS1123SubdomainMaxLength, isDNS1123Label, isDNS1123Subdomain } from '../names.js';
import { appendAll } from '../append.js';

const tooLong = (path: string, max: number): FieldError => ({ type: 'FieldValueTooLong', field: path, detail: `may not be more than ${max} bytes` });

export function validateSignerName(path: string, signerName: string): FieldError[] {
  if (!signerName) return [required(path)];
  const segments = signerName.split('/');
  if (segments.length !== 2) return [invalid(path, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'")];
  const [domain, rest] = segments;
  const errs: FieldError[] = [];
  if (domain.length > DNS1123SubdomainMaxLength) errs.push(tooLong(path, DNS1123SubdomainMaxLength));
  const labels = domain.split('.');
  for (const lbl of labels) {
    const msgs = isDNS1123Label(lbl);
    if (msgs.length > 0) {
      appendAll(errs, msgs.map((m) => invalid(path, domain, `validating label "${lbl}": ${m}`)));
      break;
    }
  }
  if (labels.length < 2) errs.push(invalid(path, domain, 'should be a domain with at least two segments separated by dots'));
  for (const part of rest.split('.')) {
    const msgs = isDNS1123Subdomain(part);
    if (msgs.length > 0) {
      appendAll(errs, msgs.map((m) => invalid(path, rest, `validating component "${part}": ${m}`)));
      break;
    }
  }
  const max = DNS1123SubdomainMaxLength + DNS1123SubdomainMaxLength + DNS1123LabelMaxLength + 2;
  if (signerName.length > max) errs.push(tooLong(path, max));
  return errs;
}

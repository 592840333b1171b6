/**
 * The string formats upstream's CRD validation checks (kube-openapi strfmt,
 * as listed in JSONSchemaProps.format's documentation); unknown formats pass.
 */
import { isIP } from 'node:net';

const checks: Record<string, (v: string) => boolean> = {
  'int-or-string': () => true,
  byte: (v) => /^[A-Za-z0-9+/]*={0,2}$/.test(v) && v.length % 4 === 0,
  date: (v) => /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(Date.parse(v)),
  'date-time': (v) => /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(v) && !Number.isNaN(Date.parse(v.replace(' ', 'T'))),
  datetime: (v) => checks['date-time'](v),
  ipv4: (v) => isIP(v) === 4,
  ipv6: (v) => isIP(v) === 6,
  cidr: (v) => { const [ip, bits, more] = v.split('/'); return more === undefined && !!bits && /^\d+$/.test(bits) && isIP(ip) !== 0 && Number(bits) <= (isIP(ip) === 4 ? 32 : 128); },
  mac: (v) => /^([0-9A-Fa-f]{2}[:-]){5}[0-9A-Fa-f]{2}$/.test(v),
  uuid: (v) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(v),
  uuid3: (v) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(v),
  uuid4: (v) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i.test(v),
  uuid5: (v) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i.test(v),
  hostname: (v) => v.length <= 255 && /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/.test(v),
  email: (v) => /^[^@\s]+@[^@\s]+$/.test(v),
  uri: (v) => { try { return !!new URL(v); } catch { return false; } },
  bsonobjectid: (v) => /^[0-9a-fA-F]{24}$/.test(v),
  hexcolor: (v) => /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(v),
  duration: (v) => /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(v) || /^\d+\s*(ns|us|ms|s|m|h|d|w)\w*$/.test(v),
};

export function checkFormat(format: string, v: string): boolean {
  return checks[format]?.(v) ?? true;
}

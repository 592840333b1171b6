/**
 * A range of ports as kube-apiserver's --service-node-port-range takes it
 * (apimachinery util/net PortRange): `30000-32767`, `30000+2767` or a single
 * port, printed back as `base-last`.
 */
export interface PortRange {
  base: number;
  size: number;
}

export const defaultServiceNodePortRange: PortRange = { base: 30000, size: 2768 };

export const portRangeString = (r: PortRange): string => `${r.base}-${r.base + r.size - 1}`;

export const portRangeContains = (r: PortRange, port: number): boolean => port >= r.base && port < r.base + r.size;

/** strconv.Atoi: an optionally signed decimal integer. */
function atoi(s: string): number {
  if (!/^[+-]?[0-9]+$/.test(s)) throw new Error(`strconv.Atoi: parsing ${JSON.stringify(s)}: invalid syntax`);
  return Number(s);
}

/** PortRange.Set: the range, or an Error in upstream's words. */
export function parsePortRange(input: string): PortRange {
  const value = input.trim();
  // An empty flag leaves the range unset; kube-apiserver then uses the default.
  if (value === '') return defaultServiceNodePortRange;
  const hyphen = value.indexOf('-');
  const plus = value.indexOf('+');
  let low: number;
  let high: number;
  if (hyphen === -1 && plus === -1) {
    low = high = atoi(value);
  } else if (hyphen !== -1 && plus === -1) {
    low = atoi(value.slice(0, hyphen));
    high = atoi(value.slice(hyphen + 1));
  } else if (plus !== -1 && hyphen === -1) {
    low = atoi(value.slice(0, plus));
    high = low + atoi(value.slice(plus + 1));
  } else {
    throw new Error(`unable to parse port range: ${value}`);
  }
  if (low > 65535 || high > 65535) throw new Error(`the port range cannot be greater than 65535: ${value}`);
  if (high < low) throw new Error(`end port cannot be less than start port: ${value}`);
  return { base: low, size: 1 + high - low };
}

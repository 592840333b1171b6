/** Go-style durations for flags: "300ms", "50s", "5m", "1h30m", "24h". */
const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseDuration(s: string): number {
  if (s === '0') return 0;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) { total += Number(m[1]) * units[m[2]]; matched = re.lastIndex; }
  if (!s || matched !== s.length) throw new Error(`invalid duration "${s}"`);
  return total;
}

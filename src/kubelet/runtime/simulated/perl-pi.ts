/**
 * The kubernetes.io Job example's one command (`perl -Mbignum=bpi -wle
 * 'print bpi(2000)'`, "Running an example Job"), so that `kubectl logs
 * job/pi` on a simulated node prints what the page shows: π to N
 * significant digits as Math::BigFloat's bpi rounds them (half to even, its
 * default mode). No other perl is understood.
 */

/** The digit count of `perl -Mbignum=bpi -wle 'print bpi(N)'` (also -le), or undefined for any other argv. */
export function perlPiDigits(argv: string[]): number | undefined {
  if (argv.length !== 4) return undefined;
  const [perl, module, flags, script] = argv;
  if (perl.slice(perl.lastIndexOf('/') + 1) !== 'perl' || module !== '-Mbignum=bpi' || !/^-w?le$/.test(flags)) return undefined;
  const m = /^\s*print\s*\(?\s*bpi\s*\(\s*(\d{1,5})\s*\)\s*\)?\s*;?\s*$/.exec(script);
  const n = m ? Number(m[1]) : 0;
  // Past 20,000 digits the simulation would spend seconds of the node's loop on one line.
  return n >= 1 && n <= 20_000 ? n : undefined;
}

/** π scaled by 10^digits, truncated (Machin: π = 16·atan(1/5) − 4·atan(1/239)), exact to the last digit or one below it. */
function piScaled(digits: number): bigint {
  const scale = 10n ** BigInt(digits);
  const atanInv = (x: bigint) => {
    let sum = 0n;
    let term = scale / x;
    const x2 = x * x;
    for (let k = 1n, sign = 1n; term !== 0n; k += 2n, sign = -sign, term /= x2) sum += sign * (term / k);
    return sum;
  };
  return 16n * atanInv(5n) - 4n * atanInv(239n);
}

/** π to `n` significant digits, rounded half to even, as Perl's bpi(n) prints it ("3.14" for 3). */
export function piToDigits(n: number): string {
  const guard = 10;
  const scaled = piScaled(n - 1 + guard);
  const unit = 10n ** BigInt(guard);
  let kept = scaled / unit;
  const rest = scaled % unit;
  const half = unit / 2n;
  if (rest > half || (rest === half && kept % 2n === 1n)) kept += 1n;
  const text = kept.toString();
  return n === 1 ? text : `${text[0]}.${text.slice(1)}`;
}

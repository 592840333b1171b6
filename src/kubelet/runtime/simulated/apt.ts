/**
 * `apt-get` in a simulated Debian-based container (nginx, debian, ubuntu,
 * redis... every image that is not busybox or alpine), as the Get a Shell to
 * a Running Container page runs it: `apt-get update`, then `apt-get install
 * -y tcpdump lsof procps`, after which `ps aux`, `lsof` and `tcpdump` run.
 *
 * The choice: no package is downloaded (nothing outside the cluster is
 * reached), but a simulated mirror knows the few packages whose commands the
 * simulation has (procps: ps; lsof; tcpdump; curl, which the nginx image
 * already has), and installing one writes its command into the container's
 * writable layer (/usr/bin/ps ...), where the shell finds it
 * (extra-commands.ts). So, as on a real container, what is installed lasts
 * until the container restarts, and a package is found only after `apt-get
 * update` (the images ship without package lists: `E: Unable to locate
 * package procps`, exit 100). Output keeps apt's shape (its `Reading
 * package lists... Done` lines, the NEW packages, the summary, `Setting up`)
 * but lists no dependencies and no download sizes. Any other package is not
 * located, as an unknown name is.
 */
export interface AptFiles {
  readBytes(path: string): Buffer | undefined;
  listDir(path: string): string[] | undefined;
  /** Writes a file into the writable layer; an error text when it cannot. */
  writeFile?(path: string, data: Buffer | undefined): string | undefined;
}

type Out = (stream: 'stdout' | 'stderr', text: string) => void;

/** The simulated mirror: package → its version and the commands it brings. */
const packages: Record<string, { version: string; files: string[] }> = {
  procps: { version: '2:4.0.2-3', files: ['/usr/bin/ps'] },
  lsof: { version: '4.95.0-1', files: ['/usr/bin/lsof'] },
  tcpdump: { version: '4.99.3-1', files: ['/usr/bin/tcpdump'] },
  curl: { version: '7.88.1-10+deb12u8', files: ['/usr/bin/curl'] },
};

/** Commands the image has without installing anything (the nginx image's curl; Ubuntu's procps). */
export function preinstalled(image: string | undefined): string[] {
  const name = String(image ?? '').replace(/^(docker\.io\/)?(library\/)?/, '').split(/[:@]/)[0]!;
  if (name === 'nginx') return ['curl'];
  if (name === 'ubuntu') return ['procps'];
  return [];
}

const listsMarker = '/var/lib/apt/lists/deb.debian.org_debian_dists_bookworm_InRelease';
const marker = '#!k8ts simulated command\n';

/** Writes a file into the layer, making its missing parent directories first (as dpkg unpacks). */
function put(f: AptFiles, path: string, data: Buffer): string | undefined {
  if (!f.writeFile) return 'Read-only file system';
  const parts = path.split('/').filter(Boolean);
  for (let i = 1; i < parts.length; i++) {
    const dir = `/${parts.slice(0, i).join('/')}`;
    if (f.listDir(dir) === undefined) { const e = f.writeFile(dir, undefined); if (e) return e; }
  }
  return f.writeFile(path, data);
}

const installed = (name: string, f: AptFiles, image: string | undefined) =>
  preinstalled(image).includes(name) || packages[name]!.files.every((p) => f.readBytes(p) !== undefined);

function update(f: AptFiles, out: Out): number {
  const sources = [
    ['http://deb.debian.org/debian bookworm InRelease', '151 kB'],
    ['http://deb.debian.org/debian bookworm-updates InRelease', '55.4 kB'],
    ['http://deb.debian.org/debian-security bookworm-security InRelease', '48.0 kB'],
    ['http://deb.debian.org/debian bookworm/main amd64 Packages', '8792 kB'],
    ['http://deb.debian.org/debian bookworm-updates/main amd64 Packages', '13.5 kB'],
    ['http://deb.debian.org/debian-security bookworm-security/main amd64 Packages', '245 kB'],
  ];
  out('stdout', sources.map(([s, size], i) => `Get:${i + 1} ${s} [${size}]\n`).join(''));
  out('stdout', 'Fetched 9305 kB in 1s (9305 kB/s)\nReading package lists... Done\n');
  const error = put(f, listsMarker, Buffer.from(''));
  if (error) { out('stderr', `E: Could not open lock file /var/lib/apt/lists/lock - open (30: ${error})\n`); return 100; }
  return 0;
}

function install(names: string[], f: AptFiles, image: string | undefined, out: Out): number {
  out('stdout', 'Reading package lists... Done\nBuilding dependency tree... Done\nReading state information... Done\n');
  const listed = f.readBytes(listsMarker) !== undefined;
  const unknown = names.find((n) => !listed || !packages[n]);
  if (unknown) { out('stderr', `E: Unable to locate package ${unknown}\n`); return 100; }
  const fresh = [...new Set(names)].filter((n) => !installed(n, f, image));
  for (const n of names.filter((x) => !fresh.includes(x))) out('stdout', `${n} is already the newest version (${packages[n]!.version}).\n`);
  if (fresh.length) out('stdout', `The following NEW packages will be installed:\n  ${fresh.join(' ')}\n`);
  out('stdout', `0 upgraded, ${fresh.length} newly installed, 0 to remove and 0 not upgraded.\n`);
  for (const n of fresh) out('stdout', `Selecting previously unselected package ${n}.\n`);
  for (const n of fresh) {
    for (const file of packages[n]!.files) {
      const error = put(f, file, Buffer.from(marker));
      if (error) { out('stderr', `E: Sub-process /usr/bin/dpkg returned an error code (1)\n`); return 100; }
    }
    out('stdout', `Setting up ${n} (${packages[n]!.version}) ...\n`);
  }
  return 0;
}

/** `apt-get update | install [-y] PKG...` (and `apt`, which says the same with a warning on a pipe); other verbs: apt's usage error. */
export function aptGet(argv0: string, args: string[], f: AptFiles, image: string | undefined, out: Out): number {
  const words = args.filter((a) => !/^-(y|q+|-yes|-no-install-recommends|-assume-yes)$/.test(a));
  if (argv0 === 'apt') out('stderr', '\nWARNING: apt does not have a stable CLI interface. Use with caution in scripts.\n\n');
  const [verb, ...rest] = words;
  if (verb === 'update') return update(f, out);
  if (verb === 'install' && rest.length) return install(rest, f, image, out);
  if (verb === 'install') { out('stdout', 'Reading package lists... Done\nBuilding dependency tree... Done\nReading state information... Done\n0 upgraded, 0 newly installed, 0 to remove and 0 not upgraded.\n'); return 0; }
  out('stderr', `E: Invalid operation ${verb ?? ''}\n`);
  return 100;
}

/** Whether `command` (ps, lsof, tcpdump) is there: in the image, or installed into this instance's layer. */
export function hasCommand(pkg: string, f: Pick<AptFiles, 'readBytes'>, image: string | undefined): boolean {
  return !!packages[pkg] && installed(pkg, { readBytes: f.readBytes, listDir: () => undefined }, image);
}

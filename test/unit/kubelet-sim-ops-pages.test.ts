/**
 * The simulated runtime's additions for the shell, debug and lifecycle task
 * pages: procps's ps (procps.ts), apt-get (apt.ts) and what it installs
 * through the shell (extra-commands.ts), /proc's mounts and maps
 * (proc-files.ts), the termination message (termination-message.ts), the
 * processes a debug container sees (processes.ts) and the preStop handler
 * (pre-stop.ts).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Container, Pod } from 'kubernetes-types/core/v1.js';
import { procpsPs, type ProcpsContext } from '../../src/kubelet/runtime/simulated/procps.js';
import { aptGet } from '../../src/kubelet/runtime/simulated/apt.js';
import { parseExec, runProgram, type ShellContext } from '../../src/kubelet/runtime/simulated/shell.js';
import { procMaps, procMounts } from '../../src/kubelet/runtime/simulated/proc-files.js';
import { terminationMessage } from '../../src/kubelet/runtime/simulated/termination-message.js';
import { emptyLayer } from '../../src/kubelet/runtime/simulated/layer.js';
import { visibleProcesses } from '../../src/kubelet/runtime/simulated/processes.js';
import { runPreStopHook } from '../../src/kubelet/runtime/simulated/pre-stop.js';
import { refusedConnection } from '../../src/kubelet/runtime/simulated/listeners.js';
import { realTimers } from '../../src/kubelet/timers.js';

const nginxProcs = [{ uid: 0, args: 'nginx: master process nginx -g daemon off;' }, { uid: 101, args: 'nginx: worker process' }];
const at = new Date('2026-12-05T08:36:00Z');
const ctx = (o: Partial<ProcpsContext> = {}): ProcpsContext => ({
  processes: nginxProcs, tty: false, interactiveShell: false, startedAt: at, now: at, uid: 0,
  userName: (u) => (u === 0 ? 'root' : u === 101 ? 'nginx' : String(u)), ...o,
});

describe('simulated procps ps', () => {
  it('aux: the BSD user format, PIDs as busybox ps and kill count them', () => {
    assert.equal(procpsPs(['aux'], ctx()),
      'USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\n'
      + 'root           1  0.0  0.0  11404  7464 ?        Ss   08:36   0:00 nginx: master process nginx -g daemon off;\n'
      + 'nginx          7  0.0  0.0  11868  2892 ?        S    08:36   0:00 nginx: worker process\n'
      + 'root          13  0.0  0.0   8480  4100 ?        Rs   08:36   0:00 ps aux\n');
  });

  it('aux in an interactive bash on a terminal: the shell and ps on pts/0, ps in the foreground', () => {
    const out = procpsPs(['aux'], ctx({ tty: true, interactiveShell: true, processes: [...nginxProcs, { uid: 0, args: '/bin/bash' }] }))!.split('\n');
    assert.equal(out[3], 'root          13  0.0  0.0   4608  3780 pts/0    Ss   08:36   0:00 /bin/bash');
    assert.equal(out[4], 'root          19  0.0  0.0   8480  4100 pts/0    R+   08:36   0:00 ps aux');
  });

  it('x, -ef and no options', () => {
    const shared = [{ uid: 0, args: '/pause' }, { uid: 0, args: 'sleep 1d' }, { uid: 0, args: 'bash' }];
    assert.equal(procpsPs(['x'], ctx({ processes: shared, tty: true, interactiveShell: true })),
      '    PID TTY      STAT   TIME COMMAND\n      1 ?        Ss     0:00 /pause\n      7 ?        Ss     0:00 sleep 1d\n     13 pts/0    Ss     0:00 bash\n     19 pts/0    R+     0:00 ps x\n');
    assert.equal(procpsPs(['-ef'], ctx()),
      'UID          PID    PPID  C STIME TTY          TIME CMD\nroot           1       0  0 08:36 ?        00:00:00 nginx: master process nginx -g daemon off;\n'
      + 'nginx          7       1  0 08:36 ?        00:00:00 nginx: worker process\nroot          13       0  0 08:36 ?        00:00:00 ps -ef\n');
    assert.equal(procpsPs([], ctx({ processes: [{ uid: 0, args: 'bash' }], tty: true, interactiveShell: true })),
      '    PID TTY          TIME CMD\n      1 pts/0    00:00:00 bash\n      7 pts/0    00:00:00 ps\n');
    assert.equal(procpsPs(['--bogus'], ctx()), undefined);
  });

  it('the headers are the machine\'s procps-ng ones, but for the PID width its pid_max gives', () => {
    const real = spawnSync('ps', ['aux'], { encoding: 'utf8' });
    assert.match(spawnSync('ps', ['--version'], { encoding: 'utf8' }).stdout, /procps-ng/);
    // procps sizes PID from /proc/sys/kernel/pid_max: 7 digits for a node's 4194304 (systemd's default), 5 for 32768.
    const width = String(Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8')) - 1).length;
    const widen = (h: string) => h.replace(/ +PID/, (m) => ' '.repeat(Math.max(1, m.length - 3 - (7 - width))) + 'PID');
    assert.equal(widen(procpsPs(['aux'], ctx())!.split('\n')[0]!), real.stdout.split('\n')[0]);
  });
});

function files() {
  const store = new Map<string, Buffer>();
  const dirs = new Set(['/', '/usr', '/usr/bin', '/var', '/var/lib']);
  return {
    store,
    readBytes: (p: string) => store.get(p),
    listDir: (p: string) => (dirs.has(p) ? [] : undefined),
    writeFile: (p: string, d: Buffer | undefined) => { if (d === undefined) dirs.add(p); else store.set(p, d); return undefined; },
  };
}

describe('simulated apt-get', () => {
  const run = (args: string[], f: ReturnType<typeof files>, image = 'nginx') => {
    let stdout = ''; let stderr = '';
    const code = aptGet('apt-get', args, f, image, (s, t) => { if (s === 'stdout') stdout += t; else stderr += t; });
    return { code, stdout, stderr };
  };

  it('finds nothing before update, installs the known packages after, then says they are there', () => {
    const f = files();
    assert.deepEqual(run(['install', '-y', 'procps'], f).stderr, 'E: Unable to locate package procps\n');
    assert.equal(run(['install', '-y', 'procps'], f).code, 100);
    assert.equal(run(['update'], f).code, 0);
    const r = run(['install', '-y', 'tcpdump', 'lsof', 'procps'], f);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^Reading package lists\.\.\. Done\nBuilding dependency tree\.\.\. Done\nReading state information\.\.\. Done\nThe following NEW packages will be installed:\n {2}tcpdump lsof procps\n0 upgraded, 3 newly installed/);
    assert.deepEqual([...f.store.keys()].filter((k) => k.startsWith('/usr')).sort(), ['/usr/bin/lsof', '/usr/bin/ps', '/usr/bin/tcpdump']);
    assert.match(run(['install', 'procps'], f).stdout, /procps is already the newest version \(2:4\.0\.2-3\)\.\n0 upgraded, 0 newly installed/);
    assert.match(run(['install', 'curl'], f).stdout, /curl is already the newest version/);
    assert.deepEqual(run(['install', 'vim'], f), { code: 100, stdout: 'Reading package lists... Done\nBuilding dependency tree... Done\nReading state information... Done\n', stderr: 'E: Unable to locate package vim\n' });
  });

  it('through the shell: ps and lsof are found once installed, not before; busybox images have no apt-get', async () => {
    const f = files();
    const shell = async (line: string, image = 'nginx') => {
      let out = '';
      const parsed = parseExec(['bash', '-c', line]);
      assert.ok('program' in parsed);
      const c: ShellContext = {
        env: new Map(), hostname: 'shell-demo', image, processes: nginxProcs, readFile: () => undefined, readBytes: f.readBytes, listDir: f.listDir,
        writeFile: f.writeFile, now: () => at, sleep: async () => true, write: (_s, t) => { out += t; },
      };
      const code = await runProgram(parsed.program, c);
      return { code, out };
    };
    assert.deepEqual(await shell('ps aux'), { code: 127, out: 'sh: ps: not found\n' });
    assert.equal((await shell('apt-get update && apt-get install -y procps lsof')).code, 0);
    assert.match((await shell('ps aux')).out, /^USER {9}PID/);
    assert.match((await shell('lsof')).out, /^COMMAND PID USER/);
    assert.equal((await shell('apt-get update', 'busybox')).code, 127);
    assert.match((await shell('nginx -v')).out, /^nginx version: nginx\/1\.27\.3\n$/);
    // tcpdump listens until interrupted (here the sleep that never ends is cut at once) and has captured nothing.
    assert.equal((await shell('tcpdump')).code, 127);
    await shell('apt-get install -y tcpdump');
    assert.deepEqual(await shell('tcpdump'), { code: 0, out: 'tcpdump: verbose output suppressed, use -v[v]... for full protocol decode\nlistening on eth0, link-type EN10MB (Ethernet), snapshot length 262144 bytes\n\n0 packets captured\n0 packets received by filter\n0 packets dropped by kernel\n' });
  });
});

describe('simulated /proc, termination messages and debug containers', () => {
  const pod: Pod = {
    metadata: { name: 'shell-demo', namespace: 'default', uid: 'u1' },
    spec: {
      volumes: [{ name: 'shared-data', emptyDir: {} }, { name: 'cfg', configMap: { name: 'c' } }],
      containers: [{ name: 'nginx', image: 'nginx', volumeMounts: [{ name: 'shared-data', mountPath: '/usr/share/nginx/html' }, { name: 'cfg', mountPath: '/etc/cfg' }] }],
    },
  };

  it('mounts list the runtime\'s mounts, then the volumes in the spec\'s order, then the kubelet\'s files', () => {
    const lines = procMounts(pod, pod.spec!.containers[0]!).split('\n');
    assert.match(lines[0]!, /^overlay \/ overlay rw,relatime,lowerdir=/);
    assert.equal(lines[7], '/dev/sda1 /usr/share/nginx/html ext4 rw,relatime 0 0');
    assert.equal(lines[8], 'tmpfs /etc/cfg tmpfs ro,relatime,size=8039152k 0 0');
    assert.deepEqual(lines.slice(9, 13).map((l) => l.split(' ')[1]), ['/etc/hosts', '/dev/termination-log', '/etc/hostname', '/etc/resolv.conf']);
  });

  it('maps pads the path to column 74, as the kernel does', () => {
    const first = procMaps({ uid: 0, args: 'nginx: master process nginx -g daemon off;' }).split('\n')[0]!;
    assert.equal(first.indexOf('/usr/sbin/nginx'), 73);
  });

  it('the termination message: the file, else with FallbackToLogsOnError the log of a failed container', () => {
    const layer = emptyLayer();
    layer.files.set('/dev/termination-log', Buffer.from('Sleep expired\n'));
    const c: Container = { name: 'c' };
    assert.equal(terminationMessage(c, layer, 0, () => ''), 'Sleep expired\n');
    assert.equal(terminationMessage({ name: 'c', terminationMessagePath: '/tmp/x' }, layer, 0, () => ''), undefined);
    const fallback: Container = { name: 'c', terminationMessagePolicy: 'FallbackToLogsOnError' };
    assert.equal(terminationMessage(fallback, emptyLayer(), 1, () => 'a\nb\n'), 'a\nb');
    assert.equal(terminationMessage(fallback, emptyLayer(), 0, () => 'a\n'), undefined);
  });

  it('an ephemeral container with a target sees the target\'s processes; the pause image is /pause; Ubuntu\'s CMD is bash', () => {
    const p: Pod = {
      metadata: { name: 'ephemeral-demo' },
      spec: { containers: [{ name: 'ephemeral-demo', image: 'registry.k8s.io/pause:3.1' }], ephemeralContainers: [{ name: 'debugger', image: 'busybox:1.28', targetContainerName: 'ephemeral-demo' }] },
    };
    assert.deepEqual(visibleProcesses(p, p.spec!.ephemeralContainers![0] as Container).map((x) => x.args), ['/pause', 'sh']);
    const copy: Pod = { metadata: { name: 'myapp-debug' }, spec: { shareProcessNamespace: true, containers: [{ name: 'myapp', image: 'busybox:1.28', command: ['sleep', '1d'] }, { name: 'debugger', image: 'ubuntu' }] } };
    assert.deepEqual(visibleProcesses(copy, copy.spec!.containers[1]!).map((x) => x.args), ['/pause', 'sleep 1d', 'bash']);
  });

  it('preStop: exec failure and httpGet refusal in upstream\'s words; success records nothing; the grace period bounds it', async () => {
    const p: Pod = { metadata: { name: 'p', namespace: 'default', uid: 'u' }, spec: { containers: [] } };
    const target = (c: Container, exitCode = 0) => ({
      pod: p, container: c, podIP: '10.244.1.5', timers: realTimers, dial: (port: number) => refusedConnection(port),
      exec: async () => ({ exitCode, output: exitCode ? 'boom\n' : '' }),
    });
    const execHook: Container = { name: 'web', lifecycle: { preStop: { exec: { command: ['sh', '-c', 'exit 3'] } } } };
    assert.equal(await runPreStopHook(target(execHook, 3), 30),
      'Exec lifecycle hook ([sh -c exit 3]) for Container "web" in Pod "p_default(u)" failed - error: command \'sh -c exit 3\' exited with 3: boom\n, message: "boom\n"');
    assert.equal(await runPreStopHook(target(execHook, 0), 30), undefined);
    const httpHook: Container = { name: 'side', lifecycle: { preStop: { httpGet: { port: 8080, path: 'shutdown' } } } };
    assert.equal(await runPreStopHook(target(httpHook), 30),
      'HTTP lifecycle hook (shutdown) for Container "side" in Pod "p_default(u)" failed - error: Get "http://10.244.1.5:8080/shutdown": dial tcp 10.244.1.5:8080: connect: connection refused');
    // A handler still running when the grace period ends is cut off without an event.
    const stuck = { ...target(execHook), exec: () => new Promise<{ exitCode: number; output: string }>(() => {}) };
    assert.equal(await runPreStopHook(stuck, 0), undefined);
  });
});

/** The tutorials' container commands as the simulated runtime runs them (runtime/simulated/shell.ts, program.ts). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { containerDate, parseProgram, runProgram, type ShellContext } from '../../src/kubelet/runtime/simulated/shell.js';
import { runsProgram } from '../../src/kubelet/runtime/simulated/program.js';
import { SimulatedRuntime } from '../../src/kubelet/runtime/simulated/runtime.js';
import { FakeTimers } from '../../src/kubelet/timers.js';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Pod } from 'kubernetes-types/core/v1.js';

/** Runs argv; sleeps advance a fake clock and the run stops after `rounds` of them. */
async function run(argv: string[], opts: { env?: Record<string, string>; files?: Record<string, string>; sleeps?: number } = {}) {
  const program = parseProgram(argv);
  assert.ok(program, `not understood: ${JSON.stringify(argv)}`);
  let t = Date.parse('2019-02-22T11:02:09Z');
  let sleeps = 0;
  const out: string[] = [];
  const files = opts.files ?? {};
  const ctx: ShellContext = {
    env: new Map(Object.entries(opts.env ?? {})),
    hostname: 'pod-1',
    readFile: (p) => files[p],
    listDir: (p) => { const names = Object.keys(files).filter((f) => f.startsWith(`${p.replace(/\/$/, '')}/`)).map((f) => f.slice(p.replace(/\/$/, '').length + 1)); return names.length ? names.sort() : undefined; },
    now: () => new Date(t),
    sleep: async (ms) => { t += ms; return ++sleeps <= (opts.sleeps ?? 0); },
    write: (stream, text) => out.push(stream === 'stderr' ? `ERR:${text}` : text),
  };
  const code = await runProgram(program, ctx);
  return { out: out.join(''), code };
}

describe('simulated commands: what the tutorials\' pods print', () => {
  it('CronJob: date; echo Hello from the Kubernetes cluster', async () => {
    const r = await run(['/bin/sh', '-c', 'date; echo Hello from the Kubernetes cluster']);
    assert.equal(r.out, 'Fri Feb 22 11:02:09 UTC 2019\nHello from the Kubernetes cluster\n');
    assert.equal(r.code, 0);
  });

  it("Running an example Job: perl -Mbignum=bpi -wle 'print bpi(N)' prints pi to N significant digits, rounded as Perl's", async () => {
    assert.equal((await run(['perl', '-Mbignum=bpi', '-wle', 'print bpi(20)'])).out, '3.1415926535897932385\n');
    assert.equal((await run(['perl', '-Mbignum=bpi', '-le', 'print bpi(3)'])).out, '3.14\n');
    const r = await run(['perl', '-Mbignum=bpi', '-wle', 'print bpi(2000)']);
    assert.equal(r.code, 0);
    assert.equal(r.out.length, 2002);
    // The 50 digits every table of pi starts with, and the 2,000th digit rounded up (its successors are 994...).
    assert.ok(r.out.startsWith('3.14159265358979323846264338327950288419716939937510'), r.out.slice(0, 60));
    assert.ok(r.out.endsWith('904780275901\n'), r.out.slice(-20));
    // Any other perl is not understood: the runtime logs the simulated lifecycle instead.
    assert.equal(parseProgram(['perl', '-Mbignum=bpi', '-wle', 'print bpi(20); unlink "x"']), undefined);
    assert.equal(parseProgram(['perl', '-e', 'print 1']), undefined);
    assert.equal(parseProgram(['perl', '-Mbignum=bpi', '-wle', 'print bpi(1000000)']), undefined);
  });

  it('Job success policy: python3 -c exits 0 only for JOB_COMPLETION_INDEX 2; the subset, and what it does not run', async () => {
    const script = 'import os, sys\nif os.environ.get("JOB_COMPLETION_INDEX") == "2":\n  sys.exit(0)\nelse:\n  sys.exit(1)\n';
    assert.deepEqual(await run(['python3', '-c', script], { env: { JOB_COMPLETION_INDEX: '2' } }), { out: '', code: 0 });
    assert.deepEqual(await run(['python3', '-c', script], { env: { JOB_COMPLETION_INDEX: '0' } }), { out: '', code: 1 });
    assert.deepEqual(await run(['python3', '-c', script]), { out: '', code: 1 });
    const table: [string, Record<string, string>, string, number][] = [
      ['print("hello", 1, None, True)', {}, 'hello 1 None True\n', 0],
      ['import os\nprint(int(os.environ["I"]) % 2 == 0 and "even" or "odd")', { I: '3' }, 'odd\n', 0],
      ['import os\nprint(os.getenv("X", "dflt"), os.environ.get("Y"))', { Y: 'y' }, 'dflt y\n', 0],
      ['import sys\nif 1 < 2:\n    print("a")\nelif 2:\n    print("b")\nsys.exit(3)', {}, 'a\n', 3],
      ['import sys\nsys.exit("bye")', {}, 'ERR:bye\n', 1],
      ['import os\nos.environ["NOPE"]', {}, '', -1],
      ['import os\nprint(os.environ["NOPE"])', {}, "ERR:Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\nKeyError: 'NOPE'\n", 1],
      ['import json\nprint(1)', {}, '', -1],
      ['print(open("x").read())', {}, '', -1],
      ['if True:\nprint(1)', {}, '', -1],
      // The backoffLimitPerIndex page's FailIndex example: a name assigned, then compared.
      ['import os, sys\nindex = int(os.environ.get("JOB_COMPLETION_INDEX"))\nif index == 0:\n  sys.exit(1)\nelif index == 1:\n  sys.exit(42)\nelse:\n  sys.exit(0)', { JOB_COMPLETION_INDEX: '1' }, '', 42],
      ['x = 2\nx = x * 3\nprint(x, x == 6)', {}, '6 True\n', 0],
      ['print(y)', {}, "ERR:Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\nNameError: name 'y' is not defined\n", 1],
      ['sys.path = 1', {}, '', -1],
    ];
    for (const [src, env, out, code] of table) {
      if (code === -1) { assert.equal(parseProgram(['python3', '-c', src]), undefined, src); continue; }
      assert.deepEqual(await run(['/usr/bin/python', '-c', src], { env }), { out, code }, src);
    }
  });

  it('Debug Init Containers: set -x traces each command to stderr as ash does; set +x stops; other options are not simulated', async () => {
    assert.deepEqual(await run(['sh', '-c', 'set -x; echo checking the database; x="a b"; test -f /ready']),
      { out: "ERR:+ echo checking the database\nchecking the database\nERR:+ x='a b'\nERR:+ test -f /ready\n", code: 1 });
    assert.deepEqual(await run(['sh', '-c', 'set -x; set +x; echo quiet']), { out: 'ERR:+ set +x\nquiet\n', code: 0 });
    assert.equal(parseProgram(['sh', '-c', 'set -e; echo x']), undefined);
  });

  it('kubectl create job hello --image=busybox:1.28 -- echo "Hello World"', async () => {
    assert.equal((await run(['echo', 'Hello World'])).out, 'Hello World\n');
  });

  it('ConfigMaps: a loop that cats a mounted key every 10 s, with $(date)', async () => {
    const r = await run(['/bin/sh', '-c', 'while true; do echo "$(date) My preferred sport is $(cat /etc/config/sport)"; sleep 10; done;'],
      { files: { '/etc/config/sport': 'football' }, sleeps: 2 });
    assert.equal(r.out, 'Fri Feb 22 11:02:09 UTC 2019 My preferred sport is football\n'.repeat(1) +
      'Fri Feb 22 11:02:19 UTC 2019 My preferred sport is football\nFri Feb 22 11:02:29 UTC 2019 My preferred sport is football\n');
    assert.equal(r.code, undefined);
  });

  it('env, printenv NAME..., $VAR and ${VAR}, ls and cat of a volume', async () => {
    const env = { SPECIAL_LEVEL_KEY: 'very', SPECIAL_TYPE_KEY: 'charm' };
    assert.equal((await run(['/bin/sh', '-c', 'env'], { env })).out, 'SPECIAL_LEVEL_KEY=very\nSPECIAL_TYPE_KEY=charm\n');
    assert.equal((await run(['/bin/sh', '-c', 'echo $SPECIAL_LEVEL_KEY ${SPECIAL_TYPE_KEY}'], { env })).out, 'very charm\n');
    assert.equal((await run(['printenv', 'SPECIAL_TYPE_KEY', 'SPECIAL_LEVEL_KEY'], { env })).out, 'charm\nvery\n');
    const files = { '/etc/config/SPECIAL_LEVEL': 'very', '/etc/config/SPECIAL_TYPE': 'charm' };
    assert.equal((await run(['/bin/sh', '-c', 'ls /etc/config/'], { files })).out, 'SPECIAL_LEVEL\nSPECIAL_TYPE\n');
    assert.equal((await run(['/bin/sh', '-c', 'cat /etc/config/keys'], { files })).out, "ERR:cat: can't open '/etc/config/keys': No such file or directory\n");
  });

  it('"Define a Command and Arguments": printenv HOSTNAME KUBERNETES_PORT; "Dependent Environment Variables": printf NAME=$NAME\'\\n\'', async () => {
    const env = { HOSTNAME: 'command-demo', KUBERNETES_PORT: 'tcp://10.96.0.1:443', SERVICE_ADDRESS: 'https://172.17.0.1:80', ESCAPED_REFERENCE: '$(PROTOCOL)' };
    assert.equal((await run(['printenv', 'HOSTNAME', 'KUBERNETES_PORT'], { env })).out, 'command-demo\ntcp://10.96.0.1:443\n');
    const script = "printf UNCHANGED_REFERENCE=$UNCHANGED_REFERENCE'\\n'; printf SERVICE_ADDRESS=$SERVICE_ADDRESS'\\n';printf ESCAPED_REFERENCE=$ESCAPED_REFERENCE'\\n'; sleep 30";
    assert.equal((await run(['sh', '-c', script], { env })).out, 'UNCHANGED_REFERENCE=\nSERVICE_ADDRESS=https://172.17.0.1:80\nESCAPED_REFERENCE=$(PROTOCOL)\n');
    assert.equal((await run(['sh', '-c', 'printf "%s-%d|" a 1 b 2'])).out, 'a-1|b-2|');
  });

  it('quotes, && and ||, for loops, echo -n and -e, exit', async () => {
    assert.equal((await run(['sh', '-c', "echo 'a  b' \"c  d\" e\\ f"])).out, 'a  b c  d e f\n');
    assert.equal((await run(['sh', '-c', 'false && echo no || echo yes'])).out, 'yes\n');
    assert.equal((await run(['sh', '-c', 'for i in 3 2 1 ; do echo $i ; done'])).out, '3\n2\n1\n');
    assert.equal((await run(['sh', '-c', 'echo -n a; echo -e "b\\nc"'])).out, 'ab\nc\n');
    assert.equal((await run(['sh', '-c', 'greeting="hello  $WHO"; echo "$greeting"; x=1; echo $x'], { env: { WHO: 'you' } })).out, 'hello  you\n1\n');
    const r = await run(['sh', '-c', 'echo before; exit 3; echo after']);
    assert.deepEqual(r, { out: 'before\n', code: 3 });
  });

  it('sleep stops the program once the container stopped', async () => {
    assert.deepEqual(await run(['sleep', '3600']), { out: '', code: undefined });
    assert.deepEqual(await run(['sh', '-c', 'echo up; sleep 1; echo never']), { out: 'up\n', code: undefined });
  });

  it('while with a condition: the HPA walkthrough\'s `while sleep 0.01; do ...; done` loops; a failing condition ends the loop with the body\'s last status', async () => {
    const loop = await run(['/bin/sh', '-c', 'while sleep 0.01; do echo -n OK!; done'], { sleeps: 3 });
    assert.deepEqual(loop, { out: 'OK!OK!OK!', code: undefined });
    const ended = await run(['sh', '-c', 'while test -f /tmp/flag; do echo once; false; done; echo after $?'], { files: {} });
    assert.deepEqual(ended, { out: 'after 0\n', code: 0 });
    const neverTrue = await run(['sh', '-c', 'while false; do echo never; done'], { sleeps: 1 });
    assert.deepEqual(neverTrue, { out: '', code: 0 });
  });

  it('Indexed Job: bash\'s items=(...) and ${items[$JOB_COMPLETION_INDEX]} write the index\'s word; rev prints it reversed', async () => {
    const script = 'items=(foo bar baz qux xyz)\necho ${items[$JOB_COMPLETION_INDEX]} > /input/data.txt\n';
    const program = parseProgram(['bash', '-c', script]);
    assert.ok(program);
    const written: string[] = [];
    for (const index of ['0', '3', '-1', '7']) {
      const r = await run(['bash', '-c', `items=(foo "b a r" baz qux xyz); echo "\${items[$JOB_COMPLETION_INDEX]}" $items \${items[1]}`], { env: { JOB_COMPLETION_INDEX: index } });
      written.push(r.out);
    }
    assert.deepEqual(written, ['foo foo b a r\n', 'qux foo b a r\n', 'xyz foo b a r\n', ' foo b a r\n']);
    // A plain variable is an array of one element.
    assert.equal((await run(['bash', '-c', 'v=one; echo ${v[0]}-${v[1]}-'])).out, 'one--\n');
    // dash and ash have no arrays: not run.
    assert.equal(parseProgram(['sh', '-c', script]), undefined);
    assert.equal((await run(['rev', '/input/data.txt'], { files: { '/input/data.txt': 'foo\nhéllo\n' } })).out, 'oof\nolléh\n');
    // The downward API file has no newline; rev adds none.
    assert.equal((await run(['rev', '/input/data.txt'], { files: { '/input/data.txt': '12' } })).out, '21');
    assert.deepEqual(await run(['rev', '/nope']), { out: 'ERR:rev: /nope: No such file or directory\n', code: 1 });
  });

  it('what it does not run: a while loop in a pipe or whose condition is not run (read), here-documents, background jobs, unknown commands, no command', () => {
    for (const argv of [['sh', '-c', 'while true; do echo a; done | head -n 1'], ['sh', '-c', 'while read l; do echo $l; done'], ['sh', '-c', 'cat <<EOF'],
      ['sh', '-c', 'echo a >& /tmp/x'], ['sh', '-c', 'sleep 1 & echo a'], ['sh', '-c', 'env | nosuch'], ['sh', '-c', 'tail -f /var/log/x /var/log/y'], ['tail', '-F', '-c', '5', '/var/log/x'],
      ['nginx', '-g', 'daemon off;'], ['sh', '-c', 'perl -Mbignum=bpi -wle "print bpi(2000)"'], ['/docker-entrypoint.sh']]) {
      assert.equal(parseProgram(argv), undefined, JSON.stringify(argv));
    }
    assert.equal(runsProgram({ name: 'web', image: 'nginx' }), false);
    assert.equal(runsProgram({ name: 'c', image: 'busybox', args: ['sleep', '1000'] }), true);
    // $(VAR) is the kubelet's, expanded before the shell sees it.
    assert.equal(runsProgram({ name: 'c', image: 'busybox', command: ['/bin/echo', '$(SPECIAL_LEVEL_KEY) $(SPECIAL_TYPE_KEY)'] }), true);
  });

  it('date prints as busybox and coreutils do in a UTC container', () => {
    assert.equal(containerDate(new Date('2026-12-03T21:04:00Z')), 'Thu Dec  3 21:04:00 UTC 2026');
  });
});

describe('simulated runtime: a run-to-completion pod ends when its command does', () => {
  const flush = () => new Promise((r) => setImmediate(r));
  let seq = 0;
  async function started(command: string[], restartPolicy: string, annotations: Record<string, string> = {}) {
    const dir = mkdtempSync(join(tmpdir(), 'k8ts-sim-shell-'));
    const timers = new FakeTimers();
    const rt = new SimulatedRuntime({ podCIDR: '10.244.7.0/24', hostIP: '172.16.0.17', timers, podLogsDir: dir });
    seq++;
    const p = { metadata: { name: `p${seq}`, namespace: 'ns', uid: `u${seq}`, annotations }, spec: { nodeName: 'n', restartPolicy, containers: [{ name: 'c', image: 'busybox', command }] }, status: { phase: 'Pending' } };
    rt.syncPod(p as Pod);
    await flush();
    const state = () => rt.status(p.metadata.uid)!.containers[0]!;
    const log = () => readFileSync(join(dir, `ns_${p.metadata.name}_${p.metadata.uid}`, 'c', `${state().restartCount}.log`), 'utf8').split('\n').filter(Boolean).map((l) => l.split(' ').slice(3).join(' '));
    return { rt, timers, state, log, close: () => rmSync(dir, { recursive: true, force: true }) };
  }
  const advance = async (t: FakeTimers, ms: number) => { for (let i = 0; i < ms; i += 1000) { t.advance(Math.min(1000, ms - i)); await flush(); } };

  it('Never: echo then sleep 5 completes after 5 s (exit 0, Completed), not after the 1 s of other simulated pods', async () => {
    const r = await started(['sh', '-c', 'echo hi; sleep 5'], 'Never');
    await advance(r.timers, 4000);
    assert.equal(r.state().state, 'running');
    await advance(r.timers, 1000);
    assert.deepEqual([r.state().state, r.state().exitCode, r.state().reason], ['exited', 0, 'Completed']);
    assert.deepEqual(r.log(), ['hi']);
    r.close();
  });

  it('Never: a while true loop keeps running and logging; OnFailure: exit 3 restarts with the crash back-off', async () => {
    const loop = await started(['sh', '-c', 'while true; do echo tick; sleep 10; done'], 'Never');
    await advance(loop.timers, 60_000);
    assert.equal(loop.state().state, 'running');
    assert.equal(loop.log().length, 7);
    loop.close();
    const failing = await started(['sh', '-c', 'echo no; exit 3'], 'OnFailure');
    await flush();
    const s = failing.state();
    assert.equal(s.restartCount, 1);
    assert.deepEqual([s.lastTermination?.exitCode, s.lastTermination?.reason], [3, 'Error']);
    failing.close();
  });

  it('an annotated script still decides: sim-complete-after wins over the command', async () => {
    const r = await started(['sh', '-c', 'while true; do sleep 1; done'], 'Never', { 'k8ts.io/sim-complete-after': '2s' });
    await advance(r.timers, 2000);
    assert.equal(r.rt.status('u' + String(seq))!.terminalPhase, 'Succeeded');
    r.close();
  });
});

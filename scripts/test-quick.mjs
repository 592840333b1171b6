// `npm run test:quick`: the contributor's loop (docs/contributing.md). The unit
// tests and the end-to-end tests of the API's core as users meet it (kubectl's
// verbs, the seed walkthroughs, the guide), none of which needs root,
// containerd or etcd. `npm test` stays the full gate that CI runs.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const e2e = ['guide', 'commands', 'get', 'errors', 'cli-errors', 'api-machinery', 'walkthrough-daemonset', 'walkthrough-statefulset', 'scheduler', 'server-side-apply'];
const files = [
  ...readdirSync('dist/test/unit').filter((f) => f.endsWith('.test.js')).map((f) => `dist/test/unit/${f}`),
  ...e2e.map((name) => `dist/test/e2e/${name}.test.js`),
];
const r = spawnSync(process.execPath, ['--test', '--test-concurrency=2', '--test-reporter=spec', ...files], { stdio: 'inherit' });
process.exit(r.status ?? 1);

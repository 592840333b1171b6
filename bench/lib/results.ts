/**
 * bench/RESULTS.md: one section per benchmark between marker comments; a run
 * replaces its own section and leaves the others alone.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem, release } from 'node:os';
import { relative } from 'node:path';
import { execFileSync } from 'node:child_process';

const header = '# Benchmark results\n\nEach section is written by the benchmark it names, with the command that produced it. Numbers come from one run on a shared machine: compare ratios within a section, not across machines.\n';

export function writeSection(file: string, name: string, body: string): void {
  const begin = `<!-- BEGIN ${name} -->`;
  const end = `<!-- END ${name} -->`;
  const section = `${begin}\n${body.trimEnd()}\n${end}`;
  const text = existsSync(file) ? readFileSync(file, 'utf8') : header;
  const at = text.indexOf(begin);
  const stop = text.indexOf(end);
  const next = at >= 0 && stop > at
    ? text.slice(0, at) + section + text.slice(stop + end.length)
    : `${text.trimEnd()}\n\n${section}\n`;
  writeFileSync(file, next);
}

export function machineLine(): string {
  const cpu = cpus();
  const model = cpu[0]?.model.trim() ?? 'unknown CPU';
  return `${cpu.length} cores (\`nproc\`: ${nproc()}; ${model}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB RAM, Linux ${release()}, Node ${process.version}`;
}

function nproc(): string {
  try { return execFileSync('nproc', { encoding: 'utf8' }).trim(); } catch { return '?'; }
}

/** The commit measured, marked when the work tree had changes. */
export function revisionLine(repo: string): string {
  try {
    const head = execFileSync('git', ['-C', repo, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['-C', repo, 'status', '--porcelain', '--', 'src'], { encoding: 'utf8' }).trim() !== '';
    return dirty ? `${head} + uncommitted changes in src/` : head;
  } catch {
    return 'unknown';
  }
}

export function table(headers: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(headers), line(headers.map(() => '---')), ...rows.map(line)].join('\n');
}

/**
 * The head of a results section: title, the command that produced it, date and load, machine
 * (with `machineNote` after it) and revision, one Markdown line each.
 */
export function sectionHead(repo: string, title: string, machineNote = ''): string[] {
  const command = `node ${relative(repo, process.argv[1]!)} ${process.argv.slice(2).join(' ')}`.trim();
  return [
    title,
    '',
    `- Command: \`${command}\``,
    `- Date: ${new Date().toISOString()}; load average at end: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`,
    `- Machine: ${machineLine()}${machineNote}`,
    `- Revision: ${revisionLine(repo)}`,
  ];
}

/**
 * The header strip: every pod the user sees, counted by phase (as `kubectl
 * get pods -A` reports `status.phase`) and by owner kind with its pods'
 * card states. The counts come from the server's summary (kept from its
 * watch, so 150,000 pods cost the page nothing to count); without the
 * summary, the page counts the pods it lists itself, with the same rules.
 */
import { podStates } from '../../src/api/pod-card.js';
import { ownerKinds, podPhases, type PodTotals } from '../../src/api/pod-tally.js';

const ownerLabel: Record<string, string> = { Static: 'Static/mirror', Pod: 'No owner' };

export function CountsStrip({ totals }: { totals?: PodTotals }) {
  if (!totals) return null;
  return (
    <section class="counts-strip" aria-label="pod counts">
      <span class="total" data-count="pods"><strong>{totals.pods}</strong> pods</span>
      <ul class="phases" aria-label="pods by phase">
        {podPhases.filter((p) => totals.phases[p]).map((p) => (
          <li key={p} class={`phase phase-${p}`} data-count={`phase/${p}`}>{p} <strong>{totals.phases[p]}</strong></li>
        ))}
      </ul>
      <ul class="owners" aria-label="pods by owner">
        {ownerKinds.filter((k) => totals.owners[k]).map((k) => {
          const counts = totals.owners[k]!;
          const n = counts.reduce((a, b) => a + b, 0);
          const states = podStates.map((s, i) => [s, counts[i]] as const).filter(([, c]) => c).map(([s, c]) => `${c} ${s}`).join(', ');
          return <li key={k} data-count={`owner/${k}`} title={states}>{ownerLabel[k] ?? k} <strong>{n}</strong> <span class="states">({states})</span></li>;
        })}
      </ul>
    </section>
  );
}

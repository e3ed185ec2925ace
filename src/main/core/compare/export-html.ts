import type { Compare } from '../../../shared/contract/compare';
import type { RunResult } from './judge';

/** Text as HTML text or an attribute value: nothing in it is markup. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);
}

// No script runs and nothing is fetched even if a page viewer ignored the escaping: the file forbids both itself.
const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'none'; form-action 'none'; base-uri 'none'";

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 2em auto; max-width: 1200px; padding: 0 1em; color: #1d1d1f; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; }
blockquote, .message { white-space: pre-wrap; background: #f5f5f7; border-left: 3px solid #999; margin: 0.5em 0; padding: 0.5em 1em; }
table { border-collapse: collapse; } td, th { border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; }
pre.diff { background: #fafafa; border: 1px solid #ddd; overflow-x: auto; padding: 0.5em; font-size: 12px; }
.add { color: #116329; background: #e6ffec; } .del { color: #82071e; background: #ffebe9; } .hunk { color: #0550ae; }
.verdict { white-space: pre-wrap; border: 1px solid #999; padding: 0.5em 1em; }
.muted { color: #666; }
`;

const time = (ms: number | null): string => (ms === null ? '—' : ms < 60_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`);
const date = (ms: number): string => new Date(ms).toISOString().replace('T', ' ').slice(0, 16) + ' UTC';

function diffHtml(diff: string): string {
  if (!diff) return '<p class="muted">No changes.</p>';
  const lines = diff.split('\n').map((line) => {
    const cls = line.startsWith('+') && !line.startsWith('+++') ? 'add' : line.startsWith('-') && !line.startsWith('---') ? 'del' : line.startsWith('@@') ? 'hunk' : null;
    return cls ? `<span class="${cls}">${escapeHtml(line)}</span>` : escapeHtml(line);
  });
  return `<pre class="diff">${lines.join('\n')}</pre>`;
}

/**
 * The comparison as one self-contained HTML file: the prompt, each run (agent, branch, time, tokens, how it ended,
 * its last message, files and diff) and the judge's verdict. Everything from the runs and the judge is escaped;
 * the page carries no script and names nothing to fetch, and its Content-Security-Policy forbids both.
 */
export function comparisonHtml(compare: Compare, results: readonly RunResult[], judgeName: string | null): string {
  const score = (runId: string) => compare.judge?.scores.find((s) => s.runId === runId)?.score;
  const rows = results
    .map((r, i) => {
      const s = score(r.run.id);
      const ended = r.run.error ? `failed: ${r.run.error}` : (r.run.stopReason ?? (r.run.endedAt ? 'ended' : 'not ended'));
      return `<tr><td>Run ${i + 1}</td><td>${escapeHtml(r.agentName)}</td><td><code>${escapeHtml(r.run.branch)}</code></td><td>${time(r.timeMs)}</td><td>${r.tokens ?? '—'}</td><td>${r.files.length}</td><td>${escapeHtml(ended)}</td><td>${s === undefined ? '—' : `${s}/10`}</td></tr>`;
    })
    .join('\n');
  const runs = results
    .map(
      (r, i) => `<section>
<h2>Run ${i + 1}: ${escapeHtml(r.agentName)}</h2>
<p class="muted">Branch <code>${escapeHtml(r.run.branch)}</code> · ${time(r.timeMs)} · ${r.tokens ?? '—'} tokens</p>
<h3>Last message</h3>
<div class="message">${escapeHtml(r.lastMessage ?? '(none)')}</div>
<h3>Files changed</h3>
${r.files.length ? `<ul>${r.files.map((f) => `<li><code>${escapeHtml(f.path)}</code> (${escapeHtml(f.change)})</li>`).join('')}</ul>` : '<p class="muted">None.</p>'}
<h3>Diff${r.diffNote ? ` <span class="muted">(${escapeHtml(r.diffNote)})</span>` : ''}</h3>
${diffHtml(r.diff)}
</section>`,
    )
    .join('\n');
  const judge = compare.judge;
  const verdict = judge
    ? `<section><h2>Verdict${judgeName ? ` of ${escapeHtml(judgeName)}` : ''}</h2>
${judge.criteria ? `<p>Criteria: ${escapeHtml(judge.criteria)}</p>` : ''}
${judge.verdict ? `<div class="verdict">${escapeHtml(judge.verdict)}</div>` : `<p class="muted">${escapeHtml(judge.error ?? 'No verdict yet.')}</p>`}
</section>`
    : '';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="referrer" content="no-referrer">
<title>Comparison ${escapeHtml(compare.id)}</title>
<style>${STYLE}</style>
</head>
<body>
<h1>Comparison</h1>
<p class="muted"><code>${escapeHtml(compare.repo)}</code> from <code>${escapeHtml(compare.base)}</code> at <code>${escapeHtml(compare.baseCommit.slice(0, 10))}</code>, ${date(compare.createdAt)}</p>
<h2>Prompt</h2>
<blockquote>${escapeHtml(compare.prompt)}</blockquote>
<table>
<tr><th></th><th>Agent</th><th>Branch</th><th>Time</th><th>Tokens</th><th>Files</th><th>Ended</th><th>Score</th></tr>
${rows}
</table>
${verdict}
${runs}
</body>
</html>
`;
}

// Synthetic but realistic ACP session traffic for the history benchmark: a seeded generator of sessions made
// of prompts, streamed agent messages and thoughts, tool calls (reads, edits with diffs, shell commands with
// terminal output, fs writes, permission requests), usage updates and stop reasons, with a Zipf-distributed
// programming vocabulary so that queries hit like they do on a real history.

export interface WireMessage {
  direction: 'c2a' | 'a2c';
  method: string | null;
  body: string;
  ts: number;
}

export interface SessionSpec {
  id: string;
  agentId: string;
  cwd: string;
  createdAt: number;
  messages: WireMessage[];
}

/** mulberry32: small, fast, seeded. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = `the to a of and in is that for it with this we on be as I you should need let me check now first then also
fix update add remove change file line code issue bug problem works failing passing test tests build error errors
function method class type value return call use using make sure looks like here there because when if not but all
auth token refresh session login logout user users password hash middleware handler request response header cookie
database migration schema index query table column row transaction cache redis postgres sqlite connection pool
config env environment variable secret key jwt oauth callback redirect cors csrf payload json parse serialize
validate validation component hook state reducer render props router route endpoint api client server socket
websocket stream buffer timeout retry backoff queue worker job scheduler cron deploy docker container image
kubernetes helm chart pipeline workflow ci lint eslint prettier format bundle compile typescript javascript rust
cargo python pytest golang module package dependency version upgrade refactor rename extract inline interface
generic async await promise callback event emitter listener subscription store selector action dispatch effect
memo context provider layout style css theme dark mode button modal dialog form input submit loading spinner
pagination cursor offset limit sort filter search fuzzy highlight snippet ranking permission role admin access
denied unauthorized forbidden expired invalid missing null undefined exception stack trace panic crash leak
memory cpu performance slow fast benchmark profile flamegraph latency throughput concurrency lock mutex race
deadlock thread goroutine channel actor message protocol codec encoding utf8 unicode locale timezone date
logger logging metrics tracing span telemetry alert monitor health readiness liveness probe restart signal
shutdown graceful cleanup dispose resource handle descriptor path directory folder workspace monorepo tsconfig
vite webpack rollup esbuild babel polyfill target node electron renderer preload ipc contract bridge window
terminal shell command script npm pnpm yarn install lockfile registry publish release changelog semver tag
branch commit merge rebase conflict diff patch review comment approve pr flaky snapshot fixture mock stub spy
coverage assertion expect describe suite case setup teardown integration e2e playwright browser selector click`
  .split(/\s+/)
  .filter(Boolean);

const AREAS = ['auth', 'api', 'db', 'ui', 'core', 'utils', 'server', 'client', 'store', 'hooks', 'components', 'services', 'workers', 'config', 'lib', 'routes', 'models', 'jobs', 'cli', 'tests'];
const NAMES = ['login', 'session', 'token', 'user', 'index', 'router', 'handler', 'middleware', 'schema', 'migration', 'cache', 'queue', 'client', 'server', 'config', 'logger', 'metrics', 'button', 'modal', 'form', 'table', 'search', 'settings', 'profile', 'billing', 'invoice', 'payment', 'webhook', 'upload', 'export'];
const EXTS = ['ts', 'tsx', 'ts', 'js', 'py', 'rs', 'go', 'json', 'sql', 'css', 'md', 'yaml'];
const VERBS = ['get', 'set', 'fetch', 'validate', 'parse', 'handle', 'create', 'update', 'delete', 'load', 'save', 'refresh', 'resolve', 'build', 'render', 'use', 'init', 'format', 'compute', 'sync'];
const NOUNS = ['Token', 'Session', 'User', 'Config', 'Request', 'Response', 'Cache', 'Query', 'Schema', 'Route', 'Store', 'State', 'Auth', 'Payload', 'Header', 'Cookie', 'Event', 'Job', 'Invoice', 'Profile'];
const ERRORS = ['ECONNRESET', 'ECONNREFUSED', 'ETIMEDOUT', 'ENOENT', 'EADDRINUSE', 'E11000', 'SIGSEGV', 'ERR_MODULE_NOT_FOUND', 'TS2345', 'TS2322'];
const AGENTS = ['claude-code', 'gemini-cli', 'qwen-code', 'codex'];
const PROJECT_NAMES = ['switchboard', 'payments-api', 'web-dashboard', 'infra', 'mobile-app', 'data-pipeline', 'auth-service', 'docs-site', 'cli-tools', 'ml-models'];

export class Corpus {
  private readonly r: () => number;
  private readonly cumulative: Float64Array;
  readonly projects: string[];
  readonly agents = AGENTS;

  constructor(seed = 42) {
    this.r = rng(seed);
    // Zipf weights over the vocabulary.
    this.cumulative = new Float64Array(WORDS.length);
    let sum = 0;
    for (let i = 0; i < WORDS.length; i++) this.cumulative[i] = sum += 1 / (i + 1) ** 0.9;
    for (let i = 0; i < WORDS.length; i++) this.cumulative[i]! /= sum;
    this.projects = [];
    for (const user of ['alice', 'bob', 'carol', 'dave']) for (const p of PROJECT_NAMES) this.projects.push(`/home/${user}/code/${p}`);
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.r() * (max - min + 1));
  }
  pick<T>(a: readonly T[]): T {
    return a[Math.floor(this.r() * a.length)]!;
  }
  chance(p: number): boolean {
    return this.r() < p;
  }
  word(): string {
    const x = this.r();
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return WORDS[lo]!;
  }
  ident(): string {
    return this.pick(VERBS) + this.pick(NOUNS) + (this.chance(0.3) ? this.pick(NOUNS) : '');
  }
  path(cwd: string): string {
    return `${cwd}/src/${this.pick(AREAS)}/${this.pick(NAMES)}.${this.pick(EXTS)}`;
  }
  errorCode(): string {
    return this.pick(ERRORS);
  }
  sentence(cwd: string): string {
    const n = this.int(6, 18);
    const out: string[] = [];
    for (let i = 0; i < n; i++) {
      const x = this.r();
      if (x < 0.06) out.push(`\`${this.ident()}\``);
      else if (x < 0.09) out.push(this.path(cwd).slice(cwd.length + 1));
      else if (x < 0.095) out.push(this.errorCode());
      else out.push(this.word());
    }
    const s = out.join(' ');
    return `${s[0]!.toUpperCase()}${s.slice(1)}.`;
  }
  paragraph(cwd: string, min: number, max: number): string {
    const n = this.int(min, max);
    const out: string[] = [];
    for (let i = 0; i < n; i++) out.push(this.sentence(cwd));
    return out.join(' ');
  }
  code(lines: number): string {
    const out: string[] = [];
    let indent = 0;
    for (let i = 0; i < lines; i++) {
      const x = this.r();
      if (x < 0.15 && indent < 4) {
        out.push(`${'  '.repeat(indent)}export function ${this.ident()}(${this.word()}: ${this.pick(NOUNS)}) {`);
        indent++;
      } else if (x < 0.3 && indent > 0) {
        indent--;
        out.push(`${'  '.repeat(indent)}}`);
      } else if (x < 0.5) out.push(`${'  '.repeat(indent)}const ${this.word()}${this.pick(NOUNS)} = await ${this.ident()}(${this.word()});`);
      else if (x < 0.6) out.push(`${'  '.repeat(indent)}// ${this.sentence('')}`);
      else if (x < 0.75) out.push(`${'  '.repeat(indent)}if (!${this.word()}) throw new Error('${this.word()} ${this.word()} ${this.word()}');`);
      else out.push(`${'  '.repeat(indent)}return ${this.ident()}(${this.word()}, ${this.word()});`);
    }
    return out.join('\n');
  }
  terminalOutput(cwd: string): string {
    const lines: string[] = [];
    const n = this.int(5, 40);
    for (let i = 0; i < n; i++) {
      const x = this.r();
      if (x < 0.3) lines.push(` ✓ ${this.path(cwd).slice(cwd.length + 1)} (${this.int(1, 40)} tests) ${this.int(3, 900)}ms`);
      else if (x < 0.4) lines.push(` ✗ ${this.word()} ${this.word()} > ${this.sentence(cwd)}`);
      else if (x < 0.45) lines.push(`Error: ${this.errorCode()} ${this.sentence(cwd)}`);
      else if (x < 0.55) lines.push(`    at ${this.ident()} (${this.path(cwd)}:${this.int(1, 400)}:${this.int(1, 80)})`);
      else lines.push(this.sentence(cwd));
    }
    return `${lines.join('\n')}\n`;
  }
  agent(): string {
    return this.pick(AGENTS);
  }
  project(): string {
    // A few projects get most of the work.
    return this.projects[Math.min(this.projects.length - 1, Math.floor(this.r() ** 2 * this.projects.length))]!;
  }
}

const j = (o: unknown): string => JSON.stringify(o);

/**
 * One session of roughly `budget` messages. Timestamps start at createdAt and advance 0.2-4 s per message
 * (minutes between turns).
 */
export function generateSession(c: Corpus, id: string, createdAt: number, budget: number): SessionSpec {
  const agentId = c.agent();
  const cwd = c.project();
  const acpSid = `acp-${id}`;
  const messages: WireMessage[] = [];
  let ts = createdAt;
  let rpc = 1;
  let agentRpc = 1;
  const push = (direction: 'c2a' | 'a2c', method: string | null, body: unknown): void => {
    ts += c.int(200, 4000);
    messages.push({ direction, method, body: j(body), ts });
  };
  const update = (u: Record<string, unknown>): void => push('a2c', 'session/update', { jsonrpc: '2.0', method: 'session/update', params: { sessionId: acpSid, update: u } });
  const stream = (kind: string, text: string): void => {
    let i = 0;
    while (i < text.length) {
      const n = c.int(8, 48);
      update({ sessionUpdate: kind, content: { type: 'text', text: text.slice(i, i + n) } });
      i += n;
    }
  };
  push('c2a', 'session/new', { jsonrpc: '2.0', id: rpc, method: 'session/new', params: { cwd, mcpServers: [] } });
  push('a2c', null, { jsonrpc: '2.0', id: rpc++, result: { sessionId: acpSid } });
  let turnNo = 0;
  while (messages.length < budget) {
    turnNo++;
    ts += c.int(20_000, 600_000);
    const promptId = rpc++;
    const prompt: unknown[] = [{ type: 'text', text: c.paragraph(cwd, 1, 4) }];
    if (c.chance(0.2)) {
      const p = c.path(cwd);
      prompt.push({ type: 'resource_link', uri: `file://${p}`, name: p.split('/').pop() });
    }
    push('c2a', 'session/prompt', { jsonrpc: '2.0', id: promptId, method: 'session/prompt', params: { sessionId: acpSid, prompt } });
    if (turnNo === 1 && c.chance(0.5)) update({ sessionUpdate: 'session_info_update', title: c.sentence(cwd).slice(0, 60) });
    if (c.chance(0.3)) stream('agent_thought_chunk', c.paragraph(cwd, 1, 3));
    stream('agent_message_chunk', c.paragraph(cwd, 1, 4));
    const tools = c.int(0, 4);
    for (let t = 0; t < tools; t++) {
      const toolCallId = `toolu_${id}_${turnNo}_${t}`;
      const kind = c.pick(['read', 'edit', 'execute', 'execute', 'edit', 'search']);
      const path = c.path(cwd);
      if (kind === 'read' || kind === 'search') {
        update({ sessionUpdate: 'tool_call', toolCallId, title: kind === 'read' ? `Read ${path}` : `grep "${c.word()}" ${cwd}/src`, kind, status: 'pending', locations: [{ path }] });
        update({ sessionUpdate: 'tool_call_update', toolCallId, status: 'completed', content: [{ type: 'content', content: { type: 'text', text: c.code(c.int(5, 25)) } }] });
      } else if (kind === 'edit') {
        const oldText = c.code(c.int(10, 60));
        const lines = oldText.split('\n');
        for (let k = 0; k < c.int(1, 5); k++) lines.splice(c.int(0, lines.length), c.int(0, 2), c.code(c.int(1, 4)));
        const newText = lines.join('\n');
        update({ sessionUpdate: 'tool_call', toolCallId, title: `Edit ${path}`, kind, status: 'pending', locations: [{ path }] });
        push('a2c', 'session/request_permission', {
          jsonrpc: '2.0',
          id: agentRpc,
          method: 'session/request_permission',
          params: { sessionId: acpSid, toolCall: { toolCallId }, options: [{ optionId: 'allow', name: 'Allow', kind: 'allow_once' }] },
        });
        push('c2a', null, { jsonrpc: '2.0', id: agentRpc++, result: { outcome: { outcome: 'selected', optionId: 'allow' } } });
        if (c.chance(0.3)) {
          push('a2c', 'fs/write_text_file', { jsonrpc: '2.0', id: agentRpc, method: 'fs/write_text_file', params: { sessionId: acpSid, path, content: newText } });
          push('c2a', null, { jsonrpc: '2.0', id: agentRpc++, result: null });
        }
        update({ sessionUpdate: 'tool_call_update', toolCallId, status: 'completed', content: [{ type: 'diff', path, oldText, newText }] });
      } else {
        const command = c.pick(['npm test', 'npm run build', 'cargo test', 'pytest -x', 'git status', 'npx tsc --noEmit', 'go test ./...', 'docker compose up -d']);
        const terminalId = `term-${agentRpc}`;
        update({ sessionUpdate: 'tool_call', toolCallId, title: `\`${command}\``, kind, status: 'pending', rawInput: { command } });
        push('a2c', 'terminal/create', { jsonrpc: '2.0', id: agentRpc, method: 'terminal/create', params: { sessionId: acpSid, command, outputByteLimit: 32000 } });
        push('c2a', null, { jsonrpc: '2.0', id: agentRpc++, result: { terminalId } });
        update({ sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress', content: [{ type: 'terminal', terminalId }] });
        push('a2c', 'terminal/wait_for_exit', { jsonrpc: '2.0', id: agentRpc, method: 'terminal/wait_for_exit', params: { sessionId: acpSid, terminalId } });
        const exitCode = c.chance(0.3) ? 1 : 0;
        push('c2a', null, { jsonrpc: '2.0', id: agentRpc++, result: { exitCode, signal: null } });
        push('a2c', 'terminal/output', { jsonrpc: '2.0', id: agentRpc, method: 'terminal/output', params: { sessionId: acpSid, terminalId } });
        push('c2a', null, { jsonrpc: '2.0', id: agentRpc++, result: { output: c.terminalOutput(cwd), truncated: false, exitStatus: { exitCode, signal: null } } });
        push('a2c', 'terminal/release', { jsonrpc: '2.0', id: agentRpc, method: 'terminal/release', params: { sessionId: acpSid, terminalId } });
        push('c2a', null, { jsonrpc: '2.0', id: agentRpc++, result: {} });
        update({ sessionUpdate: 'tool_call_update', toolCallId, status: exitCode === 0 ? 'completed' : 'failed' });
      }
      if (c.chance(0.6)) stream('agent_message_chunk', c.paragraph(cwd, 1, 2));
    }
    if (c.chance(0.1)) {
      update({
        sessionUpdate: 'plan',
        entries: [0, 1, 2].map(() => ({ content: c.sentence(cwd), status: c.pick(['pending', 'completed', 'in_progress']), priority: 'medium' })),
      });
    }
    update({ sessionUpdate: 'usage_update', used: c.int(1000, 150_000), size: 200_000 });
    const x = c.int(0, 99);
    if (x < 2) push('a2c', null, { jsonrpc: '2.0', id: promptId, error: { code: -32603, message: `Internal error: ${c.errorCode()} ${c.sentence(cwd)}` } });
    else push('a2c', null, { jsonrpc: '2.0', id: promptId, result: { stopReason: x < 4 ? 'refusal' : x < 6 ? 'cancelled' : x < 7 ? 'max_tokens' : 'end_turn' } });
  }
  return { id, agentId, cwd, createdAt, messages };
}

/** 50 mixed queries: common and rare words, prefixes being typed, phrases, identifiers, paths, filters. */
/**
 * The sessions of a generated history, one at a time (one session in memory): `sessions` sessions of
 * log-normal sizes around the mean (at least 8 messages), started over the year before `now`, `events`
 * messages in all. A session's last turn may be cut short (as when the app closes mid-turn) to keep the
 * total exact.
 */
export function* historySessions(c: Corpus, sessions: number, events: number, now: number): Generator<{ index: number; id: string; spec: SessionSpec; messages: WireMessage[] }> {
  const r = rng(7);
  const year = 365 * 86_400_000;
  const weights = Array.from({ length: sessions }, () => Math.exp(0.8 * Math.sqrt(-2 * Math.log(r() || 1e-9)) * Math.cos(2 * Math.PI * r())));
  const wsum = weights.reduce((a, b) => a + b, 0);
  const starts = Array.from({ length: sessions }, () => now - Math.floor(r() * year)).sort((a, b) => a - b);
  let total = 0;
  for (let i = 0; i < sessions && total < events; i++) {
    const remaining = sessions - i;
    const budget = i === sessions - 1 ? events - total : Math.max(8, Math.min(events - total - (remaining - 1) * 8, Math.round((weights[i]! / wsum) * events)));
    const id = `s${String(i).padStart(5, '0')}`;
    const spec = generateSession(c, id, starts[i]!, budget);
    const messages = spec.messages.slice(0, Math.max(1, Math.min(budget, events - total)));
    total += messages.length;
    yield { index: i, id, spec, messages };
  }
}

export function benchQueries(c: Corpus, now: number): Array<{ query: string; filters?: Record<string, unknown> }> {
  const q = (query: string, filters?: Record<string, unknown>) => ({ query, ...(filters ? { filters } : {}) });
  const month = 30 * 86_400_000;
  return [
    q('auth'),
    q('token refresh'),
    q('auth fi'),
    q('refr tok'),
    q('datab migr'),
    q('"connection pool"'),
    q('validateToken'),
    q('useSession'),
    q('src/auth/login.ts'),
    q('login.ts'),
    q('ECONNRESET'),
    q('E11000'),
    q('SIGSEGV crash'),
    q('flaky snapshot'),
    q('deadlock mutex'),
    q('webpack bundle'),
    q('kubernetes helm chart'),
    q('jwt expired'),
    q('cors header'),
    q('npm test'),
    q('cargo test'),
    q('docker compose'),
    q('TS2345'),
    q('refreshSessionToken'),
    q('payment webhook'),
    q('invoice'),
    q('billing.ts'),
    q('the'),
    q('fix bug'),
    q('why does the build fail'),
    q('graceful shutdown signal'),
    q('websocket reconnect'),
    q('timezone locale'),
    q('xyzzy nonexistent'),
    q('pa'),
    q('redis cache', { agentIds: ['claude-code'] }),
    q('migration', { projects: [c.projects[0]!] }),
    q('auth', { from: now - month }),
    q('error', { failedOnly: true }),
    q('timeout retry', { agentIds: ['gemini-cli', 'qwen-code'] }),
    q('schema valid'),
    q('provider context'),
    q('ETIMEDOUT'),
    q('parseConfig'),
    q('modal dialog button'),
    q('"stack trace"'),
    q('rate'),
    q('memory leak'),
    q('src/db'),
    q('async await promise'),
  ];
}

// A fake LLM HTTP server on 127.0.0.1 speaking Anthropic Messages, Gemini and OpenAI Chat Completions, driven by
// scripts (see script.ts) or rule functions, logging every request. Plain Node: no test-framework imports.

import { appendFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { anthropicCountTokens, parseAnthropic, renderAnthropic } from './formats/anthropic.js';
import { asRecord, type ParsedBody, type ReplySink } from './formats/common.js';
import { geminiCountTokens, parseGemini, renderGemini } from './formats/gemini.js';
import { parseOpenAi, renderOpenAi } from './formats/openai.js';
import { replyFromScript, sampleFromSchema, stepsFromPrompt } from './script.js';
import type {
  ConvPart,
  LlmReply,
  LlmRequest,
  LlmRule,
  LoggedRequest,
  RequestKind,
  ScriptStep,
  WireFormat,
} from './types.js';

export interface FakeLlmOptions {
  /** Append one JSON line per finished request to this file (also: env FAKE_LLM_LOG). */
  logFile?: string;
  /** Reply to side calls without tools and without a response schema (titles, summaries). */
  sideText?: string;
  /** The address it listens on (default 127.0.0.1; a container reaches this machine by another). */
  host?: string;
}

export interface WaitOptions {
  timeoutMs?: number;
}

export interface FakeLlm {
  /** Base URL, e.g. http://127.0.0.1:43123 (no trailing slash). */
  readonly url: string;
  readonly port: number;
  /** Script played for every prompt that no `when(...)` script matches. */
  setScript(steps: ScriptStep[] | undefined): void;
  /** Script played for prompts whose text contains `match` (string) or matches it (RegExp); latest wins. */
  when(match: string | RegExp, steps: ScriptStep[]): void;
  /** Rules run first, in the order added; a rule returning undefined falls through. */
  addRule(rule: LlmRule): void;
  /** Forget scripts, rules and the request log. */
  reset(): void;
  /** Copy of the request log, oldest first. */
  requests(): LoggedRequest[];
  /** Requests that carried tools (the agent's own turns), oldest first. */
  turnRequests(): LoggedRequest[];
  /** Resolves with the first logged request (past or future) satisfying `pred`; rejects after timeoutMs. */
  waitForRequest(pred: (r: LoggedRequest) => boolean, opts?: WaitOptions): Promise<LoggedRequest>;
  /** Human-readable log for failure messages. */
  describeLog(): string;
  close(): Promise<void>;
}

interface Route {
  format: WireFormat | 'unknown';
  kind: 'generate' | 'count_tokens' | 'models' | 'unknown';
  model?: string;
  stream?: boolean;
}

function route(method: string, url: URL): Route {
  const path = url.pathname.replace(/\/+$/, '');
  if (method === 'POST' && /\/messages$/.test(path)) return { format: 'anthropic', kind: 'generate' };
  if (method === 'POST' && /\/messages\/count_tokens$/.test(path)) return { format: 'anthropic', kind: 'count_tokens' };
  const gem = /\/models\/([^/:]+):(streamGenerateContent|generateContent|countTokens)$/.exec(path);
  if (method === 'POST' && gem) {
    const model = decodeURIComponent(gem[1]!);
    if (gem[2] === 'countTokens') return { format: 'gemini', kind: 'count_tokens', model };
    return { format: 'gemini', kind: 'generate', model, stream: gem[2] === 'streamGenerateContent' };
  }
  if (method === 'POST' && /\/chat\/completions$/.test(path)) return { format: 'openai', kind: 'generate' };
  if (method === 'GET' && /\/models$/.test(path)) return { format: 'unknown', kind: 'models' };
  return { format: 'unknown', kind: 'unknown' };
}

function promptAndResults(messages: LlmRequest['messages']): Pick<LlmRequest, 'promptText' | 'toolResults'> {
  let promptIndex = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'user') continue;
    const hasText = m.parts.some((p) => p.type === 'text' && p.text.trim() !== '');
    const hasResult = m.parts.some((p) => p.type === 'tool_result');
    if (hasText && !hasResult) {
      promptIndex = i;
      break;
    }
  }
  const promptText =
    promptIndex < 0
      ? ''
      : messages[promptIndex]!.parts.map((p) => (p.type === 'text' ? p.text : '')).join('\n');
  const toolResults: LlmRequest['toolResults'] = [];
  for (const m of messages.slice(promptIndex + 1)) {
    for (const p of m.parts) if (p.type === 'tool_result') toolResults.push(p as Extract<ConvPart, { type: 'tool_result' }>);
  }
  return { promptText, toolResults };
}

/**
 * Agents' own background calls that carry tools but are not the user's turn (they must not play the script):
 * Qwen Code's next-prompt suggestion and managed-memory extraction subagent, both sent after a turn ends.
 */
const SIDE_CALL_MARKERS: RegExp[] = [/^\s*\[SUGGESTION MODE/, /managed memory extraction subagent/];

export function isKnownSideCall(req: Pick<LlmRequest, 'promptText' | 'system'>): boolean {
  return SIDE_CALL_MARKERS.some((re) => re.test(req.promptText) || re.test(req.system.slice(0, 500)));
}

function describeReply(reply: LlmReply): string {
  switch (reply.type) {
    case 'text':
      return `text ${JSON.stringify(reply.text.length > 60 ? reply.text.slice(0, 60) + '…' : reply.text)}${reply.chunkDelayMs ? ` (slow, ${reply.chunkDelayMs} ms/chunk)` : ''}`;
    case 'tool_call':
      return `tool_call ${reply.name} ${JSON.stringify(reply.args).slice(0, 120)}`;
    case 'json':
      return `json ${JSON.stringify(reply.value).slice(0, 120)}`;
    case 'error':
      return `error ${reply.status} ${reply.message}`;
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startFakeLlm(options: FakeLlmOptions = {}): Promise<FakeLlm> {
  const logFile = options.logFile ?? process.env['FAKE_LLM_LOG'];
  const sideText = options.sideText ?? 'Fake title';
  const started = Date.now();
  let defaultScript: ScriptStep[] | undefined;
  let scripts: Array<{ match: string | RegExp; steps: ScriptStep[] }> = [];
  let rules: LlmRule[] = [];
  let log: LoggedRequest[] = [];
  let seq = 0;
  const listeners = new Set<() => void>();
  const notify = () => {
    for (const l of [...listeners]) l();
  };
  const sockets = new Set<import('node:net').Socket>();

  function decide(req: LlmRequest): { reply: LlmReply; kind: RequestKind; problem?: string } {
    const kind: RequestKind = req.tools.length > 0 && !isKnownSideCall(req) ? 'turn' : 'side';
    for (const rule of rules) {
      const reply = rule(req);
      if (reply) return { reply, kind };
    }
    if (kind === 'side') {
      if (req.responseSchema) return { reply: { type: 'json', value: sampleFromSchema(req.responseSchema) }, kind };
      return { reply: { type: 'text', text: sideText }, kind };
    }
    const matched = [...scripts].reverse().find((s) =>
      typeof s.match === 'string' ? req.promptText.includes(s.match) : s.match.test(req.promptText),
    );
    const steps = matched?.steps ?? stepsFromPrompt(req.promptText) ?? defaultScript;
    if (steps) return { ...replyFromScript(req, steps), kind };
    return { reply: { type: 'text', text: 'fake-llm: hello from the fake LLM.' }, kind };
  }

  async function handle(httpReq: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(httpReq.url ?? '/', 'http://127.0.0.1');
    const method = httpReq.method ?? 'GET';
    const r = route(method, url);
    const raw = await readBody(httpReq);
    const entry: LoggedRequest = {
      seq: ++seq,
      at: Date.now() - started,
      method,
      path: url.pathname + url.search,
      format: r.format,
      kind: 'other',
      toolNames: [],
      reply: '',
      status: 0,
      aborted: false,
      done: false,
      body: raw,
      headers: { ...httpReq.headers },
      problems: [],
    };
    let body: Record<string, unknown> = {};
    if (raw.trim() !== '') {
      try {
        body = asRecord(JSON.parse(raw));
        entry.body = body;
      } catch {
        entry.problems.push('body is not JSON');
      }
    }
    log.push(entry);

    let ended = false;
    let closed = false;
    const wakers = new Set<() => void>();
    res.on('close', () => {
      closed = true;
      if (!ended) entry.aborted = true;
      for (const w of wakers) w();
      finish();
    });
    const finish = () => {
      if (entry.done) return;
      entry.done = true;
      if (logFile) {
        try {
          appendFileSync(logFile, JSON.stringify(entry) + '\n');
        } catch {
          // debugging aid only
        }
      }
      notify();
    };
    const sink: ReplySink = {
      json(status, payload) {
        entry.status = status;
        ended = true;
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(payload));
      },
      startSse() {
        entry.status = 200;
        res.writeHead(200, {
          'content-type': 'text/event-stream',
          'cache-control': 'no-cache',
          connection: 'keep-alive',
        });
      },
      sse(frame) {
        if (!closed) res.write(frame);
      },
      end() {
        ended = true;
        res.end();
      },
      closed: () => closed,
      sleep: (ms) =>
        new Promise<void>((resolve) => {
          if (closed) return resolve();
          const done = () => {
            clearTimeout(t);
            wakers.delete(done);
            resolve();
          };
          const t = setTimeout(done, ms);
          wakers.add(done);
        }),
    };

    if (r.kind === 'unknown') {
      entry.reply = '404';
      entry.problems.push(`unknown endpoint ${method} ${url.pathname}`);
      notify();
      sink.json(404, { error: { type: 'not_found_error', message: `fake-llm: no route for ${method} ${url.pathname}` } });
      return;
    }
    if (r.kind === 'models') {
      entry.reply = 'model list';
      notify();
      sink.json(200, {
        object: 'list',
        data: [{ id: 'fake-model', object: 'model', type: 'model', display_name: 'Fake model', owned_by: 'fake' }],
        models: [{ name: 'models/fake-model', displayName: 'Fake model' }],
        has_more: false,
      });
      return;
    }
    if (r.kind === 'count_tokens') {
      entry.kind = 'count_tokens';
      entry.reply = 'token count';
      notify();
      if (r.format === 'gemini') geminiCountTokens(sink);
      else anthropicCountTokens(sink);
      return;
    }

    let parsed: ParsedBody;
    if (r.format === 'anthropic') parsed = parseAnthropic(body);
    else if (r.format === 'gemini') parsed = parseGemini(body, r.model ?? '', r.stream ?? false);
    else parsed = parseOpenAi(body);
    const llmReq: LlmRequest = { format: r.format as WireFormat, ...parsed, ...promptAndResults(parsed.messages) };
    let decision: ReturnType<typeof decide>;
    try {
      decision = decide(llmReq);
    } catch (err) {
      decision = {
        reply: { type: 'error', status: 500, message: `fake-llm rule threw: ${String(err)}` },
        kind: llmReq.tools.length > 0 ? 'turn' : 'side',
        problem: `rule threw: ${String(err)}`,
      };
    }
    Object.assign(entry, {
      kind: decision.kind,
      model: llmReq.model,
      stream: llmReq.stream,
      toolNames: llmReq.tools.map((t) => t.name),
      promptText: llmReq.promptText,
      step: llmReq.toolResults.length,
      reply: describeReply(decision.reply),
    });
    if (decision.problem) entry.problems.push(decision.problem);
    notify();
    const model = llmReq.model || 'fake-model';
    if (r.format === 'anthropic') await renderAnthropic(model, llmReq.stream, decision.reply, sink);
    else if (r.format === 'gemini') await renderGemini(model, llmReq.stream, decision.reply, sink);
    else await renderOpenAi(model, llmReq.stream, decision.reply, sink);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `fake-llm internal error: ${String(err)}` } }));
      } else {
        res.destroy();
      }
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, options.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${options.host ?? '127.0.0.1'}:${port}`;

  const describe = (r: LoggedRequest) =>
    `#${r.seq} +${r.at}ms ${r.method} ${r.path} [${r.kind}${r.model ? ' ' + r.model : ''}${r.stream ? ' stream' : ''}] ` +
    `tools=${r.toolNames.length} step=${r.step ?? '-'} -> ${r.reply}${r.aborted ? ' (aborted)' : ''}` +
    (r.problems.length ? ` PROBLEMS: ${r.problems.join('; ')}` : '');

  return {
    url,
    port,
    setScript(steps) {
      defaultScript = steps;
    },
    when(match, steps) {
      scripts.push({ match, steps });
    },
    addRule(rule) {
      rules.push(rule);
    },
    reset() {
      defaultScript = undefined;
      scripts = [];
      rules = [];
      log = [];
    },
    requests: () => [...log],
    turnRequests: () => log.filter((r) => r.kind === 'turn'),
    waitForRequest(pred, opts = {}) {
      const timeoutMs = opts.timeoutMs ?? 60_000;
      return new Promise<LoggedRequest>((resolve, reject) => {
        const check = () => {
          const hit = log.find(pred);
          if (!hit) return false;
          cleanup();
          resolve(hit);
          return true;
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`fake-llm: no matching request within ${timeoutMs} ms. Log:\n${log.map(describe).join('\n')}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(listener);
        };
        const listener = () => {
          check();
        };
        if (!check()) listeners.add(listener);
      });
    },
    describeLog: () => log.map(describe).join('\n'),
    close() {
      return new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      });
    },
  };
}

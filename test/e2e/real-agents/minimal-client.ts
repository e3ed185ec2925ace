// A deliberately small ACP client for the real-agent tests: fs and terminal handlers, permission answers chosen
// by option kind, and an ordered log of everything the agent did. Switchboard's real client lives in
// src/main/core/acp/; this one only proves the fake LLM + real agent harness works end to end.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve } from 'node:path';
import {
  client,
  RequestError,
  type ClientApp,
  type CreateTerminalRequest,
  type CreateTerminalResponse,
  type KillTerminalRequest,
  type KillTerminalResponse,
  type PermissionOptionKind,
  type ReadTextFileRequest,
  type ReadTextFileResponse,
  type ReleaseTerminalRequest,
  type ReleaseTerminalResponse,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type SessionUpdate,
  type TerminalOutputRequest,
  type TerminalOutputResponse,
  type WaitForTerminalExitRequest,
  type WaitForTerminalExitResponse,
  type WriteTextFileRequest,
  type WriteTextFileResponse,
} from '@agentclientprotocol/sdk';

export type ClientEvent =
  | { type: 'update'; update: SessionUpdate }
  | { type: 'permission'; request: RequestPermissionRequest; answer: string }
  | { type: 'fs_read'; path: string; result: 'content' | 'missing-as-empty' | 'error' }
  | { type: 'fs_write'; path: string; content: string }
  | { type: 'terminal_create'; terminalId: string; command: string; args: string[] }
  | { type: 'terminal_output'; terminalId: string; output: string }
  | { type: 'terminal_release'; terminalId: string }
  | { type: 'unknown_request'; method: string };

export interface MinimalClientOptions {
  /** Session roots: fs requests outside them are refused. */
  roots: string[];
  /** Which kind of option to pick for a permission request; 'cancel' answers outcome cancelled. */
  choosePermission?: (req: RequestPermissionRequest) => PermissionOptionKind | 'cancel';
  /** Gemini CLI 0.61 compatibility: answer a read of a missing file inside the roots with empty content. */
  missingFileAsEmpty?: boolean;
}

interface Terminal {
  child: ChildProcess;
  output: string;
  truncated: boolean;
  limit: number;
  exit: Promise<{ exitCode: number | null; signal: string | null }>;
  exitStatus?: { exitCode: number | null; signal: string | null };
}

/** Keeps at most `limit` bytes of the tail, cut at a character boundary. */
function keepTail(text: string, limit: number): { text: string; truncated: boolean } {
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= limit) return { text, truncated: false };
  let start = buf.length - limit;
  while (start < buf.length && (buf[start]! & 0xc0) === 0x80) start++;
  return { text: buf.subarray(start).toString('utf8'), truncated: true };
}

export class MinimalClient {
  readonly events: ClientEvent[] = [];
  private readonly terminals = new Map<string, Terminal>();
  private nextTerminal = 1;
  private readonly waiters = new Set<() => void>();
  private readonly choose: (req: RequestPermissionRequest) => PermissionOptionKind | 'cancel';

  constructor(private readonly opts: MinimalClientOptions) {
    this.choose = opts.choosePermission ?? (() => 'allow_once');
  }

  onUpdate(params: SessionNotification): void {
    this.push({ type: 'update', update: params.update });
  }

  requestPermission(params: RequestPermissionRequest): RequestPermissionResponse {
    const kind = this.choose(params);
    const option = kind === 'cancel' ? undefined : params.options.find((o) => o.kind === kind);
    const answer = option ? option.optionId : 'cancelled';
    this.push({ type: 'permission', request: params, answer });
    return option
      ? { outcome: { outcome: 'selected', optionId: option.optionId } }
      : { outcome: { outcome: 'cancelled' } };
  }

  async readTextFile(params: ReadTextFileRequest): Promise<ReadTextFileResponse> {
    const path = this.checkPath(params.path);
    if (!existsSync(path)) {
      if (this.opts.missingFileAsEmpty) {
        this.push({ type: 'fs_read', path, result: 'missing-as-empty' });
        return { content: '' };
      }
      this.push({ type: 'fs_read', path, result: 'error' });
      throw new RequestError(-32002, `Resource not found: ${path}`, { uri: path });
    }
    let content = await readFile(path, 'utf8');
    if (params.line != null || params.limit != null) {
      const lines = content.split('\n');
      const from = Math.max(0, (params.line ?? 1) - 1);
      content = lines.slice(from, params.limit != null ? from + params.limit : undefined).join('\n');
    }
    this.push({ type: 'fs_read', path, result: 'content' });
    return { content };
  }

  async writeTextFile(params: WriteTextFileRequest): Promise<WriteTextFileResponse> {
    const path = this.checkPath(params.path);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, params.content, 'utf8');
    this.push({ type: 'fs_write', path, content: params.content });
    return {};
  }

  createTerminal(params: CreateTerminalRequest): CreateTerminalResponse {
    const terminalId = `term-${this.nextTerminal++}`;
    const args = params.args ?? [];
    const env = { ...process.env };
    for (const v of params.env ?? []) env[v.name] = v.value;
    const cwd = params.cwd ?? this.opts.roots[0];
    // A command without args is a shell command line (Claude Code sends `cat x && echo y`).
    const child =
      args.length === 0
        ? spawn('/bin/sh', ['-c', params.command], { cwd, env, detached: true })
        : spawn(params.command, args, { cwd, env, detached: true });
    const term: Terminal = {
      child,
      output: '',
      truncated: false,
      limit: params.outputByteLimit ?? 1_000_000,
      exit: new Promise((resolveExit) => {
        child.once('close', (code, signal) => {
          term.exitStatus = { exitCode: code, signal };
          resolveExit(term.exitStatus);
        });
        child.once('error', () => {
          term.exitStatus = { exitCode: 127, signal: null };
          resolveExit(term.exitStatus);
        });
      }),
    };
    const onData = (chunk: Buffer) => {
      const kept = keepTail(term.output + chunk.toString('utf8'), term.limit);
      term.output = kept.text;
      term.truncated ||= kept.truncated;
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    this.terminals.set(terminalId, term);
    this.push({ type: 'terminal_create', terminalId, command: params.command, args });
    return { terminalId };
  }

  terminalOutput(params: TerminalOutputRequest): TerminalOutputResponse {
    const term = this.terminal(params.terminalId);
    this.push({ type: 'terminal_output', terminalId: params.terminalId, output: term.output });
    return { output: term.output, truncated: term.truncated, exitStatus: term.exitStatus ?? null };
  }

  waitForTerminalExit(params: WaitForTerminalExitRequest): Promise<WaitForTerminalExitResponse> {
    return this.terminal(params.terminalId).exit;
  }

  killTerminalCommand(params: KillTerminalRequest): KillTerminalResponse {
    this.killTerminal(this.terminal(params.terminalId));
    return {};
  }

  releaseTerminal(params: ReleaseTerminalRequest): ReleaseTerminalResponse {
    const term = this.terminal(params.terminalId);
    this.killTerminal(term);
    this.terminals.delete(params.terminalId);
    this.push({ type: 'terminal_release', terminalId: params.terminalId });
    return {};
  }

  noteUnknownRequest(method: string): void {
    this.push({ type: 'unknown_request', method });
  }

  private push(e: ClientEvent): void {
    this.events.push(e);
    for (const w of [...this.waiters]) w();
  }

  private checkPath(path: string): string {
    if (!isAbsolute(path)) throw RequestError.invalidParams({ path }, 'path must be absolute');
    const abs = resolve(path);
    const inside = this.opts.roots.some((root) => {
      const rel = relative(root, abs);
      return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
    });
    if (!inside) throw new RequestError(-32602, `path outside the session roots: ${abs}`);
    return abs;
  }

  private terminal(id: string): Terminal {
    const term = this.terminals.get(id);
    if (!term) throw new RequestError(-32002, `unknown terminal ${id}`);
    return term;
  }

  private killTerminal(term: Terminal): void {
    if (term.exitStatus || term.child.pid === undefined) return;
    try {
      process.kill(-term.child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }

  updates(): SessionUpdate[] {
    return this.events.flatMap((e) => (e.type === 'update' ? [e.update] : []));
  }

  /** Text the agent streamed as agent_message_chunk, concatenated. */
  agentText(): string {
    return this.updates()
      .map((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? u.content.text : ''))
      .join('');
  }

  /**
   * Tool calls merged by id: `tool_call` and `tool_call_update` are upserts (an update may arrive for an
   * unannounced id and the same tool_call may come twice); later non-null fields win.
   */
  toolCalls(): Array<Record<string, unknown> & { toolCallId: string }> {
    const byId = new Map<string, Record<string, unknown> & { toolCallId: string }>();
    for (const u of this.updates()) {
      if (u.sessionUpdate !== 'tool_call' && u.sessionUpdate !== 'tool_call_update') continue;
      const prev = byId.get(u.toolCallId) ?? { toolCallId: u.toolCallId };
      const next: Record<string, unknown> & { toolCallId: string } = { ...prev };
      for (const [k, v] of Object.entries(u)) if (v !== undefined && v !== null && k !== 'sessionUpdate') next[k] = v;
      byId.set(u.toolCallId, next);
    }
    return [...byId.values()];
  }

  /** Resolves once `pred` holds for the event log; rejects after timeoutMs with the log in the message. */
  waitFor(pred: (events: ClientEvent[]) => boolean, timeoutMs = 60_000, what = 'condition'): Promise<void> {
    return new Promise((resolveWait, reject) => {
      const check = () => {
        if (!pred(this.events)) return;
        cleanup();
        resolveWait();
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}; events: ${this.events.map((e) => (e.type === 'update' ? `update:${e.update.sessionUpdate}` : e.type)).join(', ')}`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  /** Kills any terminal the agent left behind. */
  dispose(): void {
    for (const term of this.terminals.values()) this.killTerminal(term);
    this.terminals.clear();
  }
}

/**
 * One ClientApp for a connection, routing every agent request and update to the MinimalClient of the session
 * it names (`lookup` returns undefined for an unknown session: the request then fails with -32602).
 */
export function routingClientApp(lookup: (sessionId: string) => MinimalClient | undefined): ClientApp {
  const to = (sessionId: string): MinimalClient => {
    const c = lookup(sessionId);
    if (!c) throw new RequestError(-32602, `unknown session ${sessionId}`);
    return c;
  };
  return client({ name: 'switchboard-real-agent-test' })
    .onNotification('session/update', ({ params }) => {
      lookup(params.sessionId)?.onUpdate(params);
    })
    .onRequest('session/request_permission', ({ params }) => to(params.sessionId).requestPermission(params))
    .onRequest('fs/read_text_file', ({ params }) => to(params.sessionId).readTextFile(params))
    .onRequest('fs/write_text_file', ({ params }) => to(params.sessionId).writeTextFile(params))
    .onRequest('terminal/create', ({ params }) => to(params.sessionId).createTerminal(params))
    .onRequest('terminal/output', ({ params }) => to(params.sessionId).terminalOutput(params))
    .onRequest('terminal/wait_for_exit', ({ params }) => to(params.sessionId).waitForTerminalExit(params))
    .onRequest('terminal/kill', ({ params }) => to(params.sessionId).killTerminalCommand(params))
    .onRequest('terminal/release', ({ params }) => to(params.sessionId).releaseTerminal(params))
    .onRequest('*', ({ method, params }) => {
      const sessionId = (params as { sessionId?: unknown } | undefined)?.sessionId;
      if (typeof sessionId === 'string') lookup(sessionId)?.noteUnknownRequest(method);
      throw RequestError.methodNotFound(method);
    });
}

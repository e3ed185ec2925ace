import { RequestError } from '@agentclientprotocol/sdk';
import { existsSync, statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { IpcFailure } from '../../../shared/contract';
import type { EventBus } from '../base/event-bus';
import type { Disposable } from '../base/lifecycle';
import type { Host } from '../host/host';
import { sharesThisMachine } from '../../../shared/contract/hosts';
import { userShell } from '../platform/shell-env';
import { keepTail, type PtyExit, type PtyHost, type PtyProcess } from './pty-host';
import { signalName } from '../platform/signals';

const DEFAULT_LIMIT = 1_000_000;
/** Released terminals whose output stays viewable (a tool call shows it after release). */
const KEEP_RELEASED = 50;
const KILL_GRACE_MS = 2000;

export interface ExitStatus {
  exitCode: number | null;
  signal: string | null;
}

interface Terminal {
  id: string;
  kind: 'agent' | 'auth';
  sessionId: string | null;
  agentId: string;
  limit: number;
  proc: PtyProcess;
  released: boolean;
  /** Output kept after release. */
  final: { output: string; truncated: boolean; exit: ExitStatus | null } | null;
  onExit?: (exit: ExitStatus) => void;
}

const toStatus = (exit: PtyExit): ExitStatus => ({ exitCode: exit.exitCode, signal: signalName(exit.signal) });

export interface TerminalSpawn {
  /** Where it runs: the session's host (default: the PtyHost's). */
  host?: Host;
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd: string;
  outputByteLimit?: number | null;
  cols?: number;
  rows?: number;
}

/**
 * Terminals agents ask for (terminal/create …) and terminals running an agent's terminal-auth command.
 * Output streams to the renderer (agentTerminal.data) so a tool call's terminal can show live.
 */
export class AgentTerminals implements Disposable {
  private readonly terminals = new Map<string, Terminal>();
  private readonly releasedOrder: string[] = [];
  private counter = 0;

  constructor(
    private readonly ptys: PtyHost,
    private readonly bus: EventBus,
  ) {}

  private spawn(kind: Terminal['kind'], agentId: string, sessionId: string | null, spec: TerminalSpawn, onExit?: (exit: ExitStatus) => void): Terminal {
    // A remote host's folder is not on this disk: its pty refuses a missing one itself.
    const remote = spec.host !== undefined && !sharesThisMachine(spec.host.id);
    if (!isAbsolute(spec.cwd) || (!remote && (!existsSync(spec.cwd) || !statSync(spec.cwd).isDirectory()))) {
      throw new RequestError(-32602, `Invalid params: cwd is not an existing absolute folder: ${spec.cwd}`);
    }
    const limit = spec.outputByteLimit && spec.outputByteLimit > 0 ? Math.min(spec.outputByteLimit, 64 * 1024 * 1024) : DEFAULT_LIMIT;
    const id = `term-${++this.counter}-${Date.now().toString(36)}`;
    // Agents (Claude Code) send a whole shell line as `command` without args: run it through the shell.
    const shell = remote ? '/bin/sh' : userShell();
    const [command, args] = spec.args.length === 0 && /\s/.test(spec.command) ? [shell, ['-c', spec.command]] : [spec.command, spec.args];
    let proc: PtyProcess;
    try {
      proc = this.ptys.spawn(
        { ...(spec.host ? { host: spec.host } : {}), command, args, cwd: spec.cwd, env: spec.env, cols: spec.cols ?? 120, rows: spec.rows ?? 30, outputLimit: limit, drainOnExit: kind === 'agent' },
        {
          onData: (_pid, data) => this.bus.emit('agentTerminal.data', { terminalId: id, sessionId, data }),
          onExit: (_pid, exit) => {
            const status = toStatus(exit);
            this.bus.emit('agentTerminal.exit', { terminalId: id, sessionId, ...status });
            this.terminals.get(id)?.onExit?.(status);
          },
        },
      );
    } catch (e) {
      throw new RequestError(-32603, `Internal error: could not start ${spec.command}: ${(e as Error).message}`);
    }
    const t: Terminal = { id, kind, sessionId, agentId, limit, proc, released: false, final: null, onExit };
    this.terminals.set(id, t);
    return t;
  }

  create(agentId: string, sessionId: string, spec: TerminalSpawn): string {
    return this.spawn('agent', agentId, sessionId, spec).id;
  }

  createAuth(agentId: string, spec: TerminalSpawn, onExit: (exit: ExitStatus) => void): string {
    return this.spawn('auth', agentId, null, spec, onExit).id;
  }

  /** A terminal of this session that was not released (the agent may only use its own). */
  private live(id: string, sessionId: string): Terminal {
    const t = this.terminals.get(id);
    if (!t || t.kind !== 'agent' || t.sessionId !== sessionId || t.released) {
      throw new RequestError(-32002, `Resource not found: terminal ${String(id).slice(0, 100)}`, { terminalId: id });
    }
    return t;
  }

  output(id: string, sessionId: string): { output: string; truncated: boolean; exitStatus?: ExitStatus } {
    const t = this.live(id, sessionId);
    const snap = t.proc.snapshot();
    // A pty ends lines with CRLF; the agent reads plain text.
    const output = snap.output.replace(/\r\n/g, '\n');
    return snap.exit ? { output, truncated: snap.truncated, exitStatus: toStatus(snap.exit) } : { output, truncated: snap.truncated };
  }

  async waitForExit(id: string, sessionId: string, signal?: AbortSignal): Promise<ExitStatus> {
    const t = this.live(id, sessionId);
    if (!signal) return toStatus(await t.proc.waitForExit());
    if (signal.aborted) throw RequestError.requestCancelled();
    return new Promise<ExitStatus>((resolve, reject) => {
      const onAbort = () => reject(RequestError.requestCancelled());
      signal.addEventListener('abort', onAbort, { once: true });
      void t.proc.waitForExit().then((exit) => {
        signal.removeEventListener('abort', onAbort);
        resolve(toStatus(exit));
      });
    });
  }

  kill(id: string, sessionId: string): void {
    this.terminate(this.live(id, sessionId));
  }

  private terminate(t: Terminal): void {
    if (t.proc.exit) return;
    t.proc.kill('SIGTERM');
    const timer = setTimeout(() => t.proc.kill('SIGKILL'), KILL_GRACE_MS);
    timer.unref();
    void t.proc.waitForExit().then(() => clearTimeout(timer));
  }

  async release(id: string, sessionId: string): Promise<void> {
    await this.doRelease(this.live(id, sessionId));
  }

  private async doRelease(t: Terminal): Promise<void> {
    if (t.released) return;
    t.released = true;
    this.terminate(t);
    await Promise.race([t.proc.waitForExit(), new Promise((r) => setTimeout(r, KILL_GRACE_MS + 1000))]);
    const snap = t.proc.snapshot();
    t.final = { output: snap.output, truncated: snap.truncated, exit: snap.exit ? toStatus(snap.exit) : null };
    await this.ptys.release(t.proc.id);
    this.releasedOrder.push(t.id);
    while (this.releasedOrder.length > KEEP_RELEASED) this.terminals.delete(this.releasedOrder.shift()!);
  }

  /** Whether one of the session's terminals still runs (its agent is then not idle). */
  running(sessionId: string): boolean {
    for (const t of this.terminals.values()) if (t.sessionId === sessionId && !t.released && !t.proc.exit) return true;
    return false;
  }

  /** The session ended: its terminals are killed and released (their output stays viewable). */
  async releaseSession(sessionId: string): Promise<void> {
    await Promise.all([...this.terminals.values()].filter((t) => t.sessionId === sessionId).map((t) => this.doRelease(t)));
  }

  snapshot(id: string): { sessionId: string | null; output: string; truncated: boolean; exit: ExitStatus | null; released: boolean } {
    const t = this.terminals.get(id);
    if (!t) throw new IpcFailure('not_found', `no agent terminal ${id}`);
    if (t.final) return { sessionId: t.sessionId, ...t.final, released: true };
    const snap = t.proc.snapshot();
    const kept = keepTail(snap.output, t.limit);
    return { sessionId: t.sessionId, output: kept.text, truncated: snap.truncated || kept.truncated, exit: snap.exit ? toStatus(snap.exit) : null, released: false };
  }

  private authTerminal(id: string): Terminal {
    const t = this.terminals.get(id);
    if (!t) throw new IpcFailure('not_found', `no agent terminal ${id}`);
    if (t.kind !== 'auth') throw new IpcFailure('forbidden', 'only authentication terminals take input');
    return t;
  }

  write(id: string, data: string): void {
    this.authTerminal(id).proc.write(data);
  }

  resize(id: string, cols: number, rows: number): void {
    this.authTerminal(id).proc.resize(cols, rows);
  }

  killAuth(id: string): void {
    this.terminate(this.authTerminal(id));
  }

  async dispose(): Promise<void> {
    await Promise.all([...this.terminals.values()].map((t) => this.doRelease(t)));
    this.terminals.clear();
  }
}

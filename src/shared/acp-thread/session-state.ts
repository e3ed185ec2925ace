import type { AvailableCommand, Cost, NoticeSeverity, SessionConfigOption, SessionModeState } from '@agentclientprotocol/sdk';
import type { Draft } from './draft';
import { isRecord } from './messages';

/** Session-level state: modes, config options, slash commands, usage, title, notices. */

export function applySetup(d: Draft, modes: SessionModeState | null | undefined, configOptions: SessionConfigOption[] | null | undefined): void {
  if (modes !== undefined) d.state.modes = sanitizeModes(modes);
  if (configOptions !== undefined && configOptions !== null) applyConfigOptions(d, configOptions);
}

function sanitizeModes(modes: unknown): SessionModeState | null {
  if (!isRecord(modes) || typeof modes.currentModeId !== 'string') return null;
  const available = Array.isArray(modes.availableModes)
    ? modes.availableModes.filter((m) => isRecord(m) && typeof m.id === 'string' && typeof m.name === 'string')
    : [];
  return { ...(modes as SessionModeState), availableModes: available as SessionModeState['availableModes'] };
}

export function applyCurrentMode(d: Draft, modeId: unknown): void {
  if (typeof modeId !== 'string') return;
  d.state.modes = d.state.modes ? { ...d.state.modes, currentModeId: modeId } : { currentModeId: modeId, availableModes: [] };
  // Keep a `mode` config option in step with the legacy modes API.
  const options = d.state.configOptions;
  const i = options.findIndex((o) => o.category === 'mode' && o.type === 'select');
  if (i >= 0 && options[i]!.currentValue !== modeId) {
    const next = options.slice();
    next[i] = { ...(options[i] as SessionConfigOption & { type: 'select' }), currentValue: modeId };
    d.state.configOptions = next;
  }
}

/** Complete list, in the agent's order; entries without an id are dropped. */
export function applyConfigOptions(d: Draft, configOptions: unknown): void {
  if (!Array.isArray(configOptions)) return;
  d.state.configOptions = configOptions.filter(
    (o): o is SessionConfigOption => isRecord(o) && typeof o.id === 'string' && typeof o.name === 'string',
  );
}

export function applyCommands(d: Draft, commands: unknown): void {
  if (!Array.isArray(commands)) return;
  d.state.commands = commands.filter((c): c is AvailableCommand => isRecord(c) && typeof c.name === 'string');
}

export function applyUsage(d: Draft, u: Record<string, unknown>): void {
  if (typeof u.used !== 'number' || typeof u.size !== 'number') return;
  const cost = isRecord(u.cost) && typeof u.cost.amount === 'number' && typeof u.cost.currency === 'string' ? (u.cost as Cost) : null;
  d.state.usage = { used: u.used, size: u.size, cost };
}

/** Only fields present change; `null` clears. */
export function applySessionInfo(d: Draft, u: Record<string, unknown>): void {
  if ('title' in u) d.state.title = typeof u.title === 'string' ? u.title : null;
  if ('updatedAt' in u) d.state.updatedAt = typeof u.updatedAt === 'string' ? u.updatedAt : null;
}

const SEVERITIES: ReadonlySet<string> = new Set(['info', 'warning', 'error']);

export function applyNotice(d: Draft, u: Record<string, unknown>): void {
  if (typeof u.title !== 'string') return;
  const severity = (typeof u.severity === 'string' && SEVERITIES.has(u.severity) ? u.severity : 'info') as NoticeSeverity;
  d.push({ kind: 'notice', id: d.nextEntryId(), severity, title: u.title, description: typeof u.description === 'string' ? u.description : null });
}

/** The agent's sign-in lapsed mid-session: said in the thread (the view offers the way to sign in again). */
export function applyAuthLapsed(d: Draft, account: string | null): void {
  const was = account ? ` (it was signed in with ${account.slice(0, 300)})` : '';
  d.push({ kind: 'notice', id: d.nextEntryId(), severity: 'warning', title: 'The agent is signed out', description: `Its sign-in lapsed${was}. Sign in again to go on.`, signIn: true });
}

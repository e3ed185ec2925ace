import type { z } from 'zod';
import { agentEvents, agentRequests } from './agents';
import { appEvents, appRequests } from './app';
import { checkpointEvents, checkpointRequests } from './checkpoints';
import { compareEvents, compareRequests } from './compare';
import { containerEvents, containerRequests } from './containers';
import { elicitationRequests } from './elicitation';
import { historyEvents, historyRequests } from './history';
import { historyImportEvents, historyImportRequests } from './history-import';
import { hostEvents, hostRequests } from './hosts';
import { mcpEvents, mcpRequests } from './mcp';
import type { EventDef, RequestDef, Result } from './define';
import { permissionRequests } from './permissions';
import { registryEvents, registryRequests } from './registry';
import { sessionConfigRequests } from './session-config';
import { sessionEvents, sessionRequests } from './sessions';
import { settingsEvents, settingsRequests } from './settings';
import { supervisorEvents, supervisorRequests } from './supervisor';
import { taskEvents, taskRequests } from './tasks';
import { terminalEvents, terminalRequests } from './terminals';
import { worktreeEvents, worktreeRequests } from './worktrees';

export * from './define';
export * from './limits';

/**
 * The whole IPC contract: every request and event between renderer and main, for both transports.
 * Each domain keeps its own file; this index only merges them.
 */
export const requests = {
  ...agentRequests,
  ...appRequests,
  ...checkpointRequests,
  ...compareRequests,
  ...elicitationRequests,
  ...historyRequests,
  ...historyImportRequests,
  ...hostRequests,
  ...containerRequests,
  ...mcpRequests,
  ...permissionRequests,
  ...registryRequests,
  ...sessionConfigRequests,
  ...sessionRequests,
  ...settingsRequests,
  ...supervisorRequests,
  ...taskRequests,
  ...terminalRequests,
  ...worktreeRequests,
} as const satisfies Record<string, RequestDef>;

export const events = {
  ...agentEvents,
  ...appEvents,
  ...checkpointEvents,
  ...compareEvents,
  ...historyEvents,
  ...historyImportEvents,
  ...hostEvents,
  ...containerEvents,
  ...mcpEvents,
  ...registryEvents,
  ...sessionEvents,
  ...settingsEvents,
  ...supervisorEvents,
  ...taskEvents,
  ...terminalEvents,
  ...worktreeEvents,
} as const satisfies Record<string, EventDef>;

export type Requests = typeof requests;
export type Events = typeof events;
export type RequestName = keyof Requests;
export type EventName = keyof Events;
export type ParamsOf<N extends RequestName> = z.input<Requests[N]['params']>;
export type ParsedParamsOf<N extends RequestName> = z.output<Requests[N]['params']>;
export type ResultOf<N extends RequestName> = z.output<Requests[N]['result']>;
export type PayloadOf<N extends EventName> = z.output<Events[N]['payload']>;

export const isRequestName = (name: unknown): name is RequestName =>
  typeof name === 'string' && Object.prototype.hasOwnProperty.call(requests, name);
export const isEventName = (name: unknown): name is EventName =>
  typeof name === 'string' && Object.prototype.hasOwnProperty.call(events, name);

/** What a transport carries; the renderer's typed client is built on it and does not know which one it has. */
export interface Transport {
  invoke(method: string, params: unknown): Promise<Result<unknown>>;
  subscribe(listener: (name: string, payload: unknown) => void): () => void;
}

/** Wire frames of the WebSocket transport. */
export type ClientFrame = { type: 'invoke'; id: number; method: string; params: unknown };
export type ServerFrame =
  | { type: 'result'; id: number; result: Result<unknown> }
  /** Events in the order they were emitted: everything emitted in one event-loop turn travels in one frame. */
  | { type: 'events'; events: Array<{ name: string; payload: unknown }> }
  | { type: 'hello'; transport: 'browser' };

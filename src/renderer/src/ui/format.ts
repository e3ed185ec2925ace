import { ArrowLeftRight, Brain, FileText, FolderInput, Globe, Pencil, Search, SquareTerminal, Trash2, Wrench, type LucideIcon } from 'lucide-react';
import type { PermissionOption, StopReason, ToolKind } from '@agentclientprotocol/sdk';
import type { ToolEntryStatus } from '@shared/acp-thread';
import type { PromptBlock, SessionStatus } from '@shared/contract/sessions';

export const basename = (p: string): string => p.replace(/[\\/]+$/, '').split(/[\\/]/).pop() || p;

/** `path` relative to the session folder when inside it. */
export function relativeTo(path: string, cwd: string | null | undefined): string {
  if (!cwd) return path;
  const base = cwd.replace(/[\\/]+$/, '');
  if (path === base) return '.';
  if (path.startsWith(`${base}/`) || path.startsWith(`${base}\\`)) return path.slice(base.length + 1);
  return path;
}

export const isAbsolutePath = (p: string): boolean => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p);

export const STOP_REASON_TEXT: Record<StopReason, string> = {
  end_turn: 'Finished',
  cancelled: 'Cancelled — the turn was stopped',
  max_tokens: 'Stopped: the agent reached its token limit',
  max_turn_requests: 'Stopped: the agent reached its limit of requests for one turn',
  refusal: 'The agent refused to continue',
};

export const STATUS_TEXT: Record<SessionStatus, string> = {
  starting: 'Starting',
  idle: 'Ready',
  working: 'Working',
  awaiting_permission: 'Needs your permission',
  auth_required: 'Sign-in needed',
  failed: 'Failed',
  closed: 'Closed',
};

export const TOOL_ICON: Record<ToolKind, LucideIcon> = {
  read: FileText,
  edit: Pencil,
  delete: Trash2,
  move: FolderInput,
  search: Search,
  execute: SquareTerminal,
  think: Brain,
  fetch: Globe,
  switch_mode: ArrowLeftRight,
  other: Wrench,
};

export const TOOL_STATUS_TEXT: Record<ToolEntryStatus, string> = {
  pending: 'Pending',
  in_progress: 'Running',
  completed: 'Done',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** The option Y (allow) or N (reject) picks: the one-time variant when offered. */
export function quickOption(options: readonly PermissionOption[], allow: boolean): PermissionOption | undefined {
  const order: Array<PermissionOption['kind']> = allow ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always'];
  for (const kind of order) {
    const o = options.find((x) => x.kind === kind);
    if (o) return o;
  }
  return undefined;
}

export function formatTokens(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(n >= 10_000_000 ? 0 : 1)}M`;
  if (n >= 1000) return `${(n / 1000).toFixed(n >= 10_000 ? 0 : 1)}k`;
  return String(n);
}

export function formatCost(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat(undefined, { style: 'currency', currency, maximumFractionDigits: amount < 1 ? 4 : 2 }).format(amount);
  } catch {
    return `${amount.toFixed(4)} ${currency}`;
  }
}

export function prettyJson(value: unknown, max = 100_000): string {
  let text: string;
  try {
    text = typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}\n… (${text.length - max} more characters)` : text;
}

/** A short, readable form of a queued prompt. */
export function promptPreview(prompt: readonly PromptBlock[]): string {
  return prompt
    .map((b) => (b.type === 'text' ? b.text : b.type === 'mention' ? `@${basename(b.path)}` : '[image]'))
    .join(' ')
    .trim();
}

export const isEditable = (el: EventTarget | null): boolean =>
  el instanceof HTMLElement && (el.isContentEditable || el.tagName === 'TEXTAREA' || el.tagName === 'SELECT' || (el.tagName === 'INPUT' && (el as HTMLInputElement).type !== 'checkbox'));

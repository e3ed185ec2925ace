import { ChevronDown, ChevronRight } from 'lucide-react';
import { Elapsed, formatWait } from './Elapsed';

/**
 * Sessions and their children as a tree (the sidebar, the overview, history): ACP subagent sessions and the
 * sessions started through a session's delegation tools, under the session that started them, their state and
 * time, never "running" once they ended.
 */
export interface TreeNode<T> {
  item: T;
  children: TreeNode<T>[];
}

/** A live session's parent: the session whose agent announced it (an ACP subagent) or whose delegation tools started it. */
export function parentSessionOf(s: { subagent?: { parentId: string }; delegatedBy?: string }): string | undefined {
  return s.subagent?.parentId ?? s.delegatedBy;
}

/** What a child is called under its parent: its title, else "<Agent> (delegated)" as its card says, else "Subagent". */
export function childLabel(c: { title: string | null; delegatedBy?: string }, agentName: string): string {
  return c.title ?? (c.delegatedBy ? `${agentName} (delegated)` : 'Subagent');
}

/** `items` as trees: an item whose parent is not among them is a root. Order is kept at every level. */
export function buildTree<T>(items: readonly T[], idOf: (t: T) => string, parentOf: (t: T) => string | null | undefined): TreeNode<T>[] {
  const nodes = new Map<string, TreeNode<T>>();
  for (const item of items) nodes.set(idOf(item), { item, children: [] });
  const roots: TreeNode<T>[] = [];
  for (const item of items) {
    const node = nodes.get(idOf(item))!;
    const parent = parentOf(item);
    const under = parent != null && parent !== idOf(item) ? nodes.get(parent) : undefined;
    // A loop (a damaged store) would hide its members: they are roots instead.
    if (under && !isBelow(under, node, parentOf, nodes, idOf)) under.children.push(node);
    else roots.push(node);
  }
  return roots;
}

function isBelow<T>(candidate: TreeNode<T>, node: TreeNode<T>, parentOf: (t: T) => string | null | undefined, nodes: Map<string, TreeNode<T>>, idOf: (t: T) => string): boolean {
  const seen = new Set<string>();
  for (let at: TreeNode<T> | undefined = candidate; at; ) {
    const id = idOf(at.item);
    if (at === node) return true;
    if (seen.has(id)) return true;
    seen.add(id);
    const p = parentOf(at.item);
    at = p != null ? nodes.get(p) : undefined;
  }
  return false;
}

/** Children (at every level) in the order of `key`, e.g. oldest first; the roots keep theirs. */
export function orderChildren<T>(nodes: readonly TreeNode<T>[], key: (t: T) => number): void {
  for (const n of nodes) {
    n.children.sort((a, b) => key(a.item) - key(b.item));
    orderChildren(n.children, key);
  }
}

/** Every node under `nodes`, depth first, with its depth (0: a child of the root). */
export function flatten<T>(nodes: readonly TreeNode<T>[], depth = 0): Array<{ node: TreeNode<T>; depth: number }> {
  return nodes.flatMap((node) => [{ node, depth }, ...flatten(node.children, depth + 1)]);
}

/**
 * What a child's state reads as: 'running' only while a live session says it works; a child that is not live
 * any more ended with the run it belonged to.
 */
export function childState(status: string | undefined, live: boolean): { text: string; working: boolean } {
  if (live && (status === 'working' || status === 'starting')) return { text: 'running', working: true };
  if (live && status === 'awaiting_permission') return { text: 'needs you', working: true };
  if (status === 'failed') return { text: 'failed', working: false };
  return { text: 'ended', working: false };
}

/** How long the child worked: counting up while it works, else from its start to its last activity. */
export function ChildTime({ createdAt, lastAt, working }: { createdAt: number; lastAt: number; working: boolean }) {
  if (working) return <Elapsed since={createdAt} />;
  return (
    <span className="elapsed" data-testid="elapsed">
      {formatWait(lastAt - createdAt)}
    </span>
  );
}

/** The switch that shows or hides a session's children ("▾ 2 subagents"). */
export function ChildrenToggle({ open, count, onToggle, testId }: { open: boolean; count: number; onToggle(): void; testId: string }) {
  return (
    <button
      type="button"
      className="link-button small children-toggle"
      aria-expanded={open}
      data-testid={testId}
      title={open ? 'Hide its subagents' : 'Show its subagents'}
      onClick={(e) => {
        e.stopPropagation();
        onToggle();
      }}
    >
      {open ? <ChevronDown size={12} /> : <ChevronRight size={12} />} {count} subagent{count === 1 ? '' : 's'}
    </button>
  );
}

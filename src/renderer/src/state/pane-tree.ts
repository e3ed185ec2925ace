/**
 * How panes are arranged: a tree of splits. A split lays its children side by side ('row') or stacked
 * ('column'), each child taking its share of `sizes` (fractions summing to 1); a leaf is one pane.
 * Pure functions: every change returns a new tree.
 */
export type SplitAxis = 'row' | 'column';

export type LayoutNode = PaneLeaf | SplitNode;
export interface PaneLeaf {
  kind: 'pane';
  paneId: string;
}
export interface SplitNode {
  kind: 'split';
  id: string;
  axis: SplitAxis;
  children: LayoutNode[];
  sizes: number[];
}

/** The smallest share a child of a split may be resized to. */
export const MIN_SHARE = 0.1;

export const leaf = (paneId: string): PaneLeaf => ({ kind: 'pane', paneId });

/** The panes in reading order (left to right, top to bottom within each split). */
export function paneIdsOf(node: LayoutNode): string[] {
  return node.kind === 'pane' ? [node.paneId] : node.children.flatMap(paneIdsOf);
}

const even = (n: number): number[] => Array.from({ length: n }, () => 1 / n);

/**
 * Splits one pane along `axis`: the new pane comes right after it (to its right, or below it). Within a
 * split of the same axis the pane gives half its share to the new one; otherwise the pane becomes a split of two.
 */
export function splitPane(root: LayoutNode, paneId: string, axis: SplitAxis, newPaneId: string, newSplitId: string): LayoutNode {
  const visit = (node: LayoutNode): LayoutNode => {
    if (node.kind === 'pane') {
      return node.paneId === paneId ? { kind: 'split', id: newSplitId, axis, children: [node, leaf(newPaneId)], sizes: [0.5, 0.5] } : node;
    }
    const at = node.children.findIndex((c) => c.kind === 'pane' && c.paneId === paneId);
    if (at >= 0 && node.axis === axis) {
      const half = node.sizes[at]! / 2;
      return {
        ...node,
        children: [...node.children.slice(0, at + 1), leaf(newPaneId), ...node.children.slice(at + 1)],
        sizes: [...node.sizes.slice(0, at), half, half, ...node.sizes.slice(at + 1)],
      };
    }
    return { ...node, children: node.children.map(visit) };
  };
  return visit(root);
}

/**
 * Removes a pane. Its split gives the pane's share to the others; a split left with one child is replaced by
 * that child, and a split inside one of the same axis merges into it.
 */
export function removePane(root: LayoutNode, paneId: string): LayoutNode | null {
  const visit = (node: LayoutNode): LayoutNode | null => {
    if (node.kind === 'pane') return node.paneId === paneId ? null : node;
    const children: LayoutNode[] = [];
    const sizes: number[] = [];
    node.children.forEach((c, i) => {
      const kept = visit(c);
      if (kept) {
        children.push(kept);
        sizes.push(node.sizes[i] ?? 1 / node.children.length);
      }
    });
    if (children.length === 0) return null;
    if (children.length === 1) return children[0]!;
    return normalize({ ...node, children, sizes });
  };
  return visit(root);
}

/** Sets the shares of a split's children (each at least MIN_SHARE, summing to 1). */
export function resizeSplit(root: LayoutNode, splitId: string, sizes: number[]): LayoutNode {
  const visit = (node: LayoutNode): LayoutNode => {
    if (node.kind === 'pane') return node;
    if (node.id === splitId && sizes.length === node.children.length) return { ...node, sizes: shares(sizes) };
    return { ...node, children: node.children.map(visit) };
  };
  return visit(root);
}

/** Moves the boundary after child `index` of a split by `delta` (a fraction of the split's length). */
export function moveBoundary(sizes: number[], index: number, delta: number): number[] {
  const a = sizes[index];
  const b = sizes[index + 1];
  if (a === undefined || b === undefined) return sizes;
  const d = Math.max(MIN_SHARE - a, Math.min(b - MIN_SHARE, delta));
  return sizes.map((s, i) => (i === index ? a + d : i === index + 1 ? b - d : s));
}

/** Finds a split by id. */
export function findSplit(root: LayoutNode, splitId: string): SplitNode | null {
  if (root.kind === 'pane') return null;
  if (root.id === splitId) return root;
  for (const c of root.children) {
    const found = findSplit(c, splitId);
    if (found) return found;
  }
  return null;
}

/** Brings a tree read from storage into shape: known panes only, each once, shares that sum to 1, no one-child splits. */
export function sanitizeTree(node: LayoutNode, known: Set<string>): LayoutNode | null {
  const seen = new Set<string>();
  const visit = (n: LayoutNode): LayoutNode | null => {
    if (n.kind === 'pane') {
      if (!known.has(n.paneId) || seen.has(n.paneId)) return null;
      seen.add(n.paneId);
      return n;
    }
    const children: LayoutNode[] = [];
    const sizes: number[] = [];
    n.children.forEach((c, i) => {
      const kept = visit(c);
      if (kept) {
        children.push(kept);
        sizes.push(n.sizes[i] ?? 0);
      }
    });
    if (children.length === 0) return null;
    if (children.length === 1) return children[0]!;
    return normalize({ ...n, children, sizes });
  };
  return visit(node);
}

/** The layout of the flat arrangements saved before splits could nest: side by side, stacked, or a 2×2 grid. */
export function treeFromFlat(paneIds: string[], direction: SplitAxis | 'grid', nextId: () => string): LayoutNode {
  if (paneIds.length === 1) return leaf(paneIds[0]!);
  const split = (axis: SplitAxis, children: LayoutNode[]): LayoutNode =>
    children.length === 1 ? children[0]! : { kind: 'split', id: nextId(), axis, children, sizes: even(children.length) };
  if (direction !== 'grid') return split(direction, paneIds.map(leaf));
  // The grid filled two columns row by row.
  const rows: LayoutNode[] = [];
  for (let i = 0; i < paneIds.length; i += 2) rows.push(split('row', paneIds.slice(i, i + 2).map(leaf)));
  return split('column', rows);
}

function shares(sizes: number[]): number[] {
  const clean = sizes.map((s) => (Number.isFinite(s) && s > 0 ? s : 0));
  const total = clean.reduce((a, b) => a + b, 0);
  if (total <= 0) return even(sizes.length);
  const raw = clean.map((s) => Math.max(MIN_SHARE, s / total));
  const sum = raw.reduce((a, b) => a + b, 0);
  return raw.map((s) => s / sum);
}

/** Shares summing to 1, and children of the same axis merged into their parent (their shares scaled). */
function normalize(node: SplitNode): SplitNode {
  const base = shares(node.sizes);
  const children: LayoutNode[] = [];
  const sizes: number[] = [];
  node.children.forEach((c, i) => {
    if (c.kind === 'split' && c.axis === node.axis) {
      const inner = shares(c.sizes);
      c.children.forEach((g, j) => {
        children.push(g);
        sizes.push(base[i]! * inner[j]!);
      });
    } else {
      children.push(c);
      sizes.push(base[i]!);
    }
  });
  return { ...node, children, sizes };
}

/** A place in the workspace, in fractions of its width and height. */
export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}
/** The boundary after child `index` of a split, where it is dragged from; `box` is the whole split's. */
export interface Boundary {
  splitId: string;
  axis: SplitAxis;
  index: number;
  /** Where the boundary lies, as a fraction along the split's axis within the workspace. */
  at: number;
  box: Box;
}

/** Where each pane and each draggable boundary goes: panes stay siblings, whatever the tree's shape. */
export function placeTree(root: LayoutNode): { panes: Map<string, Box>; boundaries: Boundary[] } {
  const panes = new Map<string, Box>();
  const boundaries: Boundary[] = [];
  const visit = (node: LayoutNode, box: Box): void => {
    if (node.kind === 'pane') {
      panes.set(node.paneId, box);
      return;
    }
    const row = node.axis === 'row';
    let offset = 0;
    node.children.forEach((c, i) => {
      const share = node.sizes[i] ?? 1 / node.children.length;
      const child = row ? { x: box.x + offset * box.w, y: box.y, w: share * box.w, h: box.h } : { x: box.x, y: box.y + offset * box.h, w: box.w, h: share * box.h };
      offset += share;
      if (i < node.children.length - 1) boundaries.push({ splitId: node.id, axis: node.axis, index: i, at: row ? box.x + offset * box.w : box.y + offset * box.h, box });
      visit(c, child);
    });
  };
  visit(root, { x: 0, y: 0, w: 1, h: 1 });
  return { panes, boundaries };
}

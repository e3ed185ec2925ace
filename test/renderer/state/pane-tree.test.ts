import { describe, expect, it } from 'vitest';
import {
  leaf,
  moveBoundary,
  MIN_SHARE,
  paneIdsOf,
  placeTree,
  removePane,
  resizeSplit,
  sanitizeTree,
  splitPane,
  treeFromFlat,
  type LayoutNode,
} from '../../../src/renderer/src/state/pane-tree';

let n = 0;
const id = () => `s${n++}`;

describe('the pane layout tree (state/pane-tree)', () => {
  it('a split within a split of the same direction shares the pane’s part; another direction nests', () => {
    let t: LayoutNode = leaf('a');
    t = splitPane(t, 'a', 'row', 'b', id());
    t = splitPane(t, 'a', 'row', 'c', id());
    expect(paneIdsOf(t)).toEqual(['a', 'c', 'b']);
    expect(t).toMatchObject({ axis: 'row', sizes: [0.25, 0.25, 0.5] });
    t = splitPane(t, 'b', 'column', 'd', id());
    expect(t).toMatchObject({ axis: 'row', children: [{ paneId: 'a' }, { paneId: 'c' }, { axis: 'column', children: [{ paneId: 'b' }, { paneId: 'd' }] }] });
    const { panes } = placeTree(t);
    expect(panes.get('a')).toEqual({ x: 0, y: 0, w: 0.25, h: 1 });
    expect(panes.get('b')).toEqual({ x: 0.5, y: 0, w: 0.5, h: 0.5 });
    expect(panes.get('d')).toEqual({ x: 0.5, y: 0.5, w: 0.5, h: 0.5 });
  });

  it('removing a pane gives its share back, and a split left with one child collapses into its parent', () => {
    let t: LayoutNode = leaf('a');
    t = splitPane(t, 'a', 'row', 'b', id());
    t = splitPane(t, 'b', 'column', 'c', id());
    t = splitPane(t, 'c', 'row', 'd', id());
    // Removing c leaves the column (b, d); removing b then leaves d in the top row, beside a.
    t = removePane(t, 'c')!;
    expect(t).toMatchObject({ axis: 'row', children: [{ paneId: 'a' }, { axis: 'column', children: [{ paneId: 'b' }, { paneId: 'd' }] }] });
    t = removePane(t, 'b')!;
    expect(t).toEqual({ kind: 'split', id: expect.any(String), axis: 'row', children: [leaf('a'), leaf('d')], sizes: [0.5, 0.5] });
    expect(removePane(removePane(t, 'a')!, 'd')).toBeNull();
  });

  it('resizes one split without touching the others, never below the smallest share', () => {
    let t: LayoutNode = leaf('a');
    t = splitPane(t, 'a', 'row', 'b', 'outer');
    t = splitPane(t, 'b', 'column', 'c', 'inner');
    t = resizeSplit(t, 'inner', moveBoundary([0.5, 0.5], 0, 0.2));
    expect(t).toMatchObject({ sizes: [0.5, 0.5], children: [{}, { id: 'inner', sizes: [0.7, 0.5 - 0.2] }] });
    const close = (got: number[], want: number[]) => got.forEach((g, i) => expect(g).toBeCloseTo(want[i]!, 9));
    close(moveBoundary([0.5, 0.5], 0, 0.9), [1 - MIN_SHARE, MIN_SHARE]);
    close(moveBoundary([0.3, 0.3, 0.4], 1, -0.5), [0.3, MIN_SHARE, 0.7 - MIN_SHARE]);
  });

  it('the flat layouts saved before splits nested become trees, the grid row by row', () => {
    expect(treeFromFlat(['a'], 'grid', id)).toEqual(leaf('a'));
    expect(treeFromFlat(['a', 'b'], 'column', id)).toMatchObject({ axis: 'column', children: [leaf('a'), leaf('b')], sizes: [0.5, 0.5] });
    expect(treeFromFlat(['a', 'b', 'c'], 'grid', id)).toMatchObject({
      axis: 'column',
      children: [{ axis: 'row', children: [leaf('a'), leaf('b')] }, leaf('c')],
    });
  });

  it('a tree read from storage keeps known panes once each, and shares summing to 1', () => {
    const damaged: LayoutNode = {
      kind: 'split',
      id: 'x',
      axis: 'row',
      sizes: [0, 0, 5],
      children: [leaf('a'), leaf('a'), { kind: 'split', id: 'y', axis: 'row', sizes: [1, 1], children: [leaf('ghost'), leaf('b')] }],
    };
    expect(sanitizeTree(damaged, new Set(['a', 'b']))).toEqual({ kind: 'split', id: 'x', axis: 'row', children: [leaf('a'), leaf('b')], sizes: [MIN_SHARE / (1 + MIN_SHARE), 1 / (1 + MIN_SHARE)] });
  });
});

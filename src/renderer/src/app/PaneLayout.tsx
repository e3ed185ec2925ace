import { useMemo, useRef, type KeyboardEvent, type PointerEvent, type RefObject } from 'react';
import { findSplit, moveBoundary, placeTree, type Boundary, type Box } from '../state/pane-tree';
import { useTabs } from '../state/tabs';
import { PaneView } from './PaneView';

const pct = (f: number) => `${(f * 100).toFixed(4)}%`;
const place = (b: Box) => ({ left: pct(b.x), top: pct(b.y), width: pct(b.w), height: pct(b.h) });
/** A boundary's edge: within 0.1% of the workspace's own edge counts as on it. */
const inside = (f: number) => f > 0.001;

/**
 * The panes, laid out by the split tree. Every pane is a sibling placed by its box, so that a split elsewhere
 * never remounts a pane (its terminals and editors stay as they were).
 */
export function PaneLayout() {
  const panes = useTabs((s) => s.panes);
  const layout = useTabs((s) => s.layout);
  const placed = useMemo(() => placeTree(layout), [layout]);
  const root = useRef<HTMLElement>(null);
  return (
    <main className="workspace" data-testid="workspace" ref={root}>
      {panes.map((p) => {
        const box = placed.panes.get(p.id) ?? { x: 0, y: 0, w: 1, h: 1 };
        return (
          <div
            key={p.id}
            className={`pane-slot${inside(box.x) ? ' edge-left' : ''}${inside(box.y) ? ' edge-top' : ''}`}
            style={place(box)}
            data-pane-box={`${box.x.toFixed(3)},${box.y.toFixed(3)},${box.w.toFixed(3)},${box.h.toFixed(3)}`}
          >
            <PaneView pane={p} />
          </div>
        );
      })}
      {placed.boundaries.map((b) => (
        <SplitHandle key={`${b.splitId}:${b.index}`} boundary={b} workspace={root} />
      ))}
    </main>
  );
}

/** The handle on a boundary between two children of a split: drag it, or focus it and use the arrow keys. */
function SplitHandle({ boundary: b, workspace }: { boundary: Boundary; workspace: RefObject<HTMLElement | null> }) {
  const drag = useRef<{ start: number; sizes: number[]; length: number } | null>(null);
  const row = b.axis === 'row';
  const style = row
    ? { left: `calc(${pct(b.at)} - 3px)`, top: pct(b.box.y), height: pct(b.box.h), width: '6px' }
    : { top: `calc(${pct(b.at)} - 3px)`, left: pct(b.box.x), width: pct(b.box.w), height: '6px' };
  const sizesNow = () => findSplit(useTabs.getState().layout, b.splitId)?.sizes ?? null;
  const nudge = (delta: number) => {
    const sizes = sizesNow();
    if (sizes) useTabs.getState().resize(b.splitId, moveBoundary(sizes, b.index, delta));
  };
  const onPointerDown = (e: PointerEvent<HTMLDivElement>) => {
    const rect = workspace.current?.getBoundingClientRect();
    const sizes = sizesNow();
    if (!rect || !sizes) return;
    e.preventDefault();
    e.currentTarget.setPointerCapture(e.pointerId);
    drag.current = { start: row ? e.clientX : e.clientY, sizes, length: row ? rect.width * b.box.w : rect.height * b.box.h };
  };
  const onPointerMove = (e: PointerEvent<HTMLDivElement>) => {
    const d = drag.current;
    if (!d || d.length <= 0) return;
    const delta = ((row ? e.clientX : e.clientY) - d.start) / d.length;
    useTabs.getState().resize(b.splitId, moveBoundary(d.sizes, b.index, delta));
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const step = e.shiftKey ? 0.1 : 0.02;
    const back = row ? 'ArrowLeft' : 'ArrowUp';
    const forth = row ? 'ArrowRight' : 'ArrowDown';
    if (e.key !== back && e.key !== forth) return;
    e.preventDefault();
    nudge(e.key === back ? -step : step);
  };
  const share = sizesNow()?.[b.index] ?? 0.5;
  return (
    <div
      className={`split-handle ${b.axis}`}
      style={style}
      role="separator"
      aria-orientation={row ? 'vertical' : 'horizontal'}
      aria-label={row ? 'Resize the panes left and right' : 'Resize the panes above and below'}
      aria-valuemin={0}
      aria-valuemax={100}
      aria-valuenow={Math.round(share * 100)}
      tabIndex={0}
      data-testid="split-handle"
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={() => (drag.current = null)}
      onPointerCancel={() => (drag.current = null)}
      onKeyDown={onKeyDown}
    />
  );
}

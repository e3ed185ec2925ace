import { beforeEach, describe, expect, it } from 'vitest';
import { activeTab, MAX_PANES, useTabs } from '../../../src/renderer/src/state/tabs';

const tabs = () => useTabs.getState();
const paneTabs = () => tabs().panes.map((p) => p.tabIds.map((id) => tabs().tabs[id]!.title));

describe('tabs and panes (state/tabs)', () => {
  beforeEach(() => useTabs.setState(useTabs.getInitialState(), true));

  it('opens a tab in the focused pane and shows it; opening the same id again only shows it', () => {
    const a = tabs().open({ kind: 'shell', title: 'A', props: {} });
    const b = tabs().open({ id: 'fixed', kind: 'history', title: 'B', props: {} });
    expect(activeTab(tabs())?.id).toBe(b);
    tabs().activate(a);
    expect(tabs().open({ id: 'fixed', kind: 'history', title: 'B again', props: {} })).toBe('fixed');
    expect(paneTabs()).toEqual([['A', 'B']]);
    expect(activeTab(tabs())?.id).toBe('fixed');
  });

  it('closing the shown tab shows its neighbour (the next one, else the one before)', () => {
    const [a, b, c] = ['A', 'B', 'C'].map((title) => tabs().open({ kind: 'shell', title, props: {} }));
    tabs().activate(b!);
    tabs().close(b!);
    expect(activeTab(tabs())?.id).toBe(c);
    tabs().close(c!);
    expect(activeTab(tabs())?.id).toBe(a);
    tabs().close(a!);
    expect(activeTab(tabs())).toBeNull();
    expect(tabs().tabs).toEqual({});
  });

  it('cycles through the focused pane’s tabs, wrapping around', () => {
    const [a, , c] = ['A', 'B', 'C'].map((title) => tabs().open({ kind: 'shell', title, props: {} }));
    tabs().cycle(1);
    expect(activeTab(tabs())?.id).toBe(a);
    tabs().cycle(-1);
    expect(activeTab(tabs())?.id).toBe(c);
  });

  it('a finished turn’s mark is cleared when its tab is shown', () => {
    const a = tabs().open({ kind: 'session', title: 'A', props: {} });
    tabs().open({ kind: 'shell', title: 'B', props: {} });
    tabs().update(a, { status: 'done' });
    tabs().activate(a);
    expect(tabs().tabs[a]!.status).toBe('idle');
    tabs().update(a, { status: 'failed' });
    tabs().activate(a);
    expect(tabs().tabs[a]!.status).toBe('failed');
  });

  it('splits only the focused pane, in the asked direction, up to MAX_PANES panes', () => {
    tabs().open({ kind: 'shell', title: 'A', props: {} });
    const right = tabs().split('row')!;
    expect(tabs().focusedPaneId).toBe(right);
    tabs().open({ kind: 'shell', title: 'B', props: {} });
    expect(paneTabs()).toEqual([['A'], ['B']]);
    // Split down on the right pane: the left pane keeps the full height.
    const below = tabs().split('column')!;
    expect(tabs().layout).toMatchObject({
      kind: 'split',
      axis: 'row',
      sizes: [0.5, 0.5],
      children: [{ kind: 'pane', paneId: 'pane-1' }, { kind: 'split', axis: 'column', children: [{ paneId: right }, { paneId: below }] }],
    });
    expect(tabs().panes.map((p) => p.id)).toEqual(['pane-1', right, below]);
    while (tabs().panes.length < MAX_PANES) tabs().split('row');
    expect(tabs().split('row')).toBeNull();
    expect(tabs().panes).toHaveLength(MAX_PANES);
  });

  it('closing the last tab of a pane collapses its node; the last pane stays, empty', () => {
    tabs().open({ kind: 'shell', title: 'A', props: {} });
    tabs().split('row');
    const b = tabs().open({ kind: 'shell', title: 'B', props: {} });
    const below = tabs().split('column')!;
    const c = tabs().open({ kind: 'shell', title: 'C', props: {} });
    tabs().close(b);
    expect(tabs().layout).toMatchObject({ kind: 'split', axis: 'row', children: [{ paneId: 'pane-1' }, { paneId: below }] });
    expect(tabs().focusedPaneId).toBe(below);
    tabs().close(c);
    expect(tabs().layout).toEqual({ kind: 'pane', paneId: 'pane-1' });
    expect(tabs().focusedPaneId).toBe('pane-1');
    tabs().close(tabs().panes[0]!.tabIds[0]!);
    expect(tabs().panes).toEqual([{ id: 'pane-1', tabIds: [], activeTabId: null }]);
  });

  it('dragging the last tab out of a pane collapses it into its neighbours', () => {
    tabs().open({ kind: 'shell', title: 'A', props: {} });
    const second = tabs().split('column')!;
    const b = tabs().open({ kind: 'shell', title: 'B', props: {} });
    tabs().moveTab(b, 'pane-1');
    expect(paneTabs()).toEqual([['A', 'B']]);
    expect(tabs().panes.some((p) => p.id === second)).toBe(false);
    expect(tabs().layout).toEqual({ kind: 'pane', paneId: 'pane-1' });
  });

  it('closing a pane hands its tabs to the pane before it', () => {
    tabs().open({ kind: 'shell', title: 'A', props: {} });
    const second = tabs().split('row')!;
    tabs().open({ kind: 'shell', title: 'B', props: {} });
    tabs().open({ kind: 'shell', title: 'C', props: {} });
    tabs().closePane(second);
    expect(paneTabs()).toEqual([['A', 'B', 'C']]);
    expect(tabs().focusedPaneId).toBe('pane-1');
    tabs().closePane('pane-1');
    expect(tabs().panes).toHaveLength(1);
  });

  it('moves a tab to another pane (at a place), showing it there and its neighbour where it left', () => {
    const a = tabs().open({ kind: 'shell', title: 'A', props: {} });
    const b = tabs().open({ kind: 'shell', title: 'B', props: {} });
    const second = tabs().split('row')!;
    const c = tabs().open({ kind: 'shell', title: 'C', props: {} });
    tabs().moveTab(b, second, 0);
    expect(paneTabs()).toEqual([['A'], ['B', 'C']]);
    expect(tabs().panes[0]!.activeTabId).toBe(a);
    expect(tabs().panes[1]!.activeTabId).toBe(b);
    expect(tabs().focusedPaneId).toBe(second);
    tabs().moveTab(c, second, 0);
    expect(paneTabs()).toEqual([['A'], ['C', 'B']]);
  });
});

import { useApi } from './api-context';
import { launcherActions, launcherPanels, type TabViewProps } from './contributions';
import { useTabs } from '../state/tabs';

/** The new-tab page: what you can start here. */
export function Launcher({ tab }: TabViewProps) {
  const api = useApi();
  const run = async (action: (typeof launcherActions)[number]) => {
    await action.run(api);
    useTabs.getState().close(tab.id);
  };
  return (
    <div className="launcher" data-testid="launcher">
      <h1>Start something</h1>
      {/* An agent session first: it is what a new tab is for, most of the time. */}
      {launcherPanels.map((p) => (
        <p.view key={p.id} />
      ))}
      <div className="launcher-actions">
        {launcherActions.map((a) => (
          <button key={a.id} className="launcher-action" onClick={() => void run(a)} data-testid={`launch-${a.id}`}>
            <strong>{a.label}</strong>
            <span>{a.description}</span>
          </button>
        ))}
      </div>
    </div>
  );
}

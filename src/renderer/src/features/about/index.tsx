import { useEffect, useState } from 'react';
import { Info } from 'lucide-react';
import type { AppInfo } from '@shared/contract/app';
import { useApi } from '../../app/api-context';
import { registerLauncherAction, registerTabKind } from '../../app/contributions';
import { useTabs } from '../../state/tabs';
import './about.css';
import iconUrl from '../../../../../resources/icons/icon.svg';

export function openAbout(): string {
  return useTabs.getState().open({ id: 'about', kind: 'about', title: 'About', props: {} });
}

/** The app's version, what it runs on, and where it keeps its data. */
function AboutTab() {
  const api = useApi();
  const [info, setInfo] = useState<AppInfo | null>(null);
  useEffect(() => {
    void api.call('app.info', {}).then((r) => r.ok && setInfo(r.value));
  }, [api]);
  if (!info) return <div className="about-tab muted">Loading…</div>;
  const rows: Array<[string, string]> = [
    ['Version', info.version],
    ...(info.transport === 'electron'
      ? ([
          ['Electron', info.versions.electron ?? '?'],
          ['Chromium', info.versions.chrome ?? '?'],
        ] as Array<[string, string]>)
      : ([
          ['Mode', 'browser (the app served over a WebSocket)'],
          ['Browser', navigator.userAgent],
        ] as Array<[string, string]>)),
    ['Node (main process)', info.versions.node],
    ['Platform', info.platform],
    ['Data folder', info.dataDir],
  ];
  return (
    <div className="about-tab" data-testid="about">
      <img src={iconUrl} alt="" width={64} height={64} />
      <h2>Switchboard</h2>
      <p className="muted">A desktop workbench for coding agents that speak the Agent Client Protocol.</p>
      <dl>
        {rows.map(([k, v]) => (
          <div key={k} data-testid={`about-${k.split(' ')[0]!.toLowerCase()}`}>
            <dt>{k}</dt>
            <dd>
              <code>{v}</code>
            </dd>
          </div>
        ))}
      </dl>
    </div>
  );
}

registerTabKind('about', { view: AboutTab, icon: Info, persist: () => ({}) });
registerLauncherAction({ id: 'about', label: 'About Switchboard', description: 'Version, Electron, Chromium and Node, data folder', order: 990, run: () => void openAbout() });

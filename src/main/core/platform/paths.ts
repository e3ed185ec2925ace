import { homedir } from 'node:os';
import { join } from 'node:path';

/** Where Switchboard keeps its data; the same folder Electron's app.getPath('userData') gives, so both modes share it. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.SWITCHBOARD_DATA_DIR) return env.SWITCHBOARD_DATA_DIR;
  const home = homedir();
  switch (process.platform) {
    case 'darwin':
      return join(home, 'Library', 'Application Support', 'Switchboard');
    case 'win32':
      return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'Switchboard');
    default:
      return join(env.XDG_CONFIG_HOME ?? join(home, '.config'), 'Switchboard');
  }
}

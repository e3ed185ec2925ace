import type { CheckpointStatus } from '../../../shared/contract/checkpoints';
import type { SettingsService } from '../settings/settings-service';
import type { Host } from '../host/host';
import { gitVersion } from './shadow-git';

/** The checkpoint settings (keys checkpoints.* of the settings registry). */
export interface CheckpointSettings {
  retentionDays: number;
  maxBytesPerFolder: number;
  maxFileBytes: number;
  excludes: string[];
}

/** Where the checkpoint service reads its settings, and hears them change. */
export type CheckpointSettingsSource = Pick<SettingsService, 'get' | 'onChange'>;

const MIN_GIT = [2, 25];

export function readSettings(source: CheckpointSettingsSource): CheckpointSettings {
  return {
    retentionDays: source.get('checkpoints.retentionDays'),
    maxBytesPerFolder: source.get('checkpoints.maxBytesPerFolder'),
    maxFileBytes: source.get('checkpoints.maxFileBytes'),
    excludes: source.get('checkpoints.excludes'),
  };
}

/** Whether checkpoints can be taken with the host's git (missing, too old), in words when not. */
export async function checkpointStatus(host: Host, pathEnv?: string): Promise<CheckpointStatus> {
  const v = await gitVersion(host, pathEnv);
  if (v === null) {
    return {
      available: false,
      reason: 'git_missing',
      message: 'Checkpoints need git, and no git was found. Install git to review and undo what agents change; sessions work without it.',
    };
  }
  const [major = 0, minor = 0] = v.split('.').map(Number);
  if (major < MIN_GIT[0]! || (major === MIN_GIT[0] && minor < MIN_GIT[1]!)) {
    return { available: false, reason: 'git_too_old', message: `Checkpoints need git ${MIN_GIT.join('.')} or newer; this git is ${v}.` };
  }
  return { available: true, gitVersion: v };
}

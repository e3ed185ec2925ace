import type { DistKind, RegistryProgressStep } from '../../../../shared/contract/registry';
import type { Host } from '../../host/host';
import type { ExtractLimits } from '../extract';
import type { AgentManifest } from '../validate';

export interface StepUpdate {
  step: RegistryProgressStep;
  bytesDone?: number | null;
  bytesTotal?: number | null;
  message?: string | null;
  /** A line the tool (npm, uv) printed: kept behind "Details", not shown as the step. */
  outputLine?: string;
}

export interface InstallContext {
  entry: AgentManifest;
  /** Empty folder to fill; it becomes <agentsDir>/<id>/<version> when the install completes. */
  dir: string;
  /** Scratch folder (downloads), deleted afterwards. */
  scratch: string;
  signal: AbortSignal;
  /** The login shell's environment. */
  env: Record<string, string>;
  home: string;
  /** Where the installer's tools (npm, uv) run. */
  host: Host;
  progress(update: StepUpdate): void;
  /** file: archive URLs are allowed only when the registry itself was read from a file. */
  allowFileUrls: boolean;
  limits: ExtractLimits;
  downloadIdleTimeoutMs: number;
  maxDownloadBytes: number;
  /** Extra environment for npm (tests: registry mirror, cache folder). */
  npmEnv?: Record<string, string>;
}

/** How to start what was installed; paths are relative to the install folder (it is renamed into place). */
export type Launch =
  | { type: 'node'; script: string; nodePath: string }
  | { type: 'exec'; path: string };

export interface InstallOutcome {
  kind: DistKind;
  launch: Launch;
  /** The registry's args and env for this distribution. */
  args: string[];
  env: Record<string, string>;
  /** What was installed, e.g. "@google/gemini-cli@0.61.0". */
  installed: string;
  warnings: string[];
}

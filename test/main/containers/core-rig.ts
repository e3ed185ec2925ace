import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { scenarioAgentBundleAt } from '../../fixtures/scenario-agent/launch';
import { podmanEnv, removeTestContainers } from '../../support/podman';
import { makeCore, type TestCore } from '../acp/helpers';

export interface ContainerCoreRig {
  /** The scratch folder (removed after the suite). */
  root: string;
  /** The scenario agent's bundle, under root, for an agent started inside a container. */
  bundle: string;
  t: TestCore;
  /** Sessions whose containers are removed after the suite. */
  sessions: string[];
}

/** One in-process core with containers and checkpoints for a describe block, and its cleanup; fields set in beforeAll. */
export function containerCoreRig(prefix: string): ContainerCoreRig {
  const rig = { sessions: [] as string[] } as unknown as ContainerCoreRig;
  beforeAll(async () => {
    rig.root = realpathSync(mkdtempSync(join(tmpdir(), prefix)));
    rig.bundle = scenarioAgentBundleAt(join(rig.root, 'agent-bundle', 'scenario-agent.mjs'));
    rig.t = await makeCore({ dataDir: join(rig.root, 'data'), containers: { engineEnv: podmanEnv() }, checkpoints: true });
  }, 180_000);
  afterAll(async () => {
    await rig.t?.dispose();
    for (const id of rig.sessions) removeTestContainers(id);
    if (rig.root) rmSync(rig.root, { recursive: true, force: true });
  });
  return rig;
}

import { describe, expect, it } from 'vitest';
import { targetFor } from '../../../src/main/core/registry/host-install';

const build = (name: string) => ({ archive: `https://example.invalid/${name}.tar.gz`, cmd: './agent' });

describe("a host's build of a binary agent", () => {
  const targets = { 'linux-x86_64': build('linux-x64'), 'linux-aarch64': build('linux-arm64'), 'darwin-aarch64': build('mac-arm64') };

  it("is picked by the platform and arch the host's helper reports (node's names)", () => {
    expect(targetFor(targets, 'linux', 'arm64')).toEqual({ ok: true, target: build('linux-arm64') });
    expect(targetFor(targets, 'linux', 'x64')).toEqual({ ok: true, target: build('linux-x64') });
    expect(targetFor(targets, 'darwin', 'arm64')).toEqual({ ok: true, target: build('mac-arm64') });
  });

  it('is missing, with the name of the platform and the builds there are, for a platform the registry has none for', () => {
    expect(targetFor(targets, 'darwin', 'x64')).toEqual({ ok: false, platform: 'darwin-x86_64', offered: ['linux-x86_64', 'linux-aarch64', 'darwin-aarch64'] });
    expect(targetFor(targets, 'linux', 'riscv64')).toEqual({ ok: false, platform: 'linux-riscv64', offered: ['linux-x86_64', 'linux-aarch64', 'darwin-aarch64'] });
    expect(targetFor(targets, 'freebsd', 'x64')).toMatchObject({ ok: false, platform: 'freebsd-x64' });
  });
});

import { describe, expect, it } from 'vitest';
import { formatSshAddress, hostIdSchema, parseSshAddress, sshHostId, sshTargetOf, targetProblem } from '../../../src/shared/contract/hosts';
import { failureOf } from '../../../src/main/core/remote/hosts-service';

describe('ssh targets', () => {
  it('takes user@host[:port] and refuses anything ssh could read as an option or a second host', () => {
    expect(parseSshAddress('me@example.com:2222')).toEqual({ user: 'me', hostname: 'example.com', port: 2222 });
    expect(parseSshAddress('me@[::1]:22')).toEqual({ user: 'me', hostname: '[::1]', port: 22 });
    expect(formatSshAddress(parseSshAddress('me@example.com:22')!)).toBe('me@example.com');
    for (const bad of ['me@host:0', 'me@host:70000', '-oProxyCommand=x@h', 'me@-oProxyCommand=x', 'me@host name', 'me@host:22:22', '@host', 'me@', 'a@b@c'])
      expect(parseSshAddress(bad), bad).toBeNull();
    expect(targetProblem('-F/etc/passwd')).toMatch(/not a host name/);
    expect(targetProblem('dev box')).toMatch(/not a host name/);
    expect(targetProblem('devbox')).toBeNull();
  });

  it('names hosts by id, and ssh gets the host after "--"', () => {
    expect(sshHostId('devbox')).toBe('ssh:devbox');
    expect(sshTargetOf('ssh:me@h:2200')).toBe('me@h:2200');
    expect(sshTargetOf('ssh:-oX')).toBeNull();
    expect(hostIdSchema.safeParse('local').success).toBe(true);
    expect(hostIdSchema.safeParse('ssh:-oProxyCommand=sh').success).toBe(false);
  });
});

describe("what the user reads of a failed connect", () => {
  it('shows an unknown key by its fingerprint and type, and a changed key with OpenSSH\'s own warning', () => {
    const unknown = failureOf('devbox', {
      reason: 'host_key_unknown',
      message: 'x',
      hostKey: { host: '[127.0.0.1]:2222', fingerprints: ['256 SHA256:abcDEF+/x [127.0.0.1]:2222 (ED25519)'], lines: [], knownHostsFile: '/k' },
    });
    expect(unknown).toMatchObject({ kind: 'host-key-unknown', fingerprint: 'SHA256:abcDEF+/x', keyType: 'ED25519' });
    expect(unknown.message).toContain('SHA256:abcDEF+/x');
    const warning = '@@@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\nIT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!';
    expect(failureOf('devbox', { reason: 'host_key_changed', message: warning })).toMatchObject({ kind: 'host-key-changed', warning });
    expect(failureOf('devbox', { reason: 'auth', message: 'refused' }).kind).toBe('auth-refused');
    expect(failureOf('devbox', { reason: 'node_missing', message: 'no node' }).kind).toBe('node-missing');
    expect(failureOf('devbox', { reason: 'helper', message: 'broke' })).toEqual({ kind: 'failed', message: 'broke' });
  });
});

import { describe, expect, it } from 'vitest';
import { formatSshAddress, hostIdSchema, parseSshAddress, sshHostId, sshTargetOf, targetProblem } from '../../../src/shared/contract/hosts';
import { configAliases, parseEffective } from '../../../src/main/core/remote/ssh-config';
import { classify, serverKey, targetArgs } from '../../../src/main/core/remote/ssh-probe';

describe('ssh config aliases', () => {
  it('lists the plain names of Host lines, once each, in order, and no pattern', () => {
    const text = [
      '# my hosts',
      'Host devbox build-1',
      '  HostName 10.0.0.5',
      '  User me',
      'Host *.corp !bad.corp gpu?',
      'host   lower.case  # a comment after',
      'HOST=eq-form',
      'Host "quoted name" quoted',
      'Host devbox',
      'Match host foo exec "true"',
      '  Host inside-match',
      'Host -oProxyCommand=evil user@host',
      'Hostname not-a-host-line',
      '',
    ].join('\n');
    expect(configAliases(text)).toEqual(['devbox', 'build-1', 'lower.case', 'eq-form', 'quoted', 'inside-match']);
  });

  it('reads what ssh -G says it will use', () => {
    const out = ['user alice', 'hostname 192.0.2.7', 'port 2222', 'proxyjump bastion', 'userknownhostsfile ~/.ssh/known_hosts ~/.ssh/known_hosts2', 'stricthostkeychecking ask'].join('\n');
    expect(parseEffective(out)).toEqual({ user: 'alice', hostname: '192.0.2.7', port: 2222, proxyJump: 'bastion', knownHostsFile: '~/.ssh/known_hosts' });
    expect(parseEffective('user bob\nhostname h\nport 22\nproxyjump none\n')?.proxyJump).toBeNull();
    expect(parseEffective('user bob\n')).toBeNull();
  });
});

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
    expect(targetArgs('me@h:2200')).toEqual(['-p', '2200', '--', 'me@h']);
    expect(targetArgs('me@[::1]')).toEqual(['--', 'me@::1']);
    expect(targetArgs('devbox')).toEqual(['--', 'devbox']);
  });
});

describe('what a failed connection means', () => {
  const eff = { hostname: '127.0.0.1', port: 2222 };
  const run = (stderr: string, extra: Partial<{ code: number; timedOut: boolean }> = {}) => ({ code: 255, stdout: '', stderr, timedOut: false, startError: null, ...extra });

  it('tells an unknown key (with its fingerprint), a changed key (with OpenSSH\'s warning), a refusal and an unreachable host apart', () => {
    const unknown = run('debug1: Server host key: ssh-ed25519 SHA256:abcDEF\nNo ED25519 host key is known for [127.0.0.1]:2222 and you have requested strict checking.\nHost key verification failed.\n');
    expect(classify('t', eff, unknown, serverKey(unknown.stderr))).toMatchObject({ kind: 'host-key-unknown', fingerprint: 'SHA256:abcDEF', keyType: 'ED25519' });
    const changed = run(
      '@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\n@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@\nIT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!\nHost key verification failed.\n',
    );
    const c = classify('t', eff, changed, null);
    expect(c.kind).toBe('host-key-changed');
    expect(c.kind === 'host-key-changed' && c.warning).toContain('IT IS POSSIBLE THAT SOMEONE IS DOING SOMETHING NASTY!');
    expect(classify('t', eff, run('debug1: x\nme@127.0.0.1: Permission denied (publickey).\n'), null)).toMatchObject({ kind: 'auth-refused' });
    expect(classify('t', eff, run('ssh: connect to host 127.0.0.1 port 2222: Connection refused\n'), null)).toMatchObject({ kind: 'unreachable' });
    expect(classify('t', eff, run('', { timedOut: true, code: null as unknown as number }), null)).toMatchObject({ kind: 'unreachable', message: expect.stringContaining('15 s') });
  });
});

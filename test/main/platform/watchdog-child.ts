// Child process for group-watchdog.test.ts. Spawns process groups and guards them:
//   0: deaf to SIGHUP and SIGTERM, guarded        1: the same, guarded then unguarded
//   2: deaf, guarded as a terminal (SIGHUP first)
//   3: writes the first signal it gets to <dir>/agent, guarded     4: the same to <dir>/terminal, as a terminal
// prints their pgids and waits to be killed.
import { spawn } from 'node:child_process';
import { guardProcessGroup } from '../../../src/main/core/platform/group-watchdog';

const dir = process.argv[2]!;
const deaf = "trap '' HUP TERM; while :; do sleep 1; done";
const telling = (file: string) => `trap 'echo HUP > ${file}; exit' HUP; trap 'echo TERM > ${file}; exit' TERM; while :; do sleep 1; done`;
const scripts = [deaf, deaf, deaf, telling(`${dir}/agent`), telling(`${dir}/terminal`)];
const groups = scripts.map((script) => spawn('/bin/sh', ['-c', script], { detached: true, stdio: 'ignore' }).pid!);
const unguard = groups.map((g, i) => guardProcessGroup(g, { hangup: i === 2 || i === 4 }));
unguard[1]!();
// Registration is a write to a pipe: give it a moment to go out before the test kills this process.
setTimeout(() => console.log(JSON.stringify(groups)), 100);
setInterval(() => undefined, 1000);

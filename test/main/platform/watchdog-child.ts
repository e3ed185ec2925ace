// Child process for group-watchdog.test.ts: spawns three process groups that ignore SIGHUP and SIGTERM,
// guards them all, unguards the second, prints their pgids and waits to be killed.
import { spawn } from 'node:child_process';
import { guardProcessGroup } from '../../../src/main/core/platform/group-watchdog';

const groups = [0, 1, 2].map(() => spawn('/bin/sh', ['-c', "trap '' HUP TERM; while :; do sleep 1; done"], { detached: true, stdio: 'ignore' }).pid!);
const unguard = groups.map((g) => guardProcessGroup(g));
unguard[1]!();
// Registration is a write to a pipe: give it a moment to go out before the test kills this process.
setTimeout(() => console.log(JSON.stringify(groups)), 100);
setInterval(() => undefined, 1000);

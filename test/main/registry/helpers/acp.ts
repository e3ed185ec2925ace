import { spawn } from 'node:child_process';

/**
 * Starts an agent the way a session would (command, args, env of its agents row) and sends ACP
 * `initialize` as one JSON-RPC line on stdin; resolves with the response's result.
 */
export function acpInitialize(
  command: string,
  args: string[],
  env: Record<string, string>,
  options: { cwd: string; timeoutMs: number },
): Promise<{ result: Record<string, unknown>; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    let out = '';
    let stderr = '';
    const end = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        /* gone */
      }
    };
    const timer = setTimeout(() => {
      end();
      reject(new Error(`no initialize response in ${options.timeoutMs} ms; stdout: ${out.slice(-2000)}; stderr: ${stderr.slice(-2000)}`));
    }, options.timeoutMs);
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      for (const line of out.split('\n')) {
        if (!line.trim().startsWith('{')) continue;
        try {
          const msg = JSON.parse(line) as { id?: unknown; result?: Record<string, unknown>; error?: unknown };
          if (msg.id === 1) {
            clearTimeout(timer);
            end();
            if (msg.result) resolve({ result: msg.result, stderr });
            else reject(new Error(`initialize failed: ${JSON.stringify(msg.error)}`));
          }
        } catch {
          /* partial line */
        }
      }
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.stdin.write(
      `${JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false } },
      })}\n`,
    );
  });
}

import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Db } from '../store/database';

/**
 * Encrypts small secrets (API keys from env-var authentication). The Electron glue can pass one built on
 * `safeStorage`; browser mode uses {@link KeyFileCipher}.
 */
export interface SecretCipher {
  encrypt(plain: string): string;
  decrypt(payload: string): string;
}

/** Secrets per agent (scope) and name. Values never leave the main process except into the agent's env. */
export interface SecretStore {
  get(scope: string, name: string): string | null;
  all(scope: string): Record<string, string>;
  set(scope: string, name: string, value: string): void;
  /** Without name: every secret of the scope. Returns how many were removed. */
  delete(scope: string, name?: string): number;
  names(scope: string): string[];
}

/**
 * AES-256-GCM with a random 256-bit key kept in a file (mode 0600) in the data dir. It protects the values
 * in the database file (backups, copies); not against someone who can read the user's files.
 */
export class KeyFileCipher implements SecretCipher {
  private key: Buffer | null = null;

  constructor(readonly keyPath: string) {}

  private loadKey(): Buffer {
    if (this.key) return this.key;
    if (!existsSync(this.keyPath)) {
      mkdirSync(dirname(this.keyPath), { recursive: true });
      try {
        writeFileSync(this.keyPath, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
      } catch (e) {
        // Another process created it first: use theirs.
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      }
    }
    chmodSync(this.keyPath, 0o600);
    const key = Buffer.from(readFileSync(this.keyPath, 'utf8').trim(), 'base64');
    if (key.length !== 32) throw new Error(`the secret key file ${this.keyPath} is damaged`);
    this.key = key;
    return key;
  }

  encrypt(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.loadKey(), iv);
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return `v1:${Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64')}`;
  }

  decrypt(payload: string): string {
    if (!payload.startsWith('v1:')) throw new Error('unknown secret format');
    const raw = Buffer.from(payload.slice(3), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.loadKey(), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}

/** Ciphertexts in the `agent_secrets` table. */
export class DbSecretStore implements SecretStore {
  constructor(
    private readonly db: () => Db,
    private readonly cipher: SecretCipher,
  ) {}

  get(scope: string, name: string): string | null {
    const row = this.db().prepare('SELECT ciphertext FROM agent_secrets WHERE agent_id = ? AND name = ?').get(scope, name) as
      | { ciphertext: string }
      | undefined;
    return row ? this.cipher.decrypt(row.ciphertext) : null;
  }

  all(scope: string): Record<string, string> {
    const rows = this.db().prepare('SELECT name, ciphertext FROM agent_secrets WHERE agent_id = ? ORDER BY name').all(scope) as Array<{
      name: string;
      ciphertext: string;
    }>;
    const out: Record<string, string> = {};
    for (const r of rows) {
      try {
        out[r.name] = this.cipher.decrypt(r.ciphertext);
      } catch (e) {
        console.error(`secret ${r.name} of ${scope} cannot be decrypted:`, (e as Error).message);
      }
    }
    return out;
  }

  set(scope: string, name: string, value: string): void {
    this.db()
      .prepare(
        `INSERT INTO agent_secrets (agent_id, name, ciphertext, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (agent_id, name) DO UPDATE SET ciphertext = excluded.ciphertext, updated_at = excluded.updated_at`,
      )
      .run(scope, name, this.cipher.encrypt(value), Date.now());
  }

  delete(scope: string, name?: string): number {
    const db = this.db();
    return name === undefined
      ? db.prepare('DELETE FROM agent_secrets WHERE agent_id = ?').run(scope).changes
      : db.prepare('DELETE FROM agent_secrets WHERE agent_id = ? AND name = ?').run(scope, name).changes;
  }

  names(scope: string): string[] {
    return (this.db().prepare('SELECT name FROM agent_secrets WHERE agent_id = ? ORDER BY name').all(scope) as Array<{ name: string }>).map((r) => r.name);
  }
}

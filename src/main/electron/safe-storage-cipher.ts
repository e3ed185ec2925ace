import { safeStorage } from 'electron';
import type { SecretCipher } from '../core/agents/secret-store';

/** Secrets encrypted with the OS keychain (Keychain, DPAPI, libsecret/kwallet) through Electron's safeStorage. */
export function safeStorageCipher(): SecretCipher | undefined {
  if (!safeStorage.isEncryptionAvailable()) return undefined;
  return {
    encrypt: (plain) => `ss1:${safeStorage.encryptString(plain).toString('base64')}`,
    decrypt: (payload) => {
      if (!payload.startsWith('ss1:')) throw new Error('not a safeStorage secret');
      return safeStorage.decryptString(Buffer.from(payload.slice(4), 'base64'));
    },
  };
}

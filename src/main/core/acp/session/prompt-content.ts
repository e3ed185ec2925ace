import type { ContentBlock, PromptCapabilities } from '@agentclientprotocol/sdk';
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import { IpcFailure } from '../../../../shared/contract';
import type { PromptBlock } from '../../../../shared/contract/sessions';
import { FsRefusal, type ConfinedFiles } from '../../host/files';

/** Files larger than this are linked, not embedded. */
const MAX_EMBED_BYTES = 1024 * 1024;

/** Refuses what the agent cannot take (checked when the prompt is queued, so the user knows at once). */
export function checkPromptCapabilities(prompt: readonly PromptBlock[], caps: PromptCapabilities | undefined): void {
  for (const block of prompt) {
    if (block.type === 'image' && !caps?.image) throw new IpcFailure('invalid_params', 'this agent does not accept images');
  }
}

/**
 * The user's prompt as ACP content blocks. @-mentions must lie inside the session roots; they are
 * embedded as `resource` when the agent supports embedded context (text files up to 1 MB), else linked.
 */
export async function toContentBlocks(prompt: readonly PromptBlock[], caps: PromptCapabilities | undefined, fs: ConfinedFiles): Promise<ContentBlock[]> {
  checkPromptCapabilities(prompt, caps);
  const out: ContentBlock[] = [];
  for (const block of prompt) {
    switch (block.type) {
      case 'text':
        out.push({ type: 'text', text: block.text });
        break;
      case 'image':
        out.push(block.uri ? { type: 'image', mimeType: block.mimeType, data: block.data, uri: block.uri } : { type: 'image', mimeType: block.mimeType, data: block.data });
        break;
      case 'mention':
        out.push(await mentionBlock(block.path, caps, fs));
        break;
    }
  }
  return out;
}

async function mentionBlock(path: string, caps: PromptCapabilities | undefined, fs: ConfinedFiles): Promise<ContentBlock> {
  let real: string;
  let exists: boolean;
  try {
    ({ real, exists } = await fs.resolve(path));
  } catch (e) {
    throw new IpcFailure('forbidden', (e as Error).message);
  }
  if (!exists) throw new IpcFailure('not_found', `no such file: ${path}`);
  const uri = pathToFileURL(real).href;
  const link: ContentBlock = { type: 'resource_link', uri, name: basename(real) };
  const info = await fs.stat(real).catch(() => null);
  if (info?.kind !== 'file') return link;
  if (!caps?.embeddedContext || info.size > MAX_EMBED_BYTES) return { ...link, size: info.size };
  let bytes: Buffer;
  try {
    ({ data: bytes } = await fs.readFile(real, { maxBytes: MAX_EMBED_BYTES }));
  } catch (e) {
    if (e instanceof FsRefusal && (e.reason === 'too_large' || e.reason === 'not_regular')) return { ...link, size: info.size };
    throw new IpcFailure(e instanceof FsRefusal && e.reason === 'outside' ? 'forbidden' : 'invalid_params', (e as Error).message);
  }
  if (bytes.subarray(0, 8192).includes(0)) return { ...link, size: info.size };
  return { type: 'resource', resource: { uri, text: bytes.toString('utf8') } };
}

import type { ContentBlock, PromptCapabilities } from '@agentclientprotocol/sdk';
import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { pathToFileURL } from 'node:url';
import { IpcFailure } from '../../../../shared/contract';
import type { PromptBlock } from '../../../../shared/contract/sessions';
import type { RootGuard } from './fs-access';

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
export async function toContentBlocks(prompt: readonly PromptBlock[], caps: PromptCapabilities | undefined, guard: RootGuard): Promise<ContentBlock[]> {
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
        out.push(await mentionBlock(block.path, caps, guard));
        break;
    }
  }
  return out;
}

async function mentionBlock(path: string, caps: PromptCapabilities | undefined, guard: RootGuard): Promise<ContentBlock> {
  let real: string;
  let exists: boolean;
  try {
    ({ real, exists } = await guard.resolve(path));
  } catch (e) {
    throw new IpcFailure('forbidden', (e as Error).message);
  }
  if (!exists) throw new IpcFailure('not_found', `no such file: ${path}`);
  const uri = pathToFileURL(real).href;
  const link: ContentBlock = { type: 'resource_link', uri, name: basename(real) };
  const info = await stat(real);
  if (!caps?.embeddedContext || !info.isFile() || info.size > MAX_EMBED_BYTES) {
    return info.isFile() ? { ...link, size: info.size } : link;
  }
  const bytes = await readFile(real);
  if (bytes.subarray(0, 8192).includes(0)) return { ...link, size: info.size };
  return { type: 'resource', resource: { uri, text: bytes.toString('utf8') } };
}

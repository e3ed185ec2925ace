import { Image, Volume2 } from 'lucide-react';
import type { ContentBlock } from '@agentclientprotocol/sdk';
import type { MessagePart } from '@shared/acp-thread';
import { inlineImageSrc, Markdown } from '../markdown';
import { basename } from '../../ui/format';

function uriName(uri: string): string {
  try {
    const u = new URL(uri);
    return basename(decodeURIComponent(u.pathname)) || uri;
  } catch {
    return basename(uri);
  }
}

/** A non-text content block: an image (inline data only), a file link or embedded file, audio. */
export function ContentBlockView({ block }: { block: ContentBlock }) {
  switch (block.type) {
    case 'text':
      return <span className="pre-wrap">{block.text}</span>;
    case 'image': {
      const src = typeof block.data === 'string' && /^image\/(png|jpeg|jpg|gif|webp|avif|bmp)$/i.test(block.mimeType) ? inlineImageSrc(`data:${block.mimeType};base64,${block.data}`) : null;
      return src ? <img className="msg-image" src={src} alt="attached image" /> : <span className="chip"><Image size={13} /> image ({block.mimeType})</span>;
    }
    case 'audio':
      return <span className="chip"><Volume2 size={13} /> audio ({block.mimeType})</span>;
    case 'resource_link':
      return (
        <span className="chip mention-chip" title={block.uri}>
          @{block.name || uriName(block.uri)}
        </span>
      );
    case 'resource':
      return (
        <span className="chip mention-chip" title={block.resource.uri}>
          @{uriName(block.resource.uri)}
        </span>
      );
    default:
      return null;
  }
}

/** A message's parts in order: text as markdown (agent) or as typed (user), other blocks as chips. */
export function Parts({ parts, markdown }: { parts: readonly MessagePart[]; markdown: boolean }) {
  return (
    <>
      {parts.map((p, i) =>
        p.type === 'text' ? (
          markdown ? (
            <Markdown key={i} text={p.text} />
          ) : (
            <span key={i} className="pre-wrap">
              {p.text}
            </span>
          )
        ) : (
          <ContentBlockView key={i} block={p.block} />
        ),
      )}
    </>
  );
}

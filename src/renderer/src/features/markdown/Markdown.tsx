import { memo, useEffect, useRef, useState, type MouseEvent, type ReactNode } from 'react';
import ReactMarkdown, { type Components } from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import rehypeSanitize, { defaultSchema } from 'rehype-sanitize';
import remarkGfm from 'remark-gfm';
import { requestOpenLink } from '../../app/link-confirm';
import { externalHref, inlineImageSrc, transformUrl } from './safe-url';
import { splitBlocks } from './split-blocks';
import './markdown.css';

/**
 * Markdown written by an agent (untrusted). Raw HTML is shown as text, never parsed; the tree is
 * sanitized (GitHub's schema); links never navigate the app; images are inline data only; code is
 * highlighted after sanitizing (so highlight classes survive and nothing else does).
 */

interface HastNode {
  type: string;
  value?: string;
  children?: HastNode[];
}

/** Raw HTML in the markdown becomes visible text (before sanitizing, which would drop it silently). */
function rehypeRawAsText() {
  const walk = (node: HastNode): void => {
    if (!node.children) return;
    for (const child of node.children) {
      if (child.type === 'raw') child.type = 'text';
      else walk(child);
    }
  };
  return (tree: HastNode) => walk(tree);
}

const schema = {
  ...defaultSchema,
  protocols: { ...defaultSchema.protocols, src: ['http', 'https', 'data'] },
};

type ExtensionKey = 'micromarkExtensions' | 'fromMarkdownExtensions' | 'toMarkdownExtensions';
type ExtensionData = Partial<Record<ExtensionKey, unknown[]>>;
const EXTENSION_KEYS: readonly ExtensionKey[] = ['micromarkExtensions', 'fromMarkdownExtensions', 'toMarkdownExtensions'];
// GFM's parser extensions, built once: remark-gfm's attacher combines its micromark extensions every time it is
// attached (react-markdown attaches the plugins on every render: every streamed frame of a message's tail),
// about a tenth of a small block's render. This plugin hands each processor the same extensions.
const gfmExtensions: ExtensionData = {};
(remarkGfm as unknown as (this: { data(): ExtensionData }) => void).call({ data: () => gfmExtensions });
function remarkGfmOnce(this: { data(): ExtensionData }) {
  const data = this.data();
  for (const key of EXTENSION_KEYS) (data[key] ??= []).push(...(gfmExtensions[key] ?? []));
}
const remarkPlugins = [remarkGfmOnce] as never;
// One highlighter for every render: the plugin's attacher builds its grammar registry (several ms),
// and react-markdown re-attaches plugins on each render.
const highlight = rehypeHighlight({ detect: false });
const rehypePlugins = [rehypeRawAsText, [rehypeSanitize, schema], () => highlight] as never;

/** Messages longer than this render as independent blocks, so a streaming message re-parses only its tail. */
const SPLIT_ABOVE = 400;



function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

function Link({ href, children }: { href?: string; children?: ReactNode }) {
  const url = externalHref(href);
  if (!url) {
    // Clicking says why it is not opened (javascript:, file:, mailto: and the like never leave the app).
    return (
      <span className="md-link-disabled" data-testid="md-link-disabled" title={href ? `Not opened: ${href.slice(0, 200)}` : 'Not opened'} onClick={() => requestOpenLink(href ?? '')}>
        {children}
      </span>
    );
  }
  const open = (e: MouseEvent) => {
    e.preventDefault();
    e.stopPropagation();
    requestOpenLink(url);
  };
  return (
    <a
      href={url}
      title={url}
      rel="noreferrer noopener"
      onClick={open}
      onAuxClick={(e) => {
        e.preventDefault();
        if (e.button === 1) open(e);
      }}
      data-external="true"
    >
      {children}
    </a>
  );
}

function Image({ src, alt }: { src?: string | Blob; alt?: string }) {
  const source = typeof src === 'string' ? src : undefined;
  const inline = inlineImageSrc(source);
  if (inline) return <img className="md-image" src={inline} alt={alt ?? ''} />;
  const url = externalHref(source);
  if (url) {
    return (
      <Link href={url}>
        <span className="md-image-link" title={url}>
          🖼 {alt || 'image'} <span className="muted">({hostOf(url)})</span>
        </span>
      </Link>
    );
  }
  return <span className="md-image-link muted">🖼 {alt || 'image'}</span>;
}

function CodeBlock({ children }: { children?: ReactNode }) {
  const ref = useRef<HTMLPreElement>(null);
  const [copied, setCopied] = useState(false);
  const copy = () => {
    const text = ref.current?.innerText ?? '';
    void navigator.clipboard?.writeText(text).then(
      () => {
        setCopied(true);
        setTimeout(() => setCopied(false), 1200);
      },
      () => {},
    );
  };
  return (
    <div className="md-pre">
      <button className="md-copy" onClick={copy} aria-label="Copy code" tabIndex={-1}>
        {copied ? 'Copied' : 'Copy'}
      </button>
      <pre ref={ref}>{children}</pre>
    </div>
  );
}

const components: Components = {
  a: ({ href, children }) => <Link href={href}>{children}</Link>,
  img: ({ src, alt }) => <Image src={src} alt={alt} />,
  pre: ({ children }) => <CodeBlock>{children}</CodeBlock>,
  input: ({ type, checked, disabled }) => <input type={type} checked={checked} disabled={disabled ?? true} readOnly />,
};

const Block = memo(function Block({ text }: { text: string }) {
  return (
    <ReactMarkdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={components} urlTransform={transformUrl}>
      {text}
    </ReactMarkdown>
  );
});

/** The last blocks of a long text, rendered as markdown at once (where a streaming message grows). */
const EAGER_TAIL = 2;

/**
 * The height plain text far from the view is given until it is first laid out (`contain-intrinsic-size`):
 * its lines, at about 100 characters each, so the thread's height and scroll bar stay close to the truth.
 */
function plainHeight(text: string): string {
  let lines = 1;
  let from = 0;
  for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', from)) {
    lines += Math.floor((nl - from) / 100) + 1;
    from = nl + 1;
  }
  lines += Math.floor((text.length - from) / 100);
  return `auto ${Math.round(lines * 21)}px`;
}

/**
 * `text` as plain text until it is about to be shown, then `formatted()`. Far from the view, the plain text is not
 * even laid out (`content-visibility: auto`, markdown.css), and the browser says when it is about to be shown.
 */
function PlainUntilShown({ text, shownAtFirst, formatted }: { text: string; shownAtFirst: boolean; formatted: () => ReactNode }) {
  const ref = useRef<HTMLDivElement>(null);
  const [shown, setShown] = useState(shownAtFirst);
  useEffect(() => {
    const el = ref.current;
    if (shown || !el) return;
    const onState = (e: Event) => {
      if ((e as Event & { skipped?: boolean }).skipped === false) setShown(true);
    };
    el.addEventListener('contentvisibilityautostatechange', onState);
    return () => el.removeEventListener('contentvisibilityautostatechange', onState);
  }, [shown]);
  if (shown) return formatted();
  return (
    <div ref={ref} className="md-plain" style={{ containIntrinsicSize: plainHeight(text) }} data-testid="md-plain">
      {text}
    </div>
  );
}

/**
 * A block of a long text: shown as plain text until it comes near the view, then as markdown. Parsing is
 * most of what a long message costs (a flood of 200 KB is ~50 blocks), and most of them are off screen:
 * the user sees formatted text wherever they look, and the newest text paints without waiting for the rest.
 */
const LazyBlock = memo(function LazyBlock({ text, eager }: { text: string; eager: boolean }) {
  return <PlainUntilShown text={text} shownAtFirst={eager} formatted={() => <Block text={text} />} />;
});

/** Blocks this far from the end of a long text are kept in groups of GROUP… */
const SINGLE_TAIL = 64;
/**
 * …each one element until it is near the view, then a LazyBlock per block. A 10 MB message is ~7,000 blocks:
 * one element each took 1.7–2.5 s from a reload to the first row painted; grouped (~300), 0.3 s.
 */
const GROUP = 32;

const LazyGroup = memo(
  function LazyGroup({ blocks }: { blocks: readonly string[] }) {
    return <PlainUntilShown text={blocks.join('\n\n')} shownAtFirst={false} formatted={() => blocks.map((block, i) => <LazyBlock key={i} text={block} eager={false} />)} />;
  },
  (a, b) => a.blocks.length === b.blocks.length && a.blocks.every((block, i) => block === b.blocks[i]),
);

function Blocks({ blocks }: { blocks: readonly string[] }) {
  // Whole groups only, so a group's blocks never change once it is formed (the text grows at its end).
  const grouped = Math.floor(Math.max(0, blocks.length - SINGLE_TAIL) / GROUP) * GROUP;
  const out = [];
  for (let g = 0; g < grouped; g += GROUP) out.push(<LazyGroup key={`g${g}`} blocks={blocks.slice(g, g + GROUP)} />);
  for (let i = grouped; i < blocks.length; i++) out.push(<LazyBlock key={`b${i}`} text={blocks[i]!} eager={i >= blocks.length - EAGER_TAIL} />);
  return out;
}

export const Markdown = memo(function Markdown({ text, className }: { text: string; className?: string }) {
  const blocks = text.length > SPLIT_ABOVE ? splitBlocks(text) : null;
  return (
    <div className={`markdown${className ? ` ${className}` : ''}`}>
      {blocks ? <Blocks blocks={blocks} /> : <Block text={text} />}
    </div>
  );
});

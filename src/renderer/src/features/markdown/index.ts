export { Markdown } from './Markdown';
export { externalHref, inlineImageSrc } from './safe-url';

export * from './types';
export { applyEvent, applyEvents, createThread, KNOWN_UPDATE_KINDS } from './reducer';
export { messageText, partsFromContent } from './messages';
export { isFinished } from './tool-calls';
export { threadFromWire, WireReplayer, type WireMessage } from './replay';

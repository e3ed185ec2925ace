export * from './types';
export { applyEvent, applyEvents, createThread } from './reducer';
export { CHUNK_UPDATE_KINDS, CONVERSATION_UPDATE_KINDS, entryKindOf, KNOWN_UPDATE_KINDS, UPDATE_KINDS, updateKindsShowingAs, type EntryKind, type UpdateKind } from './updates';
export { messageText, partsFromContent } from './messages';
export { isFinished } from './tool-calls';
export { threadFromWire, WireReplayer, type WireMessage } from './replay';
export { ReplayMatcher } from './replay-match';
export { elicitationLines } from './elicitations';
export { threadEntries, threadLength, threadTail, toolIndexUpTo } from './window';

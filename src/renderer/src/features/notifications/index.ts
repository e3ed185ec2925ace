export { desktopNotify } from './desktop';
export { notifyWanted } from './preferences';

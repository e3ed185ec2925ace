const isMac = typeof navigator !== 'undefined' && navigator.platform.toLowerCase().includes('mac');

/** How the Mod key is written on this platform. */
export const modKey = isMac ? '⌘' : 'Ctrl';

/**
 * The last line of defence in browser mode: an error no handler caught (a request's callback, a socket
 * event nobody listened for) is logged and the server keeps serving. Each request handler contains its
 * own failures; this is for what slips past them, so one hostile request cannot end every session.
 */
export function installSafetyNet(log: (message: string, error: unknown) => void = (m, e) => console.error(m, e)): () => void {
  const onException = (e: unknown) => log('Switchboard: unexpected error (still serving):', e);
  const onRejection = (e: unknown) => log('Switchboard: unhandled rejection (still serving):', e);
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  return () => {
    process.off('uncaughtException', onException);
    process.off('unhandledRejection', onRejection);
  };
}

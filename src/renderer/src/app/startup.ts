import { connect } from '../ipc/client';
import { FIRST_PAINT } from './first-paint';

/**
 * The connection, opened when this module runs: main.tsx imports it before anything else, so the socket opens
 * and the first paint's requests are answered while the rest of the page's script runs. Only main.tsx imports
 * this module (its constants are in first-paint.ts): anything else importing it would connect as a side effect.
 */
export const connection = connect(FIRST_PAINT);

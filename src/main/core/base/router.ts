import {
  err,
  IpcFailure,
  isRequestName,
  MAX_PARAMS_CONTAINERS,
  MAX_PARAMS_DEPTH,
  paramsShapeProblem,
  ok,
  requests,
  type ParsedParamsOf,
  type RequestName,
  type Result,
  type ResultOf,
} from '../../../shared/contract';

export type Handler<N extends RequestName> = (params: ParsedParamsOf<N>) => Promise<ResultOf<N>> | ResultOf<N>;

/**
 * Dispatches contract requests to service handlers. The renderer is not trusted: the method name is
 * checked against the contract and the params against its zod schema before any handler runs.
 */
export class Router {
  private readonly handlers = new Map<RequestName, (params: unknown) => Promise<unknown> | unknown>();

  handle<N extends RequestName>(name: N, handler: Handler<N>): void {
    if (this.handlers.has(name)) throw new Error(`handler for ${name} registered twice`);
    this.handlers.set(name, handler as (params: unknown) => unknown);
  }

  has(name: RequestName): boolean {
    return this.handlers.has(name);
  }

  async invoke(method: unknown, params: unknown): Promise<Result<unknown>> {
    if (!isRequestName(method)) {
      return err('unknown_method', `unknown method: ${String(method).slice(0, 200)}`);
    }
    const handler = this.handlers.get(method);
    if (!handler) return err('unavailable', `${method} is not available`);
    // Checked before the schema: zod and the handlers recurse, and a deep enough request exhausts the stack.
    const shape = paramsShapeProblem(params, MAX_PARAMS_DEPTH, MAX_PARAMS_CONTAINERS);
    if (shape) {
      const why = shape === 'too_deep' ? `nested more than ${MAX_PARAMS_DEPTH} levels deep` : `more than ${MAX_PARAMS_CONTAINERS} arrays and objects`;
      return err('invalid_params', `invalid params for ${method}: ${why}`, [{ path: '', message: why }]);
    }
    const parsed = requests[method].params.safeParse(params ?? {});
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message }));
      return err('invalid_params', `invalid params for ${method}: ${issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ')}`, issues);
    }
    try {
      return ok(await handler(parsed.data));
    } catch (e) {
      if (e instanceof IpcFailure) return err(e.code, e.message);
      console.error(`${method} failed:`, e);
      return err('internal', e instanceof Error ? e.message : String(e));
    }
  }
}

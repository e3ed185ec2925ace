import type { PriceTable } from '../../../shared/contract/tasks';

/**
 * What a token costs when an agent reports tokens but no cost: USD per million tokens, blended (a coding agent
 * reads far more than it writes, so the blend leans to the input price). Dated: prices change; the user edits
 * the table in Settings → Usage, and an edited table replaces this one.
 */
export const DEFAULT_PRICES: PriceTable = {
  asOf: '2026-01-01',
  prices: [
    { model: 'claude-opus*', perMillion: 20 },
    { model: 'claude-sonnet*', perMillion: 4.5 },
    { model: 'claude-haiku*', perMillion: 1.5 },
    { model: 'gpt-5*', perMillion: 2.5 },
    { model: 'gpt-4.1*', perMillion: 2.8 },
    { model: 'gemini-2.5-pro*', perMillion: 2.2 },
    { model: 'gemini-2.5-flash*', perMillion: 0.5 },
    { model: '*', perMillion: 5 },
  ],
};

/** USD per million tokens of `model` (null: unknown model): the exact entry, else the longest prefix, else '*'. */
export function pricePerMillion(table: PriceTable, model: string | null): number {
  const m = (model ?? '').toLowerCase();
  const exact = table.prices.find((p) => p.model.toLowerCase() === m);
  if (exact) return exact.perMillion;
  const prefixes = table.prices
    .filter((p) => p.model.endsWith('*') && p.model.length > 1 && m.startsWith(p.model.slice(0, -1).toLowerCase()))
    .sort((a, b) => b.model.length - a.model.length);
  if (prefixes[0]) return prefixes[0].perMillion;
  return table.prices.find((p) => p.model === '*')?.perMillion ?? 0;
}

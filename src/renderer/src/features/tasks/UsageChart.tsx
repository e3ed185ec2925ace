import type { Usage } from '@shared/contract/tasks';
import { money, tokens } from './format';

/** The last days' spending as bars (money where any was spent, else tokens); each bar says its day and amounts. */
export function UsageChart({ days }: { days: Usage['days'] }) {
  const byMoney = days.some((d) => d.money > 0);
  const value = (d: Usage['days'][number]) => (byMoney ? d.money : d.tokens);
  const max = Math.max(...days.map(value), 0) || 1;
  const w = 16;
  const h = 60;
  return (
    <svg className="usage-chart" width={days.length * (w + 4)} height={h + 14} role="img" aria-label={`Spending of the last ${days.length} days, in ${byMoney ? 'USD' : 'tokens'}`} data-testid="usage-chart">
      {days.map((d, i) => {
        const bh = Math.round((value(d) / max) * h);
        return (
          <g key={d.day} data-testid="usage-bar" data-day={d.day} data-money={d.money} data-tokens={d.tokens}>
            <title>{`${d.day}: ${money(d.money)}, ${tokens(d.tokens)} tokens`}</title>
            <rect x={i * (w + 4)} y={h - bh} width={w} height={Math.max(bh, 1)} className={bh > 0 ? 'usage-bar' : 'usage-bar empty'} />
            <text x={i * (w + 4) + w / 2} y={h + 12} textAnchor="middle" className="usage-day">
              {d.day.slice(8)}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

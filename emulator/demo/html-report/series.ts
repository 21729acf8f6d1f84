/** The four series of a consumer's chart, in legend order: the key in the timeline's points, its label, and its color. */
export const SERIES = [
  { key: 'deliveries', label: 'deliveries', color: '#2563eb', axis: 'count' },
  { key: 'duplicates', label: 'duplicates skipped', color: '#d97706', axis: 'count' },
  { key: 'effects', label: 'effects applied', color: '#059669', axis: 'count' },
  { key: 'dlqDepth', label: 'DLQ depth', color: '#7c3aed', axis: 'depth' },
] as const;

/** The alarm states' colors: green, red and grey. */
export const STATE_COLORS = { OK: '#16a34a', ALARM: '#dc2626', INSUFFICIENT_DATA: '#9ca3af' } as const;

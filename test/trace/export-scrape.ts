// The exporter's /metrics as a test reads it: one scrape, and the sum of a metric's samples.

export const scrape = async (port: number): Promise<string> => (await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(5000) })).text();

/** The sum of a metric's samples in a scrape (0 when absent). */
export function metricSum(text: string, name: string): number {
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `))
    .reduce((n, l) => n + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}

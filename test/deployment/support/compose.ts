import { parse } from 'yaml';
import { readRepoFile } from './repo';

/** docker-compose.yml as Compose reads it: YAML merge keys (`<<: *anchor`) resolved, nothing interpolated. */
export function loadComposeFile(text = readRepoFile('docker-compose.yml')): any {
  return parse(text, { merge: true });
}

/**
 * Compose interpolation of `$VAR`, `${VAR}`, `${VAR:-default}`, `${VAR-default}` and `$$`
 * against the given host environment (empty: every default applies).
 */
export function interpolate(value: string, host: Record<string, string> = {}): string {
  return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g, (match, name, op, fallback, bare) => {
    if (match === '$$') return '$';
    if (bare !== undefined) return host[bare] ?? '';
    const set = host[name];
    if (op === ':-') return set === undefined || set === '' ? fallback : set;
    if (op === '-') return set === undefined ? fallback : set;
    return set ?? '';
  });
}

/** A service's `environment` (map or KEY=VALUE list), interpolated, as the strings the process sees. */
export function serviceEnvironment(service: any, host: Record<string, string> = {}): Record<string, string> {
  const raw = service.environment ?? {};
  const entries: [string, unknown][] = Array.isArray(raw)
    ? raw.map((item: string) => {
        const at = item.indexOf('=');
        return at < 0 ? [item, null] : [item.slice(0, at), item.slice(at + 1)];
      })
    : Object.entries(raw);
  const env: Record<string, string> = {};
  for (const [key, value] of entries) {
    // A bare key takes the host's value, or is left out when the host has none.
    if (value === null || value === undefined) {
      if (host[key] !== undefined) env[key] = host[key];
      continue;
    }
    env[key] = interpolate(String(value), host);
  }
  return env;
}

/** A Compose duration ("45s", "1m30s", "500ms") in milliseconds. */
export function composeDurationMs(value: string): number {
  const units: Record<string, number> = { ns: 1e-6, us: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const parts = [...value.matchAll(/(\d+(?:\.\d+)?)(ns|us|ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== value) throw new Error(`not a duration: ${value}`);
  return parts.reduce((total, p) => total + Number(p[1]) * units[p[2]], 0);
}

import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(__dirname, '..', '..', '..');

export function readRepoFile(path: string): string {
  return readFileSync(join(REPO_ROOT, path), 'utf8');
}

/**
 * The command of each app, from the Dockerfile's header (`#   <app> [(default)]  node <main.js>`),
 * which docker-compose.yml and the k8s manifests must repeat.
 */
export function dockerfileAppCommands(): Map<string, string[]> {
  const commands = new Map<string, string[]>();
  for (const line of readRepoFile('Dockerfile').split('\n')) {
    const match = /^#\s+([a-z-]+)(?:\s+\(default\))?\s+(node\s+dist\/\S+\/main\.js)\s*$/.exec(line);
    if (match) commands.set(match[1], match[2].split(/\s+/));
  }
  return commands;
}

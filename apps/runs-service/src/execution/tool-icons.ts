import { ToolIcon } from '@aas/contracts';

/** The built-in tool whose icon is the favicon of the site it called (docs/contract.md, tool_icons). */
const HTTP_REQUEST = 'http_request';

/**
 * The tool_icons entry of a tool call: the tool's name, the catalogue's icon for it (null when the
 * catalogue does not list it) and, for http_request, `<origin>/favicon.ico` of the URL it called.
 */
export function toolIconFor(tool: string, input: unknown, icon: string | null): ToolIcon {
  return { action_type: tool, favicon_url: tool === HTTP_REQUEST ? faviconOf(input) : null, icon };
}

function faviconOf(input: unknown): string | null {
  const url = typeof input === 'object' && input !== null ? (input as { url?: unknown }).url : undefined;
  if (typeof url !== 'string') return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? `${parsed.origin}/favicon.ico` : null;
  } catch {
    return null;
  }
}

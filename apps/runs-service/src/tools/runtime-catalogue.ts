import { ToolCatalogue, ToolCatalogueEntry } from '@aas/contracts';
import { ServiceUnavailableError } from '@aas/problem-details';
import { signDispatch } from '../signing/runtime-signature';

/** How long one request for the catalogue may take, and its largest answer. */
export const CATALOGUE_TIMEOUT_MS = 5_000;
export const CATALOGUE_MAX_BYTES = 1_048_576;
export const CATALOGUE_MAX_TOOLS = 500;

/**
 * `GET {AGENT_RUNTIME_URL}/tools` (docs/runtime-protocol.md): signed, when a secret is set, as the
 * dispatch is, over the empty body. A version 1 runtime answers 404: it has no catalogue, so no tools.
 * Anything else that is not a catalogue means the runtime cannot be asked: a 503.
 */
export async function fetchRuntimeCatalogue(runtimeUrl: string, secret: string | undefined): Promise<ToolCatalogue> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (secret) headers['x-service-signature'] = signDispatch(secret, '');
  let response: Response;
  try {
    response = await fetch(catalogueUrl(runtimeUrl), { headers, redirect: 'error', signal: AbortSignal.timeout(CATALOGUE_TIMEOUT_MS) });
  } catch (error) {
    throw unavailable(`it could not be reached: ${(error as Error).message}`);
  }
  if (response.status === 404) {
    await response.body?.cancel().catch(() => undefined);
    return { tools: [] };
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw unavailable(`it answered HTTP ${response.status}`);
  }
  return catalogueOf(await bodyOf(response));
}

/** `{AGENT_RUNTIME_URL}/tools`, whether or not the URL ends with a slash. */
export function catalogueUrl(runtimeUrl: string): string {
  const url = new URL(runtimeUrl);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/tools`;
  url.search = '';
  return url.toString();
}

/** The entries that have the form of ToolCatalogueEntry; others are left out rather than failing the whole list. */
export function catalogueOf(body: unknown): ToolCatalogue {
  const tools = typeof body === 'object' && body !== null ? (body as { tools?: unknown }).tools : undefined;
  if (!Array.isArray(tools)) throw unavailable('its answer is not a JSON object with a tools array');
  return { tools: tools.filter(isEntry).slice(0, CATALOGUE_MAX_TOOLS).map(entryOf) };
}

async function bodyOf(response: Response): Promise<unknown> {
  const text = await response.text().catch((error: Error) => {
    throw unavailable(`its answer could not be read: ${error.message}`);
  });
  if (Buffer.byteLength(text, 'utf8') > CATALOGUE_MAX_BYTES) throw unavailable(`its answer is over ${CATALOGUE_MAX_BYTES} bytes`);
  try {
    return JSON.parse(text);
  } catch {
    throw unavailable('its answer is not JSON');
  }
}

function isEntry(value: unknown): value is ToolCatalogueEntry {
  if (typeof value !== 'object' || value === null) return false;
  const e = value as Record<string, unknown>;
  return (
    typeof e.name === 'string' &&
    e.name.length > 0 &&
    e.name.length <= 200 &&
    typeof e.description === 'string' &&
    typeof e.input_schema === 'object' &&
    e.input_schema !== null &&
    !Array.isArray(e.input_schema) &&
    (e.icon === null || e.icon === undefined || typeof e.icon === 'string') &&
    (e.server === null || e.server === undefined || typeof e.server === 'string')
  );
}

/** Only the fields of the contract, so that nothing else a runtime adds reaches the API. */
function entryOf(e: ToolCatalogueEntry): ToolCatalogueEntry {
  return { name: e.name, description: e.description, input_schema: e.input_schema, icon: e.icon ?? null, server: e.server ?? null };
}

function unavailable(why: string): ServiceUnavailableError {
  return new ServiceUnavailableError(`The agent runtime's tool catalogue is unavailable: ${why}`);
}

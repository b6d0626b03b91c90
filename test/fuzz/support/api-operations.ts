/** One operation of the gateway's OpenAPI document, as the fuzz needs it. */
export interface ApiOperation {
  method: string;
  /** The path template, e.g. /v1/agents/{agent_id}/runs. */
  path: string;
  pathParams: string[];
  /** Every method of this path, upper case. */
  pathMethods: string[];
  queryParams: { name: string; schema: Record<string, any> }[];
  headerParams: string[];
  /** The component name of the JSON request body, when there is one. */
  bodySchema?: string;
  bodyRequired: boolean;
  /** Every status the operation documents (successes and problems). */
  documented: number[];
  successes: number[];
  /** Answers with text/event-stream on success. */
  streams: boolean;
  /** Needs an x-api-key (the document's default); false for the console's sign-in routes, which declare other security. */
  keyAuthenticated: boolean;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];

export function operationsOf(document: any): ApiOperation[] {
  const operations: ApiOperation[] = [];
  for (const [path, item] of Object.entries<Record<string, any>>(document.paths ?? {})) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!METHODS.includes(method)) continue;
      const parameters: any[] = [...(item.parameters ?? []), ...(op.parameters ?? [])];
      const documented = Object.keys(op.responses ?? {})
        .filter((s) => /^\d{3}$/.test(s))
        .map(Number);
      const body = op.requestBody?.content?.['application/json']?.schema?.$ref as string | undefined;
      const successes = documented.filter((s) => s >= 200 && s < 300);
      operations.push({
        method: method.toUpperCase(),
        path,
        pathMethods: Object.keys(item).filter((m) => METHODS.includes(m)).map((m) => m.toUpperCase()),
        pathParams: [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]),
        queryParams: parameters.filter((p) => p.in === 'query').map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        headerParams: parameters.filter((p) => p.in === 'header').map((p) => String(p.name).toLowerCase()),
        bodySchema: body?.replace('#/components/schemas/', ''),
        bodyRequired: Boolean(op.requestBody?.required),
        documented,
        successes,
        streams: successes.some((s) => op.responses[String(s)]?.content?.['text/event-stream'] !== undefined),
        keyAuthenticated: op.security === undefined || op.security.some((requirement: object) => 'x-api-key' in requirement),
      });
    }
  }
  return operations;
}

export function labelOf(op: Pick<ApiOperation, 'method' | 'path'>): string {
  return `${op.method} ${op.path}`;
}

import { ToolCatalogueEntry } from '@aas/contracts';
import { z } from 'zod';
import { ASK_USER, ASK_USER_DESCRIPTION, askUserInput } from './ask-user.tool';
import { HTTP_REQUEST, HTTP_REQUEST_DESCRIPTION, httpRequestInput } from './http-request.tool';

function entry(name: string, description: string, input: z.ZodType, icon: string): ToolCatalogueEntry {
  return { name, description, input_schema: z.toJSONSchema(input) as Record<string, unknown>, icon, server: null };
}

/** The tools this runtime offers (GET /tools): what build runs may put in plan steps. */
export const TOOL_CATALOGUE: ToolCatalogueEntry[] = [
  entry(HTTP_REQUEST, HTTP_REQUEST_DESCRIPTION, httpRequestInput, 'globe'),
  entry(ASK_USER, ASK_USER_DESCRIPTION, askUserInput, 'message-circle-question'),
];

export const TOOL_NAMES = new Set(TOOL_CATALOGUE.map((tool) => tool.name));

import { USER_MESSAGE_MAX_LENGTH } from '@aas/contracts';
import Mustache from 'mustache';

// Templates are few and cheap to parse; mustache's own cache would keep every template ever rendered.
Mustache.templateCache = undefined;

/** What a template can name: `{{payload.…}}`, `{{headers.…}}`, `{{trigger.…}}`, `{{source_run.…}}`. */
export interface TemplateView {
  payload?: unknown;
  headers?: Record<string, string>;
  trigger: { id: string; name: string; kind: string };
  source_run?: Record<string, unknown>;
}

/** Why a template was refused; the detail of a 400. */
export class TemplateRefused extends Error {}

/**
 * Mustache (logic-less: names, sections and inverted sections; nothing executes, the view is plain
 * JSON) with no HTML escaping: the result is a run's user_message, not a web page. Objects and arrays
 * render as JSON. Partials are not supported.
 */
export function checkTemplate(template: string): void {
  try {
    const tokens = Mustache.parse(template);
    if (JSON.stringify(tokens).includes('[">"')) throw new TemplateRefused('partials ({{> name}}) are not supported');
  } catch (error) {
    if (error instanceof TemplateRefused) throw new TemplateRefused(`message_template: ${error.message}`);
    throw new TemplateRefused(`message_template is not a valid Mustache template: ${(error as Error).message}`);
  }
}

/** The rendered message, cut to the longest user_message a run takes. */
export function renderMessage(template: string | null, view: TemplateView): string | undefined {
  if (template === null) return undefined;
  const rendered = Mustache.render(template, inert(view), {}, { escape: asText });
  return rendered.length > USER_MESSAGE_MAX_LENGTH ? rendered.slice(0, USER_MESSAGE_MAX_LENGTH) : rendered;
}

/**
 * A copy without prototypes: mustache looks names up with `in` and calls any function it finds, so
 * `{{payload.constructor}}` would otherwise reach and call Object, and `{{payload.list.map}}` an
 * Array method. Without prototypes the only names are the data's own.
 */
function inert(value: unknown): unknown {
  if (Array.isArray(value)) return Object.setPrototypeOf(value.map(inert), null);
  if (typeof value !== 'object' || value === null) return value;
  const copy = Object.create(null) as Record<string, unknown>;
  for (const [key, child] of Object.entries(value)) copy[key] = inert(child);
  return copy;
}

function asText(value: unknown): string {
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}

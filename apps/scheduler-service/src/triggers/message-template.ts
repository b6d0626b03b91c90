import { USER_MESSAGE_MAX_LENGTH } from '@aas/contracts';
import Mustache from 'mustache';

// Parsed templates are kept by compiledTemplate's own bounded cache; mustache's would keep every template ever rendered.
Mustache.templateCache = undefined;

/** The most work one rendering may do: tokens visited, section iterations, context frames and name parts looked up. */
export const TEMPLATE_MAX_STEPS = 50_000;
/** The longest tag, delimiters included; with no longer tag, parsing stays linear in the template's length. */
export const TEMPLATE_TAG_MAX = 200;

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
 * A rendered message, and whether it was cut: at the longest user_message, after TEMPLATE_MAX_STEPS, or
 * at once because the stored template breaks a rule made after it was stored.
 */
export interface RenderedMessage {
  text: string;
  cut: 'length' | 'steps' | 'rules' | null;
}

type Node =
  | { kind: 'text'; text: string }
  | { kind: 'name'; path: NamePath }
  | { kind: 'section'; path: NamePath; inverted: boolean; children: Node[] };

/** `.` (the current item), or a name's dotted parts. */
type NamePath = { current: true } | { current: false; parts: string[] };

/**
 * Mustache (logic-less: names, sections and inverted sections; nothing executes) with no HTML
 * escaping: the result is a run's user_message, not a web page. Objects and arrays render as JSON.
 * Partials and delimiter changes are refused, and no tag may be longer than TEMPLATE_TAG_MAX.
 * @throws TemplateRefused naming the rule
 */
export function checkTemplate(template: string): void {
  // null reaches here on creation, where IsOptional let it through: on create there is nothing to clear.
  if (typeof template !== 'string') throw new TemplateRefused('message_template must be a string');
  compiledTemplate(template);
}

/**
 * The rendered message, or undefined without a template. Rendering walks the parsed template with a
 * budget: it stops when the output reaches the longest user_message, or after TEMPLATE_MAX_STEPS
 * steps, and the run gets what was rendered until then; so no payload makes one call's rendering
 * cost more than about 10-15 ms (docs/triggers.md). A stored template that breaks a rule made
 * after it was stored renders as an empty message.
 */
export function renderMessage(template: string | null, view: TemplateView): RenderedMessage | undefined {
  if (template === null) return undefined;
  let nodes: Node[];
  try {
    nodes = compiledTemplate(template);
  } catch (error) {
    if (error instanceof TemplateRefused) return { text: '', cut: 'rules' };
    throw error;
  }
  const output = new BudgetedOutput();
  output.render(nodes, { view, parent: null });
  return { text: output.text(), cut: output.cut };
}

const compiled = new Map<string, Node[]>();
const COMPILED_KEPT = 100;

function compiledTemplate(template: string): Node[] {
  const known = compiled.get(template);
  if (known) return known;
  checkTags(template);
  let tokens: Mustache.TemplateSpans;
  try {
    tokens = Mustache.parse(template);
  } catch (error) {
    throw new TemplateRefused(`message_template is not a valid Mustache template: ${(error as Error).message}`);
  }
  const nodes = toNodes(tokens);
  if (compiled.size >= COMPILED_KEPT) compiled.delete(compiled.keys().next().value!);
  compiled.set(template, nodes);
  return nodes;
}

/**
 * Linear checks before mustache's parser sees the template: its tag scanner backtracks over
 * whitespace inside an unclosed tag (quadratic: ~90 ms for 10,000 characters), and a delimiter
 * change would move the tags out of sight of this check.
 */
function checkTags(template: string): void {
  for (let open = template.indexOf('{{'); open !== -1; ) {
    const close = template.indexOf('}}', open + 2);
    if (close === -1) throw new TemplateRefused(`message_template has an unclosed tag at ${open}`);
    const end = template.startsWith('}}}', close) && template[open + 2] === '{' ? close + 3 : close + 2;
    if (end - open > TEMPLATE_TAG_MAX) throw new TemplateRefused(`message_template: a tag is at most ${TEMPLATE_TAG_MAX} characters long (the one at ${open} is ${end - open})`);
    const kind = template.slice(open + 2, end).trimStart()[0];
    if (kind === '>') throw new TemplateRefused('message_template: partials ({{> name}}) are not supported');
    if (kind === '=') throw new TemplateRefused('message_template: delimiter changes ({{=<% %>=}}) are not supported');
    open = template.indexOf('{{', end);
  }
}

function toNodes(tokens: Mustache.TemplateSpans): Node[] {
  const nodes: Node[] = [];
  for (const token of tokens) {
    const [type, value] = token;
    if (type === 'text') nodes.push({ kind: 'text', text: value });
    else if (type === 'name' || type === '&') nodes.push({ kind: 'name', path: namePath(value) });
    else if (type === '#' || type === '^') {
      nodes.push({ kind: 'section', path: namePath(value), inverted: type === '^', children: toNodes(token[4] as Mustache.TemplateSpans) });
    } else if (type === '>') throw new TemplateRefused('message_template: partials ({{> name}}) are not supported');
    // '!' (comments) and '=' render nothing.
  }
  return nodes;
}

function namePath(name: string): NamePath {
  if (name === '.') return { current: true };
  // As mustache: a name with a dot after its first character is a path; a leading dot is part of the name.
  return { current: false, parts: name.indexOf('.') > 0 ? name.split('.') : [name] };
}

interface Frame {
  view: unknown;
  parent: Frame | null;
}

/** Rendering stopped: the output is full, or the step budget is used up. */
class Stop extends Error {}

/** The output of one rendering, with its budget of steps and characters. */
class BudgetedOutput {
  cut: RenderedMessage['cut'] = null;
  private readonly parts: string[] = [];
  private length = 0;
  private steps = 0;
  private readonly json = new WeakMap<object, string>();

  render(nodes: Node[], frame: Frame): void {
    try {
      this.renderNodes(nodes, frame);
    } catch (error) {
      if (!(error instanceof Stop)) throw error;
    }
  }

  text(): string {
    return this.parts.join('');
  }

  private renderNodes(nodes: Node[], frame: Frame): void {
    for (const node of nodes) {
      this.step();
      if (node.kind === 'text') this.write(node.text);
      else if (node.kind === 'name') this.writeValue(this.lookup(frame, node.path));
      else this.renderSection(node, frame);
    }
  }

  /** Mustache's rules: an array repeats the section per item, any other truthy value renders it once (objects, strings and numbers as its context). */
  private renderSection(node: Extract<Node, { kind: 'section' }>, frame: Frame): void {
    const value = this.lookup(frame, node.path);
    if (node.inverted) {
      if (!value || (Array.isArray(value) && value.length === 0)) this.renderNodes(node.children, frame);
      return;
    }
    if (!value) return;
    if (Array.isArray(value)) {
      for (const item of value) {
        this.step();
        this.renderNodes(node.children, { view: item, parent: frame });
      }
    } else if (typeof value === 'object' || typeof value === 'string' || typeof value === 'number') {
      this.renderNodes(node.children, { view: value, parent: frame });
    } else {
      this.renderNodes(node.children, frame);
    }
  }

  /**
   * Mustache's lookup (the innermost frame that has the name wins), on own properties only: the data is
   * JSON, and nothing inherited (constructor, map, toString) can be reached or called.
   */
  private lookup(frame: Frame, path: NamePath): unknown {
    if (path.current) return frame.view;
    for (let at: Frame | null = frame; at !== null; at = at.parent) {
      this.step();
      let value: unknown = at.view;
      for (let i = 0; i < path.parts.length; i++) {
        this.step();
        const last = i === path.parts.length - 1;
        // A single name is looked up on objects only; the last part of a path also on a string (its length).
        const has =
          value !== null && value !== undefined && (typeof value === 'object' || (last && path.parts.length > 1)) && Object.hasOwn(value as object, path.parts[i]);
        if (!has) break;
        value = (value as Record<string, unknown>)[path.parts[i]];
        if (last) return value;
      }
    }
    return undefined;
  }

  private writeValue(value: unknown): void {
    if (value === null || value === undefined) return;
    if (typeof value !== 'object') return this.write(String(value));
    let text = this.json.get(value);
    if (text === undefined) {
      text = JSON.stringify(value);
      this.json.set(value, text);
    }
    this.write(text);
  }

  private write(text: string): void {
    const room = USER_MESSAGE_MAX_LENGTH - this.length;
    if (text.length <= room) {
      this.parts.push(text);
      this.length += text.length;
      return;
    }
    this.parts.push(cutAt(text, room));
    this.length = USER_MESSAGE_MAX_LENGTH;
    this.cut = 'length';
    throw new Stop();
  }

  private step(): void {
    if (++this.steps <= TEMPLATE_MAX_STEPS) return;
    this.cut = 'steps';
    throw new Stop();
  }
}

/** The first `length` UTF-16 units, one fewer if the cut would split a surrogate pair. */
function cutAt(text: string, length: number): string {
  const code = text.charCodeAt(length - 1);
  return code >= 0xd800 && code <= 0xdbff ? text.slice(0, length - 1) : text.slice(0, length);
}

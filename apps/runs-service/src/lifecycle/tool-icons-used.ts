import { ToolIcon } from '@aas/contracts';

/** Most entries of a run's tool_icons: a runtime calling ever new tool names cannot grow the row without end. */
export const MAX_TOOL_ICONS = 50;

/** The run's tool_icons with this one added: one per distinct tool, in the order first used. */
export function withToolIcon(icons: ToolIcon[], icon: ToolIcon): ToolIcon[] {
  if (icons.length >= MAX_TOOL_ICONS || icons.some((known) => known.action_type === icon.action_type)) return icons;
  return [...icons, icon];
}

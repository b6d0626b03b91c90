import cronstrue from 'cronstrue';

/**
 * A 7-field Quartz expression in plain English (cronstrue, days of the week numbered from 1 as in
 * Quartz), or null when cronstrue cannot read it: the API's preview then says what is wrong.
 */
export function describeCron(expression: string): string | null {
  const trimmed = expression.trim();
  if (trimmed.split(/\s+/).length !== 7) return null;
  try {
    return cronstrue.toString(trimmed, { dayOfWeekStartIndexZero: false, use24HourTimeFormat: true, verbose: false });
  } catch {
    return null; // cronstrue throws on what it cannot parse: no description is the answer, not an error
  }
}

/**
 * The new display order: the given ids first, in the given order, then every
 * other workspace in its previous order. Returns id → position.
 */
export function reorderPositions(currentOrder: string[], requested: string[]): Map<string, number> {
  const requestedSet = new Set(requested);
  const order = [...requested, ...currentOrder.filter((id) => !requestedSet.has(id))];
  return new Map(order.map((id, position) => [id, position]));
}

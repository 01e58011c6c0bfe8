/** `items` cut into consecutive groups of at most `size` (size ≥ 1), in order; none when `items` is empty. */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const groups: T[][] = [];
  for (let i = 0; i < items.length; i += size) groups.push(items.slice(i, i + size));
  return groups;
}

/** `1 session`, `2 sessions`: a count with its noun as English says it. */
export function counted(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

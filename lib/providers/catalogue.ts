/*
 * What a provider serves, as clients name the models: its server's own list (the catalogue, from
 * GET /models), renamed (`{exposed: upstream}`: the upstream name is then served under the exposed
 * one only) and filtered by the allow-list (exposed names). Pure, so that it is cheap to recompute.
 */
export function exposedModels(catalogue: readonly string[], allow: readonly string[] | null, renames: Record<string, string>) {
  const served = new Map<string, string>();
  const listed = new Set(catalogue);
  const renamed = new Set(Object.values(renames));
  for (const id of catalogue) if (!renamed.has(id)) served.set(id, id);
  for (const [exposed, upstream] of Object.entries(renames)) if (listed.has(upstream)) served.set(exposed, upstream);
  if (allow) {
    const allowed = new Set(allow);
    for (const id of [...served.keys()]) if (!allowed.has(id)) served.delete(id);
  }
  return served;
}

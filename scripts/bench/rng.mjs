// A small seeded PRNG (mulberry32) and helpers, so the synthetic tree is identical for a given seed.

export function createRng(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const rng = {
    next,
    /** Integer in [min, max]. */
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: (list) => list[Math.floor(next() * list.length)],
    /** Picks a key of `weights` ({ key: weight }) with probability proportional to its weight. */
    weighted(weights) {
      const entries = Object.entries(weights);
      const total = entries.reduce((sum, [, w]) => sum + w, 0);
      let roll = next() * total;
      for (const [key, w] of entries) {
        roll -= w;
        if (roll < 0) return key;
      }
      return entries[entries.length - 1][0];
    },
    /** Standard normal (Box-Muller). */
    normal() {
      const u = Math.max(next(), 1e-12);
      const v = next();
      return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    },
    /** Log-normal with the given median, clamped to [min, max]. */
    logNormal(median, sigma, min, max) {
      return Math.min(max, Math.max(min, Math.round(median * Math.exp(sigma * rng.normal()))));
    },
    /** A new independent generator derived from this one (so adding draws in one place does not shift the rest). */
    fork: () => createRng(Math.floor(next() * 4294967296)),
  };
  return rng;
}

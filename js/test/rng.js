// rng is the tests' seeded random source (xorshift32): the same run for a
// seed, a number in [0, 1) per call. Node and browser pages alike.
export function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return s / 4294967296; };
}

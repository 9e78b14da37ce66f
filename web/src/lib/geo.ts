// The geometry of the key view's point scatter: the window of longitude and latitude that
// fits the points, and the graticule lines worth drawing in it. Plain functions, no DOM.

/** A window over the globe, in degrees. */
export interface GeoWindow {
  minLon: number;
  maxLon: number;
  minLat: number;
  maxLat: number;
}

/** The whole plane GEOADD accepts (Web Mercator's latitude limit). */
export const WORLD: GeoWindow = { minLon: -180, maxLon: 180, minLat: -85.05112878, maxLat: 85.05112878 };

/** Graticule spacings, coarse to fine (degrees). */
const STEPS = [30, 10, 5, 2, 1, 0.5, 0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002, 0.001];

/**
 * The window that holds every point with a margin (a tenth of the span each side, at least
 * a hundredth of a degree), clipped to the world. The whole world when there are none.
 */
export function fitWindow(points: { longitude: number; latitude: number }[]): GeoWindow {
  if (points.length === 0) return { ...WORLD };
  let minLon = Infinity;
  let maxLon = -Infinity;
  let minLat = Infinity;
  let maxLat = -Infinity;
  for (const p of points) {
    minLon = Math.min(minLon, p.longitude);
    maxLon = Math.max(maxLon, p.longitude);
    minLat = Math.min(minLat, p.latitude);
    maxLat = Math.max(maxLat, p.latitude);
  }
  const padLon = Math.max((maxLon - minLon) / 10, 0.01);
  const padLat = Math.max((maxLat - minLat) / 10, 0.01);
  return {
    minLon: Math.max(WORLD.minLon, minLon - padLon),
    maxLon: Math.min(WORLD.maxLon, maxLon + padLon),
    minLat: Math.max(WORLD.minLat, minLat - padLat),
    maxLat: Math.min(WORLD.maxLat, maxLat + padLat),
  };
}

/** The coarsest spacing that draws at least three lines across `span` degrees. */
export function graticuleStep(span: number): number {
  return STEPS.find((s) => span / s >= 3) ?? STEPS[STEPS.length - 1];
}

/** The multiples of `step` inside [min, max], rounded to the step's precision. */
export function graticuleLines(min: number, max: number, step: number): number[] {
  const digits = Math.max(0, -Math.floor(Math.log10(step)) + 1);
  const out: number[] = [];
  for (let i = Math.ceil(min / step); i * step <= max + 1e-12; i++) {
    out.push(Number((i * step).toFixed(digits)));
  }
  return out;
}

/** A coordinate for people: six decimals (about 0.1 m), trailing zeros dropped. */
export function formatDegrees(d: number): string {
  return String(Number(d.toFixed(6)));
}

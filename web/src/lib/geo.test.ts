import { describe, expect, it } from 'vitest';
import { WORLD, fitWindow, formatDegrees, graticuleLines, graticuleStep } from './geo';

describe('geo scatter geometry', () => {
  it('fits the points with a margin, clipped to the world', () => {
    expect(fitWindow([])).toEqual(WORLD);
    const w = fitWindow([
      { longitude: 13.36, latitude: 38.11 },
      { longitude: 15.08, latitude: 37.5 },
    ]);
    expect(w.minLon).toBeCloseTo(13.188);
    expect(w.maxLon).toBeCloseTo(15.252);
    expect(w.minLat).toBeCloseTo(37.439);
    expect(w.maxLat).toBeCloseTo(38.171);
    // A single point gets a small window around it.
    const one = fitWindow([{ longitude: 180, latitude: 85.05112878 }]);
    expect(one.maxLon).toBe(180);
    expect(one.maxLat).toBe(WORLD.maxLat);
    expect(one.minLon).toBeCloseTo(179.99);
  });

  it('picks graticule spacings that draw a few lines', () => {
    expect(graticuleStep(360)).toBe(30);
    expect(graticuleStep(2)).toBe(0.5);
    expect(graticuleStep(0.02)).toBe(0.005);
    expect(graticuleLines(-180, 180, 30)).toEqual([-180, -150, -120, -90, -60, -30, 0, 30, 60, 90, 120, 150, 180]);
    expect(graticuleLines(13.19, 15.25, 0.5)).toEqual([13.5, 14, 14.5, 15]);
    expect(graticuleLines(37.44, 37.5, 0.02)).toEqual([37.44, 37.46, 37.48, 37.5]);
  });

  it('prints coordinates with six decimals at most', () => {
    expect(formatDegrees(13.36138933897018433)).toBe('13.361389');
    expect(formatDegrees(-0.5)).toBe('-0.5');
  });
});

/**
 * A written report opened in headless Chromium the way the report tests look at it: what the
 * page requested, what went wrong in it (console errors and warnings, page errors), and each
 * figure as drawn.
 */
import { pathToFileURL } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';

export interface OpenedReport {
  page: Page;
  /** Every URL the page asked for. */
  requests: string[];
  /** Console errors and warnings, and uncaught page errors, as they come. */
  problems: string[];
}

export async function openReport(context: BrowserContext, reportPath: string, viewport: { width: number; height: number }): Promise<OpenedReport> {
  const page = await context.newPage();
  const requests: string[] = [];
  const problems: string[] = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  await page.setViewportSize(viewport);
  await page.goto(pathToFileURL(reportPath).href, { waitUntil: 'load' });
  return { page, requests, problems };
}

export interface DrawnFigure {
  /** The figure's id (its section's id without `fig-`). */
  id: string;
  heading: string;
  /** The SVG's own width attribute. */
  width: number;
  /** Area of the drawing on the page, px². */
  rendered: number;
  /** Marks Vega drew (lines, bars, points, rules...). */
  marks: number;
  texts: string[];
}

export function drawnFigures(page: Page): Promise<DrawnFigure[]> {
  return page.$$eval('section.figure', (sections) =>
    sections.map((s) => {
      const drawing = s.querySelector('svg, canvas');
      const box = drawing?.getBoundingClientRect();
      return {
        id: s.id.replace(/^fig-/, ''),
        heading: s.querySelector('h2')?.textContent ?? '',
        width: drawing ? Number(drawing.getAttribute('width')) : 0,
        rendered: box ? box.width * box.height : 0,
        marks: drawing ? drawing.querySelectorAll('.role-mark > *').length : 0,
        texts: drawing ? Array.from(drawing.querySelectorAll('text')).map((t) => t.textContent ?? '') : [],
      };
    }),
  );
}

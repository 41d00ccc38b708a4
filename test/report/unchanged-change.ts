/**
 * Finds sentences that present a value as changing when, as printed, it did not: "went from 6.7
 * to 6.7 ms", "ranges from 5 ops/s (a) to 5 ops/s (b)", "the largest single change, 0.0 ms".
 * The report tests run it over every report's text.
 */

const NUMBER = String.raw`-?\d[\d,]*(?:\.\d+)?`;
/** `from A … to B` within one clause: labels in parentheses and units may stand between. */
const FROM_TO = new RegExp(String.raw`\bfrom (${NUMBER})([^.;:?!]{0,80}?)\bto (${NUMBER})([^.;:?!\d]{0,40})`, 'g');
const ZERO_CHANGE = new RegExp(String.raw`\bchanges?,? (?:of )?[+-]?0(?:\.0+)?\b(?! ?[.,]\d)`, 'g');

export function unchangedChanges(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(FROM_TO)) {
    if (m[1] !== m[3]) continue;
    // The same number with different units or labels after it ("from 1 s to 1 min") is a change.
    const unitAfter = (s: string) =>
      s
        .replace(/\([^)]*\)/g, '')
        .trim()
        .split(/\s+/)[0] ?? '';
    if (unitAfter(m[2]) === unitAfter(m[4]) || unitAfter(m[2]) === '') found.push(m[0].trim());
  }
  for (const m of text.matchAll(ZERO_CHANGE)) found.push(m[0]);
  return found;
}

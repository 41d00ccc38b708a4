/** How the overlay notices a dead link: the topology's failover profile and the tinc timers it sets. */

/**
 * tinc's failure detection, which decides how long the overlay takes to re-route around a dead
 * link: `fast` (default), `tinc-defaults` (what the published system ran), or custom seconds.
 */
export type FailoverProfile = 'fast' | 'tinc-defaults' | { pingInterval: number; pingTimeout: number; maxTimeout?: number };

/** tinc's own timer options (seconds) for a profile. */
export interface TincTimers {
  pingInterval: number;
  pingTimeout: number;
  maxTimeout: number;
}

/**
 * fast: a silent meta connection is probed after 1 s and dropped 1 s later (re-route in ~2 s
 * here), and reconnects are retried every second. tinc-defaults: tinc 1.0's own 60 / 5 / 900.
 * Custom: the given values, tinc's default reconnect cap where none is given.
 *
 * tinc 1.0 runs with PingTimeout at most PingInterval (net_setup.c clamps it): `fast` said 2 s
 * until 2026-11-26 and ran 1 s. The same timeout bounds a connection's authentication, counted in
 * tinc's whole seconds, so a connection must authenticate within the second it connected in plus
 * PingTimeout - 1: steering redials early in a second for that (infra/local/overlay-paths.ts).
 */
export function tincTimers(profile: FailoverProfile = 'fast'): TincTimers {
  if (profile === 'fast') return { pingInterval: 1, pingTimeout: 1, maxTimeout: 1 };
  if (profile === 'tinc-defaults') return { pingInterval: 60, pingTimeout: 5, maxTimeout: 900 };
  return { pingInterval: profile.pingInterval, pingTimeout: profile.pingTimeout, maxTimeout: profile.maxTimeout ?? 900 };
}

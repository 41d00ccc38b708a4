package relay

import (
	"math"
	"net/netip"
	"slices"
	"testing"
)

// These tests drive a direction's scheduler with made-up arrival times and no socket, so that
// what they check (the distribution, the order, the seeds) is exact and free of host noise.

const dropped = math.MinInt64

// offline is a direction with no socket; its packets are taken back as soon as they are held.
func offline(s Shaping, stream string) *direction {
	return newDirection(nil, netip.MustParseAddrPort("127.0.0.1:9"), s, stream)
}

// offer enqueues n datagrams arriving spacing ns apart and returns each one's one-way delay in
// ns (dropped for those dropped). The first arrives when the direction's last packet left, so
// that earlier offers do not hold these back.
func offer(d *direction, n int, spacing int64) []int64 {
	buf := make([]byte, 100)
	out := make([]int64, n)
	start := d.lastDue
	for i := range out {
		at := start + int64(i)*spacing
		if !d.enqueue(buf, at) {
			out[i] = dropped
			continue
		}
		p := d.queue.pop()
		d.inFlight -= len(p.data)
		d.release(p.data)
		out[i] = p.due - at
	}
	return out
}

func withSeed(s Shaping, seed float64) Shaping {
	s.Seed = &seed
	return s
}

func jittered(delayMs, jitterMs float64) Shaping {
	s := shaping(delayMs, 0, 0)
	s.JitterMs = jitterMs
	return s
}

// meanSDMs is the mean and (population) standard deviation of delays given in ns, in ms.
func meanSDMs(delays []int64) (mean, sd float64) {
	var sum, sq float64
	n := 0
	for _, d := range delays {
		if d == dropped {
			continue
		}
		ms := float64(d) / 1e6
		sum, sq, n = sum+ms, sq+ms*ms, n+1
	}
	mean = sum / float64(n)
	return mean, math.Sqrt(max(0, sq/float64(n)-mean*mean))
}

func TestJitterIsNormalAroundTheDelayWhenPacketsAreSparse(t *testing.T) {
	const delayMs, jitterMs = 20.0, 2.0
	// Spaced 4 jitterMs apart: a packet rarely catches up with the one before.
	delays := offer(offline(withSeed(jittered(delayMs, jitterMs), 7), "x ab"), 20_000, 8*nsPerMs)
	mean, sd := meanSDMs(delays)
	t.Logf("delay %g ms, jitter %g ms, spaced 4 jitterMs: mean %.3f ms, sd %.3f ms", delayMs, jitterMs, mean, sd)
	if math.Abs(mean-delayMs) > 0.05 || math.Abs(sd-jitterMs) > 0.05*jitterMs {
		t.Errorf("mean %.3f sd %.3f; want %g and %g", mean, sd, delayMs, jitterMs)
	}
}

func TestJitterKeepsOrderWhenPacketsCrowd(t *testing.T) {
	const delayMs, jitterMs = 50.0, 5.0
	// The figures direction.go's comment gives: at 0.1 jitterMs apart the mean rises by ~1.2
	// jitterMs and the spread is ~58 % of jitterMs.
	spacing := msToNs(0.1 * jitterMs)
	delays := offer(offline(withSeed(jittered(delayMs, jitterMs), 7), "x ab"), 20_000, spacing)
	for i := 1; i < len(delays); i++ {
		if int64(i)*spacing+delays[i] < int64(i-1)*spacing+delays[i-1] {
			t.Fatalf("packet %d is due before packet %d", i, i-1)
		}
	}
	mean, sd := meanSDMs(delays)
	t.Logf("spaced 0.1 jitterMs: mean %.3f ms (+%.2f jitterMs), sd %.3f ms (%.0f %% of jitterMs)",
		mean, (mean-delayMs)/jitterMs, sd, 100*sd/jitterMs)
	if rise := (mean - delayMs) / jitterMs; rise < 1 || rise > 1.4 {
		t.Errorf("mean rose by %.2f jitterMs, want ~1.2", rise)
	}
	if share := sd / jitterMs; share < 0.5 || share > 0.66 {
		t.Errorf("spread %.2f of jitterMs, want ~0.58", share)
	}
}

func TestJitterNeverSendsBeforeArrival(t *testing.T) {
	// Jitter larger than the delay: the clamp at 0 keeps every packet's delay >= 0.
	delays := offer(offline(withSeed(jittered(1, 5), 3), "x ab"), 5_000, 100*nsPerMs)
	if least := slices.Min(delays); least < 0 {
		t.Errorf("a packet was due %d ns before it arrived", -least)
	}
}

func TestSameSeedSameDropsAndDelays(t *testing.T) {
	s := jittered(30, 3)
	s.LossPercent = 10
	run := func(seed float64, stream string) []int64 {
		return offer(offline(withSeed(s, seed), stream), 5_000, 10*nsPerMs)
	}
	first := run(42, "a-b/0 ab")
	if !slices.Equal(first, run(42, "a-b/0 ab")) {
		t.Error("seed 42 gave different drops or delays on a second run")
	}
	if slices.Equal(first, run(43, "a-b/0 ab")) {
		t.Error("seeds 42 and 43 gave the same drops and delays")
	}
	// One seed for every direction (a run's seed) must not drop the same packets on each.
	if same := sameDrops(first, run(42, "a-b/0 ba")); same > 0.2 {
		t.Errorf("ab and ba with one seed agree on %.0f %% of their drops", 100*same)
	}

	// A direction reseeded through a change starts the seed's sequence over.
	d := offline(withSeed(s, 42), "a-b/0 ab")
	offer(d, 1_000, 10*nsPerMs)
	d.apply(Change{Seed: ptr(42.0)})
	if !slices.Equal(first, offer(d, 5_000, 10*nsPerMs)) {
		t.Error("reseeding with 42 did not repeat seed 42's drops and delays")
	}
}

// sameDrops is the share of a's drops that b drops too.
func sameDrops(a, b []int64) float64 {
	var both, inA int
	for i := range a {
		if a[i] == dropped {
			inA++
			if b[i] == dropped {
				both++
			}
		}
	}
	return float64(both) / float64(inA)
}

func TestNothingIsDrawnWithoutLossOrJitter(t *testing.T) {
	lossy := withSeed(shaping(10, 0, 20), 5)
	want := offer(offline(lossy, "x ab"), 2_000, nsPerMs)

	// Unshaped traffic first: it must not use up the seed's draws.
	d := offline(withSeed(shaping(10, 0, 0), 5), "x ab")
	offer(d, 500, nsPerMs)
	d.apply(Change{LossPercent: ptr(20.0)})
	if !slices.Equal(want, offer(d, 2_000, nsPerMs)) {
		t.Error("packets without loss or jitter advanced the random draws")
	}
}

func TestRandomSeedIsReported(t *testing.T) {
	ab, ba := offline(shaping(10, 0, 1), "x ab"), offline(shaping(10, 0, 1), "x ba")
	sa, sb := ab.stats().Seed, ba.stats().Seed
	if sa == sb || sa > maxSeed || sb > maxSeed {
		t.Errorf("random seeds %d and %d: want two different seeds below 2^53", sa, sb)
	}
	if s := offline(withSeed(shaping(0, 0, 0), maxSeed), "x ab").stats().Seed; s != maxSeed {
		t.Errorf("seed 2^53-1 reported as %d", s)
	}
}

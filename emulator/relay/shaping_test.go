package relay

import (
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The precision target of the local fleet: measured RTT through the relay within
// max(1 ms, 2 %) of the configured value at the median and max(3 ms, 5 %) at p99, with about
// ten links busy at once. The relay runs as fb-wan runs on the fleet, in its own process at
// SCHED_FIFO 10, and the test's pingers and bulk senders at normal priority, as clients are.
//
// The p99 part allows for the time the hypervisor takes from this VM (steal in /proc/stat):
// while a vCPU is taken away nothing on it runs, the relay at real-time priority included. On
// this 2-core VM on 2026-11-26 steal was 1.5-2.5 % of CPU time while the test ran, a real-time
// sleeper beside it woke up to 3.8 ms late, and the relay sent 1-3 % of datagrams over 1 ms late;
// the p99 rose 2-5 ms above the configured RTT. So the share of round trips later than the
// p99 target may be 1 % plus twice the stolen share (either leg can be hit); the relay's own
// lateness counters are printed beside it.
func TestRTTPrecisionUnderTenBusyLinks(t *testing.T) {
	rtts := []float64{2, 10, 20, 50, 100, 150, 200, 300, 400, 450}
	var shapings [][2]Shaping
	for _, rtt := range rtts {
		shapings = append(shapings, [2]Shaping{shaping(rtt/2, 0, 0), shaping(rtt/2, 0, 0)})
	}
	// Two more links carry a bulk flow each (1400 B datagrams, ~45 Mbit/s) through the test.
	bulk := [2]Shaping{shaping(25, 0, 0), shaping(25, 0, 0)}
	cfg, links := testLinks(t, 1, append(shapings, bulk, bulk)...)
	relay := startChildRelay(t, cfg, 10)
	pinged, bulkLinks := links[:len(rtts)], links[len(rtts):]

	cpuBefore := readHostCPU(t)
	results := make([][]float64, len(pinged))
	var wg sync.WaitGroup
	for _, tl := range bulkLinks {
		go send(t, tl.nodeA, tl.viaA, 12_000, 1400, 8, 2*time.Millisecond)
		go collect(tl.nodeB, time.Now().Add(4*time.Second), time.Second)
	}
	for i, tl := range pinged {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = rttsMs(pingStream(tl, 2*time.Millisecond, 3*time.Second, 500*time.Millisecond))
		}()
	}
	wg.Wait()
	stolen := readHostCPU(t).stolenShareSince(cpuBefore)
	stats := relay.stats(t)
	for _, s := range stats[len(rtts):] {
		t.Logf("bulk link %s forwarded %d datagrams, %.1f MB, meanwhile", s.ID, s.AB.Packets, float64(s.AB.Bytes)/1e6)
	}
	allowedLate := 0.01 + 2*stolen
	t.Logf("host: %.2f %% of CPU time stolen by the hypervisor meanwhile; round trips past the p99 target allowed: %.2f %%",
		100*stolen, 100*allowedLate)

	for i, configured := range rtts {
		late := [2]LateCounts{stats[i].AB.Late, stats[i].BA.Late}
		t.Logf("RTT %5.1f ms: relay sent %d+%d datagrams over 1 ms late, %d+%d over 3 ms, at most %.3f/%.3f ms, of %d+%d",
			configured, late[0].Over1Ms, late[1].Over1Ms, late[0].Over3Ms, late[1].Over3Ms, late[0].MaxMs,
			late[1].MaxMs, stats[i].AB.Packets, stats[i].BA.Packets)
		got := results[i]
		if len(got) < 1000 {
			t.Errorf("RTT %g ms: only %d replies of ~1500", configured, len(got))
			continue
		}
		median, p99, least := percentile(got, 50), percentile(got, 99), percentile(got, 0)
		lateBound := configured + max(3, 0.05*configured)
		lateShare := float64(countAbove(got, lateBound)) / float64(len(got))
		t.Logf("RTT %5.1f ms configured: median %8.3f (%+.3f)  p99 %8.3f (%+.3f)  min %8.3f  n=%d  past %.3f: %.2f %%",
			configured, median, median-configured, p99, p99-configured, least, len(got), lateBound, 100*lateShare)
		if err := math.Abs(median - configured); err > max(1, 0.02*configured) {
			t.Errorf("RTT %g ms: median %.3f ms is off by more than max(1 ms, 2%%)", configured, median)
		}
		if lateShare > allowedLate {
			t.Errorf("RTT %g ms: %.2f %% of round trips took over %.3f ms (max(3 ms, 5%%) late), more than the %.2f %% allowed (1 %% + twice the %.2f %% stolen)",
				configured, 100*lateShare, lateBound, 100*allowedLate, 100*stolen)
		}
		// Each leg may leave up to sendSlack early (loop_linux.go), so a round trip up to twice that.
		if early := 2 * float64(sendSlack) / 1e6; least < configured-early {
			t.Errorf("RTT %g ms: a reply came back after %.3f ms, more than %.3f ms before the configured delay",
				configured, least, early)
		}
	}
}

func countAbove(values []float64, bound float64) int {
	n := 0
	for _, v := range values {
		if v > bound {
			n++
		}
	}
	return n
}

func TestFIFOWhileDelayAndRateChange(t *testing.T) {
	r, links := startRelay(t, 2, [2]Shaping{shaping(30, 100, 0), shaping(0, 0, 0)})
	tl := links[0]
	stop := make(chan struct{})
	go func() {
		// Swing the delay between 30 ms and 0 and the rate between 100 and uncapped while
		// packets are held: none may overtake another.
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(15 * time.Millisecond):
			}
			c := Change{Link: tl.id, Dir: "ab", DelayMs: ptr(30 * float64(i%2)), SetRate: true}
			if i%3 == 0 {
				c.RateMbps = ptr(100.0)
			}
			if err := r.Apply([]Change{c}); err != nil {
				t.Error(err)
			}
		}
	}()
	const count = 3000
	go send(t, tl.nodeA, tl.viaA, count, 500, 10, time.Millisecond)
	got := collect(tl.nodeB, time.Now().Add(10*time.Second), 300*time.Millisecond)
	close(stop)

	if len(got) != count {
		t.Errorf("received %d of %d datagrams (drops: %+v)", len(got), count, r.Stats()[0].AB.Drops)
	}
	for i := 1; i < len(got); i++ {
		if got[i].seq <= got[i-1].seq {
			t.Fatalf("datagram %d arrived after %d: reordered", got[i].seq, got[i-1].seq)
		}
	}
	if s := r.Stats()[0].AB; s.Packets != uint64(len(got)) || s.Bytes != uint64(500*len(got)) {
		t.Errorf("stats count %d packets / %d bytes, node B received %d", s.Packets, s.Bytes, len(got))
	}
}

func TestRateCapWithBoundedQueue(t *testing.T) {
	const capMbps, delayMs, size = 40.0, 5.0, 1000
	r, links := startRelay(t, 3, [2]Shaping{shaping(delayMs, capMbps, 0), shaping(delayMs, 0, 0)})
	tl := links[0]
	// Offer twice the cap for a second: 20 datagrams of 1000 B every 2 ms is 80 Mbit/s.
	go send(t, tl.nodeA, tl.viaA, 10_000, size, 20, 2*time.Millisecond)
	got := collect(tl.nodeB, time.Now().Add(5*time.Second), 300*time.Millisecond)
	if len(got) < 100 {
		t.Fatalf("only %d datagrams arrived", len(got))
	}

	first, last := got[0], got[len(got)-1]
	mbps := float64((len(got)-1)*size*8) / (float64(last.recv-first.recv) / 1e3)
	oneWay := rttsMs(got)
	maxQueueMs := max(20, 64<<10*8/(capMbps*1000), 2*delayMs)
	t.Logf("rate cap %.0f Mbit/s, offered 80: received %.2f Mbit/s; one-way delay p99 %.2f ms, max %.2f ms (delay %.0f + queue limit %.1f)",
		capMbps, mbps, percentile(oneWay, 99), percentile(oneWay, 100), delayMs, maxQueueMs)
	if math.Abs(mbps-capMbps) > 0.1*capMbps {
		t.Errorf("throughput %.2f Mbit/s is not within 10%% of the %.0f Mbit/s cap", mbps, capMbps)
	}
	// An unbounded queue would hold datagrams for up to half a second here. The 99th percentile,
	// not the maximum, so that a rare stall of the shared test host does not decide the test.
	serialiseMs := size * 8 / (capMbps * 1000)
	if p99 := percentile(oneWay, 99); p99 > delayMs+maxQueueMs+serialiseMs+3 {
		t.Errorf("p99 one-way delay %.2f ms: the queue is not bounded at %.1f ms", p99, maxQueueMs)
	}
	s := r.Stats()[0].AB
	if s.Drops.Queue == 0 {
		t.Errorf("twice the cap was offered but nothing was dropped for queue overflow: %+v", s.Drops)
	}
	if s.Packets != uint64(len(got)) {
		t.Errorf("stats count %d forwarded, node B received %d", s.Packets, len(got))
	}
}

func TestRandomLossMatchesConfigured(t *testing.T) {
	const count = 10_000
	percents := []float64{1, 5, 20}
	var shapings [][2]Shaping
	for i, p := range percents {
		// Seeded, so that the test is as repeatable as the runs it stands for: at 20 % one
		// standard deviation over 10,000 packets is 0.4 points, and random seeds would fail
		// the 1-point bound in about 1 run of 80.
		shapings = append(shapings, [2]Shaping{withSeed(shaping(0, 0, p), float64(i+1)), shaping(0, 0, 0)})
	}
	r, links := startRelay(t, 4, shapings...)
	received := make([]int, len(links))
	var wg sync.WaitGroup
	for i, tl := range links {
		wg.Add(1)
		go func() {
			defer wg.Done()
			go send(t, tl.nodeA, tl.viaA, count, 100, 20, time.Millisecond)
			received[i] = len(collect(tl.nodeB, time.Now().Add(10*time.Second), 300*time.Millisecond))
		}()
	}
	wg.Wait()

	for i, p := range percents {
		s := r.Stats()[i].AB
		measured := float64(s.Drops.Loss) / count * 100
		t.Logf("loss %4.1f%% configured (seed %d): %4d of %d dropped (%.2f%%)", p, s.Seed, s.Drops.Loss, count, measured)
		if math.Abs(measured-p) > 1 {
			t.Errorf("loss %g%%: dropped %.2f%%", p, measured)
		}
		if int(s.Packets) != received[i] || int(s.Packets+s.Drops.Loss) != count {
			t.Errorf("loss %g%%: sent %d: forwarded %d + lost %d, node B received %d", p, count, s.Packets, s.Drops.Loss, received[i])
		}
	}
}

func TestCutDropsHeldAndNewPacketsUntilRestore(t *testing.T) {
	r, links := startRelay(t, 5, [2]Shaping{shaping(100, 0, 0), shaping(100, 0, 0)})
	tl := links[0]
	send(t, tl.nodeA, tl.viaA, 10, 100, 10, time.Millisecond)
	waitFor(t, "10 datagrams held", time.Second, func() bool { return r.Stats()[0].AB.Queued == 10 })

	if err := r.Cut(tl.id, "both"); err != nil {
		t.Fatal(err)
	}
	send(t, tl.nodeA, tl.viaA, 5, 100, 5, time.Millisecond)
	send(t, tl.nodeB, tl.viaB, 5, 100, 5, time.Millisecond)
	if got := collect(tl.nodeB, time.Now().Add(300*time.Millisecond), time.Second); len(got) != 0 {
		t.Errorf("node B received %d datagrams through a cut link", len(got))
	}
	s := r.Stats()[0]
	if !s.Cut || s.AB.Drops.Cut != 15 || s.BA.Drops.Cut != 5 || s.AB.Queued != 0 {
		t.Errorf("after cut: cut=%v ab.drops.cut=%d (want 15) ba.drops.cut=%d (want 5) held=%d",
			s.Cut, s.AB.Drops.Cut, s.BA.Drops.Cut, s.AB.Queued)
	}

	if err := r.Restore(tl.id, ""); err != nil {
		t.Fatal(err)
	}
	start := now()
	send(t, tl.nodeA, tl.viaA, 5, 100, 5, time.Millisecond)
	got := collect(tl.nodeB, time.Now().Add(time.Second), 300*time.Millisecond)
	if len(got) != 5 {
		t.Fatalf("after restore node B received %d of 5", len(got))
	}
	if ms := float64(got[0].recv-start) / 1e6; ms < 100 {
		t.Errorf("after restore the first datagram arrived after %.1f ms, before the 100 ms delay", ms)
	}
	if s := r.Stats()[0]; s.Cut || s.AB.Packets != 5 {
		t.Errorf("after restore: cut=%v forwarded=%d (want false, 5)", s.Cut, s.AB.Packets)
	}
}

// A one-way cut drops a->b only: b's datagrams still reach a, and a restore of that direction
// brings a->b back.
func TestOneWayCutDropsOneDirectionOnly(t *testing.T) {
	r, links := startRelay(t, 15, [2]Shaping{shaping(5, 0, 0), shaping(5, 0, 0)})
	tl := links[0]
	if err := r.Cut(tl.id, "ab"); err != nil {
		t.Fatal(err)
	}
	send(t, tl.nodeA, tl.viaA, 5, 100, 5, time.Millisecond)
	send(t, tl.nodeB, tl.viaB, 5, 100, 5, time.Millisecond)
	if got := collect(tl.nodeB, time.Now().Add(200*time.Millisecond), time.Second); len(got) != 0 {
		t.Errorf("node B received %d datagrams over the cut direction", len(got))
	}
	if got := collect(tl.nodeA, time.Now().Add(200*time.Millisecond), time.Second); len(got) != 5 {
		t.Errorf("node A received %d of 5 datagrams over the direction left up", len(got))
	}
	s := r.Stats()[0]
	if !s.Cut || !s.AB.Cut || s.BA.Cut || s.AB.Drops.Cut != 5 || s.BA.Drops.Cut != 0 {
		t.Errorf("after a one-way cut: cut=%v ab.cut=%v ba.cut=%v ab.drops=%d ba.drops=%d", s.Cut, s.AB.Cut, s.BA.Cut, s.AB.Drops.Cut, s.BA.Drops.Cut)
	}
	if err := r.Cut(tl.id, "sideways"); err == nil {
		t.Error("a cut in an unknown direction was accepted")
	}
	if err := r.Restore(tl.id, "ab"); err != nil {
		t.Fatal(err)
	}
	send(t, tl.nodeA, tl.viaA, 5, 100, 5, time.Millisecond)
	if got := collect(tl.nodeB, time.Now().Add(200*time.Millisecond), time.Second); len(got) != 5 {
		t.Errorf("after restoring a->b node B received %d of 5", len(got))
	}
}

func TestDelayChangeWhileTrafficFlows(t *testing.T) {
	r, links := startRelay(t, 6, [2]Shaping{shaping(10, 0, 0), shaping(10, 0, 0)})
	tl := links[0]
	var changed atomic.Int64
	go func() {
		time.Sleep(500 * time.Millisecond)
		changed.Store(now())
		if err := r.Apply([]Change{{Link: tl.id, Dir: "ab", DelayMs: ptr(50.0)}}); err != nil {
			t.Error(err)
		}
	}()
	replies := pingStream(tl, 2*time.Millisecond, time.Second, 200*time.Millisecond)

	changedAt := changed.Load()
	var before, after []arrival
	for _, a := range replies {
		switch {
		case a.sent < changedAt-5*nsPerMs:
			before = append(before, a)
		case a.sent > changedAt+5*nsPerMs:
			after = append(after, a)
		}
	}
	if len(before) < 100 || len(after) < 100 {
		t.Fatalf("too few replies around the change: %d before, %d after", len(before), len(after))
	}
	mb, ma := percentile(rttsMs(before), 50), percentile(rttsMs(after), 50)
	t.Logf("delay change 10 -> 50 ms one way: RTT median %.3f ms before, %.3f ms after", mb, ma)
	if math.Abs(mb-20) > 1 || math.Abs(ma-60) > 1.2 {
		t.Errorf("RTT medians %.3f before and %.3f after; configured 20 and 60", mb, ma)
	}
	if s := r.Stats()[0].AB; s.DelayMs != 50 || r.Stats()[0].BA.DelayMs != 10 {
		t.Errorf("stats show ab delay %g and ba delay %g; set 50 and 10", s.DelayMs, r.Stats()[0].BA.DelayMs)
	}
}

func TestForeignSourcesAreDroppedAndCounted(t *testing.T) {
	r, links := startRelay(t, 7, [2]Shaping{shaping(0, 0, 0), shaping(0, 0, 0)})
	tl := links[0]
	stranger := listenUDP(t, "127.77.7.250:0")
	send(t, stranger, tl.viaA, 3, 100, 3, time.Millisecond)
	send(t, stranger, tl.viaB, 2, 100, 2, time.Millisecond)
	if got := collect(tl.nodeB, time.Now().Add(200*time.Millisecond), time.Second); len(got) != 0 {
		t.Errorf("node B received %d datagrams from a stranger", len(got))
	}
	waitFor(t, "foreign drops counted", time.Second, func() bool {
		s := r.Stats()[0]
		return s.AB.Drops.Foreign == 3 && s.BA.Drops.Foreign == 2
	})
	if s := r.Stats()[0]; s.AB.Packets+s.BA.Packets != 0 {
		t.Errorf("forwarded %d datagrams from a stranger", s.AB.Packets+s.BA.Packets)
	}
}
